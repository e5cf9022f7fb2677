package plan

import (
	"regexp"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxIDBase is the longest part of a plan ID NewID takes from the display
// name.
const MaxIDBase = 40

// idAlphabet is the alphabet of NewID's suffix.
const idAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

var notIDChars = regexp.MustCompile(`[^a-z0-9]+`)

// NewID makes a plan ID (a DNS-1123 label) from a display name: its
// letters and digits in lower case, other runs of characters as one "-",
// cut to MaxIDBase characters ("plan" when nothing is left), then "-" and
// one character of [a-z0-9] per byte of entropy. The embedder reads the
// entropy (5 random bytes make a collision unlikely); the same name and
// entropy always give the same ID.
func NewID(displayName string, entropy []byte) string {
	base := strings.Trim(notIDChars.ReplaceAllString(strings.ToLower(displayName), "-"), "-")
	if len(base) > MaxIDBase {
		base = strings.Trim(base[:MaxIDBase], "-")
	}
	if base == "" {
		base = "plan"
	}
	suffix := make([]byte, len(entropy))
	for i, b := range entropy {
		suffix[i] = idAlphabet[int(b)%len(idAlphabet)]
	}
	return base + "-" + string(suffix)
}

// PrepareCreate readies a plan a client sent to be created, before it is
// admitted: it drops what the server owns and a client may send back from
// a read (the status, the resourceVersion, UID, generation, creation and
// deletion times, the managed fields), and names a plan sent without an
// ID with NewID(its display name, entropy).
func PrepareCreate(p *ProtectionPlan, entropy []byte) {
	if p.Name == "" {
		p.Name = NewID(p.Spec.Name, entropy)
	}
	p.Status = Status{}
	p.ResourceVersion, p.UID, p.Generation = "", "", 0
	p.CreationTimestamp = metav1.Time{}
	p.ManagedFields, p.DeletionTimestamp = nil, nil
}
