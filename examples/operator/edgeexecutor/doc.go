// Package edgeexecutor holds the RBAC markers of the edge executor: the
// service account the operator impersonates (--edge-executor) to carry
// out plans' edge actions. It has no code. controller-gen writes the
// markers to config/rbac/edge-executor/role.yaml, a ClusterRole
// protectionplans-edge-executor to bind to that account;
// TestRBACIsFresh fails when the file differs from what they generate.
//
// The executor only writes, and only the fields the actions change: the
// operator reads the objects itself. Every write is a server-side apply
// (patch), never a create: an object gone between the read and the write
// is refused, not recreated. Least privilege: one line per action.
//
//go:generate go run sigs.k8s.io/controller-tools/cmd/controller-gen@v0.21.0 rbac:roleName=protectionplans-edge-executor paths=./ output:rbac:artifacts:config=../../../config/rbac/edge-executor
package edgeexecutor

// suspend-cronjobs: spec.suspend.
// +kubebuilder:rbac:groups=batch,resources=cronjobs,verbs=patch

// scale-to: spec.replicas through /scale, never the workload itself.
// +kubebuilder:rbac:groups=apps,resources=deployments/scale;statefulsets/scale,verbs=patch

// pause-argocd-sync: spec.syncPolicy.automated.enabled.
// +kubebuilder:rbac:groups=argoproj.io,resources=applications,verbs=patch

// suspend-flux: spec.suspend.
// +kubebuilder:rbac:groups=kustomize.toolkit.fluxcd.io,resources=kustomizations,verbs=patch
// +kubebuilder:rbac:groups=helm.toolkit.fluxcd.io,resources=helmreleases,verbs=patch
