package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/telark/protectionplans/plan"
)

// SmallRequest is a short way to write a Request by hand, for Explain
// (protectctl explain --request reads it besides an AdmissionReview):
//
//	operation: UPDATE             # CREATE, UPDATE or DELETE
//	apiVersion: apps/v1           # optional for the catalog's kinds
//	kind: Deployment              # for a subresource, the parent's kind
//	subresource: scale            # optional
//	namespace: shop
//	name: checkout                # optional when an object has one
//	user: alice
//	groups: [developers]          # optional
//	parentLabels: {app: checkout} # /scale: the parent's labels
//	namespaceLabels: {env: prod}  # the namespace's (namespaceSelectors)
//	object: {...}                 # the new object (not on DELETE)
//	oldObject: {...}              # the old object (not on CREATE)
type SmallRequest struct {
	Operation    string            `json:"operation"`
	APIVersion   string            `json:"apiVersion,omitempty"`
	Kind         string            `json:"kind"`
	Subresource  string            `json:"subresource,omitempty"`
	Namespace    string            `json:"namespace"`
	Name         string            `json:"name,omitempty"`
	User         string            `json:"user"`
	Groups       []string          `json:"groups,omitempty"`
	ParentLabels map[string]string `json:"parentLabels,omitempty"`
	// NamespaceLabels are the labels of the namespace, which a
	// namespaceSelectors scope selects by.
	NamespaceLabels map[string]string `json:"namespaceLabels,omitempty"`
	Object          map[string]any    `json:"object,omitempty"`
	OldObject       map[string]any    `json:"oldObject,omitempty"`
}

var _ plan.Coder = (*RequestError)(nil)

// RequestError is a request Explain cannot say anything true about: not
// YAML or JSON, a field missing or malformed. Field paths are those of the
// document given (request.object in an AdmissionReview, user in a
// SmallRequest). Its code is 400.
type RequestError struct {
	// Missing are the paths of required fields that are empty.
	Missing []string
	// Field is the path of the field at fault; empty when the document as
	// a whole is (Reason says why) or when fields are Missing.
	Field string
	// Value is the value given, quoted in the message when not empty.
	Value string
	// Reason says what is wrong or expected.
	Reason string
}

func (e *RequestError) Error() string {
	if len(e.Missing) > 0 {
		names := make([]string, len(e.Missing))
		for i, m := range e.Missing {
			names[i] = m
			if m == "namespace" || strings.HasSuffix(m, ".namespace") {
				names[i] += " (plans freeze namespaced objects)"
			}
		}
		return "missing " + strings.Join(names, ", ")
	}
	switch {
	case e.Field == "":
		return e.Reason
	case e.Value != "":
		return fmt.Sprintf("%s %q: %s", e.Field, e.Value, e.Reason)
	}
	return e.Field + ": " + e.Reason
}

// HTTPCode is 400.
func (e *RequestError) HTTPCode() int { return http.StatusBadRequest }

