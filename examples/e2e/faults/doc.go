// Package faults holds the end-to-end fault tests of the operator example
// (examples/operator) against a real kube-apiserver with a real Kyverno
// (examples/e2e/harness), behind the build tag e2e, on one render target
// (kyverno; TestClockWhileStopped also on kyverno-cel) and one control
// plane shared by every test (TestMain):
//
//	cd examples && PROTECTIONPLANS_E2E_ASSETS=$(../hack/e2e/build.sh | tail -1)/bin \
//	    go test -tags e2e ./e2e/faults/ -v
//
// The tests:
//
//   - TestCrash (crash_e2e_test.go): the operator command, run as a
//     subprocess with its fault-injection hook (operator.CrashEnvVar), kills
//     itself with SIGKILL at each point of the pass that ends a plan's
//     window (operator.CrashPoints: before and after the policy writes,
//     the ledger write, the report write); restarted without the hook, it
//     writes the final report exactly once (four files, one ReportWritten
//     event), loses no ledger entry (every violation of the cluster's
//     PolicyViolation events and everything the ledger held before the
//     crash), and leaves no policy behind. Each case logs how long the
//     restarted operator took to converge.
//   - TestAPIErrors (apierrors_e2e_test.go): the operator in this process,
//     its requests going through a transport that answers the first
//     writes of each kind (apply, patch, delete, status) with a 429, a
//     500, a 409 or a 504 instead of sending them: the plan is put in
//     place, repaired and withdrawn all the same, and the passes that
//     took are logged.
//   - TestKyvernoRestart (kyverno_e2e_test.go): Kyverno's admission
//     controller stopped (by its PID, harness.Env.StopKyverno) and started
//     again (StartKyverno) during a window: what the API server does with
//     requests while it is down (Kyverno's webhook fails closed: a scale
//     in scope and one in no plan's scope both fail with "failed calling
//     webhook"), a plan whose window opens meanwhile (active, its policy
//     cannot be applied: PoliciesMissing, retried every tick), and how
//     long until both plans refuse again once it is back.
//   - TestClockWhileStopped (clock_e2e_test.go): the clock at the enforcer
//     (issue 20), on kyverno and kyverno-cel as rows: the operator command
//     with --clock pre-arms an enforce plan's policy, is killed by its PID
//     30 s before the window starts, and writes in scope (dry-run creates
//     every 100 ms around each edge) are refused from the start instant
//     and admitted from the end instant, within a second, with no pass
//     (the phase stays Scheduled); restarted, the operator removes the
//     policy. Each row logs the delays it measured at both edges.
//   - TestEnforcementVerified (enforcement_e2e_test.go): issue 21's
//     EnforcementVerified with Kyverno stopped (fail closed and fail
//     open), a PolicyException, a failurePolicy patched to Ignore (Kyverno
//     restarted with --autoUpdateWebhooks=false), a policy Kyverno could
//     not register (its webhook configuration's updates refused by an
//     admission policy), and the probes' events never read as
//     violations; TestEnforcementVerifiedCEL the part that applies to
//     kyverno-cel (two plans sharing the probe, a policies.kyverno.io
//     PolicyException, Kyverno stopped fail closed, the probes' events);
//     TestEnforcementVerifiedVAP the vap binding changed by hand
//     (validationActions without Deny, pointing elsewhere, deleted) while
//     the operator's repairs are held back.
//   - TestProbeCost (probecost_e2e_test.go): the operator in this process,
//     its requests counted, over three plans freezing creation in one
//     namespace, without the enforcement check, with it, and with the
//     probes: requests and writes a pass, the mean pass time and Kyverno's
//     events a pass. TestProbeEvents: Kyverno's events a pass for the
//     probes with 1, 2 and 4 plans on one namespace, on kyverno and
//     kyverno-cel.
//
// The operator runs with a 2 s tick and one checkpoint per process (the
// longest period reconcile.LoadTiming accepts), so that the violations of a run
// reach its ledger only through the final checkpoint, the one a crash
// interrupts. Each test has its namespaces and plans (namespace deletion
// never finishes without a controller-manager); one operator runs at a
// time. Every operator (the command and the in-process one) runs as the
// operator's ServiceAccount with only the generated RBAC (TestMain
// installs config/crd and config/rbac; harness.Env.KubeconfigAs and
// ConfigAs impersonate it), as the matrix does; each test gives its
// --target (kyverno, or kyverno-cel where it says so), as
// config/overlays/<target> does.
package faults
