package operator

import (
	"fmt"
	"os"
)

// Fault injection, for the crash tests only (examples/e2e/faults): with
// PROTECTIONPLANS_CRASH_AT=<point> in its environment, the operator
// command kills itself with SIGKILL the first time a pass reaches that
// point, as an OOM kill or a node failure would, so that the tests can
// restart it and check that it picks up where it died. Never set it in
// production.
//
// Every point is in the pass that ends a plan's run (the one that writes
// its final report), in this order: the policies are withdrawn, the status
// is written, the ledger is brought up to date, the report is written, and
// the operator records that it has seen the end (observed.json).
const CrashEnvVar = "PROTECTIONPLANS_CRASH_AT"

// CrashPoint is where a pass kills the process (CrashEnvVar).
type CrashPoint string

// The crash points, in the order a final pass reaches them.
const (
	// CrashBeforePolicyWrites: the run's end is decided, nothing written.
	CrashBeforePolicyWrites CrashPoint = "before-policy-writes"
	// CrashAfterPolicyWrites: the policies are withdrawn, the plan's status
	// still says active.
	CrashAfterPolicyWrites CrashPoint = "after-policy-writes"
	// CrashBeforeLedgerWrite: the status says the run ended; the ledger
	// lacks the violations since the last checkpoint.
	CrashBeforeLedgerWrite CrashPoint = "before-ledger-write"
	// CrashAfterLedgerWrite: the ledger is final; no report yet.
	CrashAfterLedgerWrite CrashPoint = "after-ledger-write"
	// CrashBeforeReportWrite: the report is built, not written.
	CrashBeforeReportWrite CrashPoint = "before-report-write"
	// CrashAfterReportWrite: the report is written; observed.json does not
	// say so yet.
	CrashAfterReportWrite CrashPoint = "after-report-write"
)

// CrashEdgeAfterJournal: a start's (or a restore's) journal is
// persisted, none of its patches sent. It is not in CrashPoints (not in a
// final pass): the edge actions' fault tests name it.
const CrashEdgeAfterJournal CrashPoint = "edge-after-journal"

// CrashPoints lists every crash point, in the order a final pass reaches
// them.
func CrashPoints() []CrashPoint {
	return []CrashPoint{CrashBeforePolicyWrites, CrashAfterPolicyWrites, CrashBeforeLedgerWrite,
		CrashAfterLedgerWrite, CrashBeforeReportWrite, CrashAfterReportWrite}
}

// ParseCrashPoint reads the value of CrashEnvVar; "" is no crash point.
func ParseCrashPoint(s string) (CrashPoint, error) {
	for _, p := range CrashPoints() {
		if string(p) == s {
			return p, nil
		}
	}
	if s == "" {
		return "", nil
	}
	if s == string(CrashEdgeAfterJournal) {
		return CrashEdgeAfterJournal, nil
	}
	return "", fmt.Errorf("%s=%q: want one of %v", CrashEnvVar, s, CrashPoints())
}

// crashAt kills the process at point p when Config.CrashAt names it.
// With Config.OnCrash (or a unit test's hook) it calls that instead, and
// reports true: the caller stops its pass there, as the process would
// have.
func (r *reconciler) crashAt(p CrashPoint) bool {
	if r.cfg.CrashAt == "" || r.cfg.CrashAt != p {
		return false
	}
	r.log.Info("fault injection: killing the process", "point", p)
	if r.crash != nil {
		r.crash(p)
		return true
	}
	self, err := os.FindProcess(os.Getpid())
	if err == nil {
		err = self.Kill() // SIGKILL: no deferred function, no flush, as in a real crash
	}
	if err != nil {
		panic(fmt.Sprintf("fault injection at %s: %v", p, err))
	}
	select {} // the signal is on its way
}