// DecodeRequest reads a request for Explain: an admission.k8s.io/v1
// AdmissionReview (what the API server sends a webhook) or a SmallRequest,
// told apart by their kind, each decoded strictly by plan.Decode (whose
// options it takes). The error is plan.Decode's (a *plan.DecodeError) for
// a document that does not decode, or a *RequestError.
func DecodeRequest(data []byte, opts ...plan.DecodeOption) (Request, error) {
	var head struct {
		Kind string `json:"kind"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return Request{}, &RequestError{Reason: fmt.Sprintf("not YAML or JSON: %v", err)}
	}
	if head.Kind == "AdmissionReview" {
		var review admissionv1.AdmissionReview
		if err := plan.Decode(bytes.NewReader(data), &review, opts...); err != nil {
			return Request{}, err
		}
		return RequestFromReview(review)
	}
	var small SmallRequest
	if err := plan.Decode(bytes.NewReader(data), &small, opts...); err != nil {
		return Request{}, err
	}
	return small.Request()
}

// RequestFromReview is the request of an AdmissionReview. For a
// subresource (kubectl scale sends the Scale's kind) the kind is the
// parent's, read from the resource, as Kyverno and the rules see it; the
// parent's labels are not in a review and are left for the caller to set.
func RequestFromReview(review admissionv1.AdmissionReview) (Request, error) {
	if want := admissionv1.SchemeGroupVersion.String(); review.APIVersion != want {
		if review.APIVersion == "" {
			return Request{}, &RequestError{Missing: []string{"apiVersion"}}
		}
		return Request{}, &RequestError{Field: "apiVersion", Value: review.APIVersion, Reason: "want " + want}
	}
	r := review.Request
	if r == nil {
		return Request{}, &RequestError{Field: "request", Reason: "required"}
	}
	req := Request{
		Operation:   Operation(r.Operation),
		Kind:        schema.GroupVersionKind{Group: r.Kind.Group, Version: r.Kind.Version, Kind: r.Kind.Kind},
		Subresource: r.SubResource,
		Namespace:   r.Namespace,
		Name:        r.Name,
		UserInfo:    UserInfo{Username: r.UserInfo.Username, Groups: r.UserInfo.Groups},
	}
	if r.SubResource != "" {
		if k, ok := KindOfResource(r.Resource.Group, r.Resource.Resource); ok {
			req.Kind = schema.GroupVersionKind{Group: k.Group, Version: r.Resource.Version, Kind: k.Kind}
		}
	}
	var err error
	if req.Object, err = rawObject(r.Object, "request.object"); err != nil {
		return Request{}, err
	}
	if req.OldObject, err = rawObject(r.OldObject, "request.oldObject"); err != nil {
		return Request{}, err
	}
	return req, req.check(reviewPaths)
}

// KindOfResource finds a catalog kind (KnownKinds) by its group and plural
// resource name, as an admission request names the resource.
func KindOfResource(group, resource string) (Kind, bool) {
	for _, k := range knownKinds {
		if k.Group == group && k.Resource == resource {
			return k, true
		}
	}
	return Kind{}, false
}

func rawObject(raw runtime.RawExtension, path string) (map[string]any, error) {
	if len(raw.Raw) == 0 || string(raw.Raw) == "null" {
		return nil, nil
	}
	var obj map[string]any
	if err := json.Unmarshal(raw.Raw, &obj); err != nil {
		return nil, &RequestError{Field: path, Reason: fmt.Sprintf("not an object: %v", err)}
	}
	return obj, nil
}

// Request is the request s writes. Without an apiVersion, a kind of the
// catalog (KnownKinds) gets its group and version; the operation may be
// written in any case.
func (s SmallRequest) Request() (Request, error) {
	gvk := schema.FromAPIVersionAndKind(s.APIVersion, s.Kind)
	if s.APIVersion == "" {
		if k, ok := kindByName(s.Kind); ok {
			gvk = schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
		}
	}
	req := Request{
		Operation:       Operation(strings.ToUpper(s.Operation)),
		Kind:            gvk,
		Subresource:     s.Subresource,
		Namespace:       s.Namespace,
		Name:            s.Name,
		Labels:          s.ParentLabels,
		NamespaceLabels: s.NamespaceLabels,
		Object:          s.Object,
		OldObject:       s.OldObject,
		UserInfo:        UserInfo{Username: s.User, Groups: s.Groups},
	}
	return req, req.check(smallPaths)
}

// requestPaths name the fields check reads, as a document writes them.
type requestPaths struct{ operation, kind, namespace, user string }

var (
	smallPaths  = requestPaths{"operation", "kind", "namespace", "user"}
	reviewPaths = requestPaths{"request.operation", "request.kind", "request.namespace", "request.userInfo.username"}
)

// check refuses a request Explain cannot say anything true about.
func (r Request) check(p requestPaths) error {
	var missing []string
	if r.Operation == "" {
		missing = append(missing, p.operation)
	}
	if r.Kind.Kind == "" {
		missing = append(missing, p.kind)
	}
	if r.Namespace == "" {
		missing = append(missing, p.namespace)
	}
	if r.UserInfo.Username == "" {
		missing = append(missing, p.user)
	}
	if len(missing) > 0 {
		return &RequestError{Missing: missing}
	}
	switch r.Operation {
	case OpCreate, OpUpdate, OpDelete, "CONNECT":
		return nil
	}
	return &RequestError{Field: p.operation, Value: string(r.Operation), Reason: "want CREATE, UPDATE or DELETE"}
}

// Summary says what the request is, for people: "UPDATE Deployment
// payments/payments-api (scale) by alice". The name is read from the
// objects when the request names none.
func (r Request) Summary() string {
	r = r.normalized()
	s := fmt.Sprintf("%s %s %s/%s", r.Operation, r.Kind.Kind, r.Namespace, r.Name)
	if r.Subresource != "" {
		s += " (" + r.Subresource + ")"
	}
	return s + " by " + r.UserInfo.Username
}

// Verdict is the decision in a word: blocked (refused in enforce mode),
// audited (admitted and recorded in audit mode), exempt (admitted for an
// exempt requester and recorded as such) or admitted (no rule applies).
func (d Decision) Verdict() string {
	switch {
	case d.Blocked:
		return "blocked"
	case d.Audited:
		return "audited"
	case d.Exempt:
		return "exempt"
	}
	return "admitted"
}

// Warned reports whether the requester reads an admission warning from
// the rule that applies on target t: on vap, a request an auditing
// policy records, or an exemption admits, is answered with a warning
// (validationActions [Audit, Warn]); Kyverno's audits answer none
// (emitWarning is off, and kyverno-cel audits with Audit alone).
func (d Decision) Warned(t Target) bool {
	return t == TargetVAP && !d.Blocked && (d.Audited || d.Exempt)
}

// PolicyRef names the policy of the rule that applies as kubectl does:
// namespace/name, or the name alone for a cluster-scoped policy (the
// ValidatingAdmissionPolicy of target vap, the ClusterPolicy or
// ValidatingPolicy of a namespaceSelectors scope). Empty when no rule
// applies.
func (d Decision) PolicyRef(t Target) string {
	if d.Policy == "" || t == TargetVAP || d.ClusterPolicy {
		return d.Policy
	}
	return d.Namespace + "/" + d.Policy
}
