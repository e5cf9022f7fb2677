// Package kyverno_test proves the kyverno.io/v1 Policies that
// github.com/telark/protectionplans/render writes against Kyverno's own
// code, without a cluster. It is a separate module so that the library
// never depends on github.com/kyverno/kyverno (~1,700 packages); only this
// module compiles it. The first build takes several minutes.
//
//   - TestGoldenPolicies decodes every policy of render/testdata/*.golden
//     strictly (an unknown or duplicate field fails) into Kyverno's real
//     kyvernov1.Policy, checks that encoding it again loses nothing, and
//     runs Kyverno's admission-time policy validation on it
//     (pkg/validation/policy.Validate in mock mode: the checks its webhook
//     runs when a policy is created, minus the discovery lookups of kinds,
//     which need an API server).
//   - TestEngineAgreesWithExplain replays render's explain corpus
//     (render/testdata/explain_corpus.json): for each case it renders the
//     plan, runs Kyverno's engine on the admission request with every
//     policy of the request's namespace, and checks that Kyverno refuses,
//     records or admits exactly as render.Explain says. The /scale parent
//     lookup (an apiCall) is served from the case's parent labels; the
//     webhook layer (which requests reach Kyverno at all, the resource
//     filters of Kyverno's ConfigMap) is not exercised here: the end-to-end
//     tests against a live cluster cover it.
//   - The kyverno-cel and vap targets (cel_test.go, vap_test.go): every
//     golden decoded strictly into github.com/kyverno/api's and
//     k8s.io/api's types and compiled (Kyverno's policy validation; the API
//     server's CEL compiler for validating admission policies), and the
//     explain corpus replayed through Kyverno's CEL engine and through the
//     API server's ValidatingAdmissionPolicy matcher and validator
//     (TestCELEnginesAgreeWithExplain), and on the compact layout, with
//     the kyverno target too (TestCompactLayoutAgreesWithExplain).
//   - TestLive (build tag e2e, live_*_e2e_test.go): the three targets on a
//     real API server with a real Kyverno.
package kyverno_test
