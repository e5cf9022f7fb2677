package render

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Kind is a resource kind the catalog knows: how rules name it, where its
// pod spec lives, and whether it has a /scale subresource.
type Kind struct {
	// Group is the API group, "" for the core group.
	Group string `json:"group"`
	// Version is the served version the parent of a /scale request is read
	// at (rules match every version of the group).
	Version string `json:"version"`
	// Kind is the kind, e.g. Deployment.
	Kind string `json:"kind"`
	// Resource is the plural resource name, e.g. deployments.
	Resource string `json:"resource"`
	// Scalable kinds have a /scale subresource.
	Scalable bool `json:"scalable,omitempty"`
	// PodSpec is the dotted path of the pod spec inside the object, or ""
	// when the kind has none.
	PodSpec string `json:"podSpec,omitempty"`
	// ReplicasPath is the replicas field of a served kind whose CRD's
	// /scale declares another path than .spec.replicas (e.g.
	// ".spec.instances"); empty for .spec.replicas.
	ReplicasPath string `json:"replicasPath,omitempty"`
}

// Pod spec paths.
const (
	podSpecPod      = "spec"
	podSpecTemplate = "spec.template.spec"
	podSpecCronJob  = "spec.jobTemplate.spec.template.spec"
)

// The kinds of the catalog. ReplicaSet is deliberately absent: ReplicaSets
// are written by the deployment controller, and Kyverno's default resource
// filters drop them before any policy sees them.
var (
	KindDeployment  = Kind{Group: "apps", Version: "v1", Kind: "Deployment", Resource: "deployments", Scalable: true, PodSpec: podSpecTemplate}
	KindStatefulSet = Kind{Group: "apps", Version: "v1", Kind: "StatefulSet", Resource: "statefulsets", Scalable: true, PodSpec: podSpecTemplate}
	KindDaemonSet   = Kind{Group: "apps", Version: "v1", Kind: "DaemonSet", Resource: "daemonsets", PodSpec: podSpecTemplate}
	KindJob         = Kind{Group: "batch", Version: "v1", Kind: "Job", Resource: "jobs", PodSpec: podSpecTemplate}
	KindCronJob     = Kind{Group: "batch", Version: "v1", Kind: "CronJob", Resource: "cronjobs", PodSpec: podSpecCronJob}
	KindPod         = Kind{Version: "v1", Kind: "Pod", Resource: "pods", PodSpec: podSpecPod}
	KindService     = Kind{Version: "v1", Kind: "Service", Resource: "services"}
	KindConfigMap   = Kind{Version: "v1", Kind: "ConfigMap", Resource: "configmaps"}
	KindSecret      = Kind{Version: "v1", Kind: "Secret", Resource: "secrets"}
	KindPVC         = Kind{Version: "v1", Kind: "PersistentVolumeClaim", Resource: "persistentvolumeclaims"}
	KindSA          = Kind{Version: "v1", Kind: "ServiceAccount", Resource: "serviceaccounts"}
	KindIngress     = Kind{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress", Resource: "ingresses"}
	KindNetPol      = Kind{Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy", Resource: "networkpolicies"}
	KindHPA         = Kind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler", Resource: "horizontalpodautoscalers"}
	KindPDB         = Kind{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget", Resource: "poddisruptionbudgets"}
	KindRole        = Kind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role", Resource: "roles"}
	KindRoleBinding = Kind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding", Resource: "rolebindings"}
)

// knownKinds is the vocabulary of kind parameters, in display order.
var knownKinds = []Kind{
	KindDeployment, KindStatefulSet, KindDaemonSet, KindJob, KindCronJob, KindPod,
	KindService, KindIngress, KindNetPol, KindConfigMap, KindSecret, KindPVC,
	KindSA, KindHPA, KindPDB, KindRole, KindRoleBinding,
}

// KnownKinds returns the kinds a template's kinds parameter may name.
func KnownKinds() []Kind {
	out := make([]Kind, len(knownKinds))
	copy(out, knownKinds)
	return out
}

// kindByName finds a known kind by its name (Deployment).
func kindByName(name string) (Kind, bool) {
	for _, k := range knownKinds {
		if k.Kind == name {
			return k, true
		}
	}
	return Kind{}, false
}

// knownKindNames lists the names of the known kinds, for error messages.
func knownKindNames() string {
	names := make([]string, len(knownKinds))
	for i, k := range knownKinds {
		names[i] = k.Kind
	}
	return strings.Join(names, ", ")
}

// matchesGVK mirrors Kind.selector (kyverno_rules.go): the kind name must
// be equal, and the group too unless the kind is in the core group. The
// version is never compared.
func (k Kind) matchesGVK(gvk schema.GroupVersionKind) bool {
	if gvk.Kind != k.Kind {
		return false
	}
	return k.Group == "" || gvk.Group == k.Group
}
