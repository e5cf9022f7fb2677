package health

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Verified remembers which live objects a check found ok: by uid, the
// resourceVersion each had and the render hash it matched. An operator
// keeps a plan's last Result.Verified in memory (it is not part of the
// plan's status) and passes it as the next Input.Verified: a live object
// with the same uid and resourceVersion has not been written since (the
// API server gives every write a new resourceVersion), so if the render
// still hashes it the same, it is ok without being compared again. The
// steady state then costs about as much as indexing the live list. The
// zero value remembers nothing; a Verified is never changed once made.
type Verified struct {
	m map[string]verifiedAt // by uid
}

type verifiedAt struct {
	resourceVersion, renderHash string
}

// Len is the number of objects remembered.
func (v Verified) Len() int { return len(v.m) }

// verifiedOK reports whether v remembers live, unchanged, as matching a
// render whose hash is renderHash.
func (v Verified) verifiedOK(live *unstructured.Unstructured, renderHash string) bool {
	if len(v.m) == 0 {
		return false
	}
	md := metadataOf(live)
	uid, _ := md["uid"].(string)
	rv, _ := md["resourceVersion"].(string)
	at, ok := v.m[uid]
	return ok && uid != "" && rv != "" && at == verifiedAt{rv, renderHash}
}

// verified remembers the ok objects of a check.
func (d *diff) verified() Verified {
	if d.remembered == len(d.objs) && d.remembered == d.in.Verified.Len() {
		return d.in.Verified // nothing changed
	}
	m := make(map[string]verifiedAt, len(d.objs))
	for i := range d.objs {
		if o := &d.objs[i]; o.state == StateOK && o.uid != "" && o.resourceVersion != "" {
			m[o.uid] = verifiedAt{o.resourceVersion, o.renderHash}
		}
	}
	return Verified{m: m}
}
