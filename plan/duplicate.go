package plan

import (
	"maps"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DuplicatedFromAnnotation is set on a copy made by Duplicate to the ID of
// the plan it was copied from. Create mentions it in the Created event.
const DuplicatedFromAnnotation = "telark.io/duplicated-from"

// DuplicateOption changes how Duplicate copies a plan.
type DuplicateOption func(*duplicateOptions)

type duplicateOptions struct {
	name string
}

// WithDisplayName gives the copy this display name instead of
// "Copy of <name>".
func WithDisplayName(name string) DuplicateOption {
	return func(o *duplicateOptions) { o.name = name }
}

// Duplicate returns a new plan with ID newID and src's spec, ready for the
// create path: derive its approval mode (package approval; Duplicate clears
// it), Validate it, then Create it. The copy has no status, src's labels,
// the annotation DuplicatedFromAnnotation, and the display name
// "Copy of <name>" cut to MaxNameLength characters unless WithDisplayName
// gives one. src is not changed; a caller that keeps src's timeline can
// append an EventDuplicated to it with AppendEvent.
//
// Refused (400 on metadata.name): a newID that is not a DNS-1123 label.
func Duplicate(src *ProtectionPlan, newID string, opts ...DuplicateOption) (*ProtectionPlan, error) {
	if msgs := validation.IsDNS1123Label(newID); len(msgs) > 0 {
		return nil, refuse("duplicate", src, http.StatusBadRequest, field.NewPath("metadata", "name"),
			"the new plan ID "+quote(newID)+" is invalid: "+strings.Join(msgs, "; "))
	}
	o := duplicateOptions{name: truncateRunes("Copy of "+src.Spec.Name, MaxNameLength)}
	for _, opt := range opts {
		opt(&o)
	}
	cp := &ProtectionPlan{
		TypeMeta: metav1.TypeMeta{APIVersion: GroupVersion.String(), Kind: Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name:        newID,
			Labels:      maps.Clone(src.Labels),
			Annotations: map[string]string{DuplicatedFromAnnotation: src.Name},
		},
		Spec: *src.Spec.DeepCopy(),
	}
	cp.Spec.Name = o.name
	cp.Spec.ApprovalMode = ""
	return cp, nil
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimRight(string(r[:n]), " ")
}

func quote(s string) string { return `"` + s + `"` }
