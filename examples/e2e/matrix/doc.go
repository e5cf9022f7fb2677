// Package matrix holds the end-to-end tests of the operator example
// (examples/operator) against a real kube-apiserver with a real Kyverno
// (examples/e2e/harness), behind the build tag e2e, for each render target:
//
//	cd examples && PROTECTIONPLANS_E2E_ASSETS=$(../hack/e2e/build.sh | tail -1)/bin \
//	    go test -tags e2e -p 1 ./e2e/matrix/ -v
//
// One control plane and one Kyverno serve every test of the package
// (TestMain). TestKyverno, TestKyvernoCEL and TestVAP run one after the
// other (targets_e2e_test.go): each starts the operator in-process
// (ticking every 2 s), runs the subtests below on objects of its
// own (namespaces, plans and applications prefixed "", "cel-", "vap-"),
// then deletes its plans, waits until the operator swept their policies,
// and stops the operator. One operator at a time: a plan carries no
// target, so operators of two targets would fight over the same plans.
//
// The operator runs as config/default deploys it: TestMain installs
// config/crd and config/rbac (harness.InstallGenerated), and the operator
// (in-process, and the command) is its ServiceAccount, impersonated, so
// it has only the roles generated from its +kubebuilder:rbac markers; a
// permission the suite needs and the markers lack fails here. The target
// is chosen as a user chooses it: TestKyvernoCEL gives no --target (auto
// picks kyverno-cel where Kyverno 1.19 runs, and the test checks it did);
// TestKyverno and TestVAP pass --target, as config/overlays/<target>
// does, since a plan carries no target and auto never picks them here.
//
//   - lifecycle: window edges, cancel, approval, a failure retried, drift
//     repaired within a tick (a policy deleted, its failure action flipped
//     — for vap the binding's validationActions —, a rule edited under an
//     intact hash, a stray object), leader election (kyverno run only);
//   - matrix: every template of the catalog, in enforce and audit,
//     namespaces and applications scope (every template, scaling and
//     all-writes included), with kind and resource exclusions (a
//     Deployment and its /scale), through every door (kubectl scale, the
//     /scale subresource, spec.replicas, kubectl set image on every
//     workload kind and Pods incl. init containers, kubectl debug, ConfigMap
//     and Secret edits and deletes, PVC create, delete and resize, rollout
//     restart, create, delete, labels, and the scope guard's doors: an
//     application's label removed, or changed to another application's),
//     three answers compared per template: the intended table, render.Explain
//     for the target, and the live admission chain. How the live answer is
//     read, per target: kyverno, Kyverno's refusal (one webhook, every
//     refusing policy listed) and its PolicyViolation events for audits;
//     kyverno-cel, Kyverno's events for both (every policy has a webhook of
//     its own and the API server's refusal quotes the first that denied,
//     which must be one of them); vap, the API server's
//     apiserver_validating_admission_policy_check_total counters for
//     refusals (its refusal quotes the first denying policy only) and the
//     warnings the request returned for audits (the kubectl "Warning:"
//     lines, or the client's warning handler), which the counters must
//     match. Then the violations in the plans' ledgers and feed with
//     Explain's messages (under vap: none, and the test checks that no
//     event, report or ledger entry exists), and no write by the operator
//     in the steady state;
//   - metrics (every counter moved during the run), loopback-only
//     listeners, and the operator command (as its ServiceAccount, the
//     run's --target or none) as a standby replica.
//
// TestAdmissionLatency (latency_e2e_test.go) measures what the policies
// of each target cost at admission, without an operator: interleaved
// server dry-run PATCHes in and out of scope, against a baseline no
// webhook reaches, next to one hand-written policy per target doing the
// same checks (testdata/handwritten). 200 requests per cell by default;
// PROTECTIONPLANS_E2E_LATENCY=1 runs 1,200; the compact layout is measured
// beside the per-template one.
//
// TestCompactLayout (compact_e2e_test.go), without an operator either,
// runs every door of three enforce scopes (a namespace, an application
// beside another, an application with exclusions) twice per target, in
// twin namespaces: against the per-template policies and against the
// compact layout (render.Input.Compact). Both must refuse or admit alike,
// as Explain says, and a compact refusal must quote the message of the
// first template that applies.
//
// TestPlanTestFiles (plantests_e2e_test.go), without an operator, runs
// the test files of examples/tests (protectctl test's and
// policytest.TestFiles' suite) on the real admission chain of each
// target: each case's plans rendered at its instant and applied (cases
// that share their policies share one deployment), the object it acts on
// put in place by an exempt kube-system service account, and the request
// sent as its requester (impersonated) as a server dry run: blocked must
// be a refusal quoting the deciding plan's message, the other decisions
// admissions, and on vap audited and exempt requests must answer the
// plan's warning and admitted ones none.
//
// TestEdgeActions (edge_e2e_test.go) carries out a plan's edge actions
// (issue 24) with an operator of its own per target, on an injected clock
// and impersonating the edge executor: Argo CD's Application and Flux's
// Kustomization CRDs installed from their released files
// (testdata/edge/README.md), CronJobs suspended and restored (an already
// suspended one untouched), the Application's automated sync and the
// Kustomization paused and restored, a Deployment scaled to 0 through
// /scale and back; each action's write admitted as the executor naming
// the plan, refused as the admin or naming another plan; on kyverno-cel
// the first operator dies between the journal and the patches
// (Config.OnCrash) and a second finishes the start, capturing nothing
// again.
//
// Files: main_e2e_test.go starts the harness and the operators and counts
// their writes; targets_ names the targets and runs them; objects_ and
// doors_ define the fixtures and the doors; answers_ reads refusals,
// warnings, counters and events; results_ prints the tables, checks the
// ledgers and records fixtures (PROTECTIONPLANS_RECORD_FIXTURES=1 records
// the kyverno-cel run, =kyverno the kyverno run, =all both). The package
// has no code outside its tests; fixtures_test.go (no tag) checks the
// fixtures it records for package violations.
package matrix
