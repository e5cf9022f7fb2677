package render

// A small typed mirror of the part of kyverno.io/v1 Policy the kyverno
// target writes, so that the library does not import Kyverno's module
// (~1,700 packages). Field names and JSON tags are Kyverno's; the test
// module test/kyverno decodes every golden policy strictly into Kyverno's
// own types to prove that this mirror writes nothing Kyverno does not know.
//
// Fields the Policy CRD defaults (admission, background, emitWarning,
// validationFailureAction, rules[].skipBackgroundRequests,
// validate.allowExistingViolations, context[].apiCall.method) carry no
// omitempty: they are always written, so that the API server adds nothing
// to a spec and a live policy reads back equal to its render.

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

const (
	kyvernoAPIVersion  = "kyverno.io/v1"
	kyvernoKind        = "Policy"
	kyvernoClusterKind = "ClusterPolicy"
)

type kySpec struct {
	Admission               bool     `json:"admission"`
	Background              bool     `json:"background"`
	EmitWarning             bool     `json:"emitWarning"`
	ValidationFailureAction string   `json:"validationFailureAction"`
	Rules                   []kyRule `json:"rules"`
}

type kyRule struct {
	Name                   string           `json:"name"`
	Context                []kyContextEntry `json:"context,omitempty"`
	Match                  kyMatch          `json:"match"`
	Exclude                *kyMatch         `json:"exclude,omitempty"`
	Preconditions          *kyConditions    `json:"preconditions,omitempty"`
	SkipBackgroundRequests bool             `json:"skipBackgroundRequests"`
	Validate               kyValidate       `json:"validate"`
}

type kyMatch struct {
	Any []kyFilter `json:"any,omitempty"`
	All []kyFilter `json:"all,omitempty"`
}

type kyFilter struct {
	Resources *kyResources `json:"resources,omitempty"`
	Subjects  []kySubject  `json:"subjects,omitempty"`
}

type kyResources struct {
	Kinds             []string              `json:"kinds"`
	Names             []string              `json:"names,omitempty"`
	Operations        []string              `json:"operations,omitempty"`
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`
}

type kySubject struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

type kyContextEntry struct {
	Name    string     `json:"name"`
	APICall *kyAPICall `json:"apiCall"`
}

type kyAPICall struct {
	Method   string `json:"method"`
	URLPath  string `json:"urlPath"`
	JMESPath string `json:"jmesPath"`
}

type kyConditions struct {
	All []kyCondition `json:"all"`
}

type kyCondition struct {
	Key      string `json:"key"`
	Operator string `json:"operator"`
	Value    any    `json:"value"`
}

type kyValidate struct {
	AllowExistingViolations bool   `json:"allowExistingViolations"`
	Message                 string `json:"message"`
	Deny                    kyDeny `json:"deny"`
}

type kyDeny struct {
	Conditions kyConditions `json:"conditions"`
}
