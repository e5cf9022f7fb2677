package plan

// ConditionAPIWarnings records the warnings the API server returned to
// the writes of the plan's policies (a 299 Warning header: e.g. Kyverno
// 1.19's deprecation of kyverno.io/v1 Policy and ClusterPolicy, on every
// write of one), so that they are read once on the plan instead of once
// per apply in the logs. Status True while the writes warn, with the
// distinct warnings as message; False once a pass wrote the plan's
// policies without a warning (package reconcile decides it).
const ConditionAPIWarnings = "APIWarnings"
