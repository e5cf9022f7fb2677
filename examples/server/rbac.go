package main

// The API server's permissions, as RBAC markers: controller-gen writes
// them to config/rbac/server/role.yaml (a ClusterRole
// protectionplans-server and, for the categories ConfigMap, a Role in the
// release namespace; kustomize's namespace replaces the one below).
// TestRBACIsFresh fails when the file differs from what the markers
// generate. The server never writes a policy: the operator does.
//
//go:generate go run sigs.k8s.io/controller-tools/cmd/controller-gen@v0.21.0 rbac:roleName=protectionplans-server paths=./ output:rbac:artifacts:config=../../config/rbac/server

// Plans: the API's create, list, get, update (edit), delete, and the
// status writes of approvals, grants and cancellations.
// +kubebuilder:rbac:groups=telark.io,resources=protectionplans,verbs=get;list;create;update;delete
// +kubebuilder:rbac:groups=telark.io,resources=protectionplans/status,verbs=update

// The categories ConfigMap, edited through the API, in the release
// namespace only.
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=create;update,namespace=telark-system

// What validation, health refresh and the violations feed read
// (kube.Reader): namespaces (metadata only), the categories and
// excluded-namespaces ConfigMaps, the policies of the target (list only),
// Kyverno's PolicyViolation events and PolicyReports.
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=list
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get
// +kubebuilder:rbac:groups="",resources=events,verbs=list
// +kubebuilder:rbac:groups=wgpolicyk8s.io,resources=policyreports,verbs=list
// +kubebuilder:rbac:groups=kyverno.io,resources=policies,verbs=list
// +kubebuilder:rbac:groups=policies.kyverno.io,resources=namespacedvalidatingpolicies,verbs=list
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingadmissionpolicies;validatingadmissionpolicybindings,verbs=list
// The cluster-wide policies of namespaceSelectors plans, and the CRDs
// for the custom kinds plans may freeze (plan.ServedKinds).
// +kubebuilder:rbac:groups=kyverno.io,resources=clusterpolicies,verbs=list
// +kubebuilder:rbac:groups=policies.kyverno.io,resources=validatingpolicies,verbs=list
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=list

// Applications, as the operator resolves them (plan.InstanceMemberKinds,
// metadata only; list on Secrets for the reason given in
// operator/operator/rbac.go).
// +kubebuilder:rbac:groups=apps,resources=deployments;statefulsets;daemonsets,verbs=list
// +kubebuilder:rbac:groups=batch,resources=cronjobs;jobs,verbs=list
// +kubebuilder:rbac:groups="",resources=services;configmaps;secrets;persistentvolumeclaims,verbs=list
