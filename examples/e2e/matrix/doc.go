// Package matrix holds the end-to-end tests of the operator example
// (examples/operator) against a real kube-apiserver with a real Kyverno
// (examples/e2e/harness), behind the build tag e2e:
//
//	cd examples && PROTECTIONPLANS_E2E_ASSETS=$(../hack/e2e/build.sh | tail -1)/bin \
//	    go test -tags e2e -p 1 ./e2e/matrix/ -v
//
// One control plane, one Kyverno and one operator (in-process, ticking every
// 2 s) serve every test of the package (TestMain). What they prove:
//
//   - the matrix (matrix_e2e_test.go): every template of the catalog, in
//     enforce and audit, namespaces and applications scope, with kind and
//     resource exclusions, through every door (kubectl scale, the /scale
//     subresource, spec.replicas, kubectl set image on every workload kind and
//     Pods incl. init containers, kubectl debug, ConfigMap and Secret edits and
//     deletes, PVC create, delete and resize, rollout restart, create,
//     delete, labels), each answer of Kyverno compared with render.Explain
//     policy by policy; audited changes found in the plans' ledgers;
//   - the lifecycle (lifecycle_e2e_test.go, health_e2e_test.go): window
//     edges, cancel, approval, a failed plan retried, drift repaired within
//     a tick, final reports, leader election; no write by the operator in
//     the steady state (TestMatrix counts them while the matrix runs);
//   - the command itself (command_e2e_test.go), the metrics and loopback-only
//     listeners (metrics_e2e_test.go);
//   - a known library bug and its proposed fix (known_bug_e2e_test.go).
//
// Files: main_e2e_test.go starts everything and counts the operator's
// writes; objects_ and doors_ define the fixtures and the doors; answers_
// reads Kyverno's refusals and events; results_ prints the table, checks
// the ledgers and records fixtures (PROTECTIONPLANS_RECORD_FIXTURES=1).
// The package has no code outside its tests; fixtures_test.go (no tag)
// checks the fixtures it records for package violations.
package matrix
