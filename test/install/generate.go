// Package install tests the Helm chart in charts/protectionplans with
// helm's Go SDK: lint, and its output for several sets of values against
// golden files (-update rewrites them). It is a module of its own so
// that the library's importers never compile helm.
package install

// The chart's copies of config/: Helm charts cannot read outside their
// directory. TestChartCopiesAreInSync fails when they differ.
//
//go:generate cp ../../config/crd/telark.io_protectionplans.yaml ../../charts/protectionplans/crds/telark.io_protectionplans.yaml
//go:generate cp ../../config/rbac/operator/role.yaml ../../charts/protectionplans/files/operator-role.yaml
//go:generate cp ../../config/rbac/edge-executor/role.yaml ../../charts/protectionplans/files/edge-executor-role.yaml
//go:generate cp ../../config/rbac/server/role.yaml ../../charts/protectionplans/files/server-role.yaml
//go:generate cp ../../config/admission/created-by.yaml ../../charts/protectionplans/files/created-by.yaml
//go:generate cp ../../config/admission/grants.yaml ../../charts/protectionplans/files/grants.yaml
//go:generate cp ../../config/admission/policies.yaml ../../charts/protectionplans/files/policies.yaml
//go:generate cp ../../config/prometheus/rules.yaml ../../charts/protectionplans/files/rules.yaml
