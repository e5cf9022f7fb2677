package violations

// ProbeName is the reserved name of the objects health's active probe
// creates with a server-side dry-run (health.Probes). Kyverno records a
// refused dry-run exactly like a real request, and its events carry no
// requester, so a probe is told by what it touches: FromEvents and
// FromPolicyReports drop records of an object of this name (counted in
// Batch.Probes), and they never reach a feed, a ledger or a report.
const ProbeName = "protectionplans-probe"

// IsProbe reports whether a record's resource name is a probe's.
func IsProbe(resourceName string) bool { return resourceName == ProbeName }
