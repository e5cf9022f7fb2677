// Package gitops holds the tests of what GitOps engines read from a plan's
// status: kstatus (sigs.k8s.io/cli-utils, used by Flux and kubectl-based
// pipelines) computes each phase's status as package plan documents (see
// plan.ConditionReconciling), and the Argo CD health check shipped in
// config/argocd/health.lua returns the health its README documents. The
// plans are built by the library's lifecycle functions, as the operator
// builds them, and read as unstructured objects, as the engines read them.
package gitops
