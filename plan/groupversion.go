// Deepcopy functions are generated only for the API types: types.go marks
// each with +kubebuilder:object:generate=true, so that the package's
// interfaces, options and errors need no markers.
//
// +kubebuilder:object:generate=false
// +groupName=telark.io
// +versionName=v1alpha1

package plan

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const (
	// Group is the API group of ProtectionPlan.
	Group = "telark.io"
	// Version is the served and stored version.
	Version = "v1alpha1"
	// Kind is the kind of a plan object.
	Kind = "ProtectionPlan"
	// Resource is the plural resource name.
	Resource = "protectionplans"
)

var (
	// GroupVersion is the group and version of the API.
	GroupVersion = schema.GroupVersion{Group: Group, Version: Version}
	// GroupVersionResource names the plan resource for dynamic clients.
	GroupVersionResource = GroupVersion.WithResource(Resource)
)

// AddToScheme registers ProtectionPlan and ProtectionPlanList. It has the
// shape of runtime.SchemeBuilder.AddToScheme so controller-runtime users can
// pass it to their scheme builders; plan itself imports no client library.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &ProtectionPlan{}, &ProtectionPlanList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
