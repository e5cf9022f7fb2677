//go:build e2e

package faults

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/examples/internal/store"
	"github.com/telark/protectionplans/examples/operator/operator"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
	"github.com/telark/protectionplans/window"
)

// crashWindow is how long the window of a crash test's plan lasts: time
// for the operator to start, put the policy in place, and for an audited
// scale to reach Kyverno.
const crashWindow = 8 * time.Second

// TestCrash kills the operator with SIGKILL at each point of the pass that
// ends a window (operator.CrashPoints), restarts it without the hook, and
// checks that the final report is written exactly once, that no ledger
// entry is lost and that nothing is left in the cluster.
func TestCrash(t *testing.T) {
	for _, point := range operator.CrashPoints() {
		t.Run("killed "+string(point), func(t *testing.T) { testCrash(t, point, false) })
	}
	t.Run("killed after-ledger-write, the ledger truncated while it was down", func(t *testing.T) {
		testCrash(t, operator.CrashAfterLedgerWrite, true)
	})
}

// testCrash runs a plan's window with the operator killed at point, then
// restarts it; with truncate, the ledger is cut in half while it is down.
func testCrash(t *testing.T, point operator.CrashPoint, truncate bool) {
	id := "crash-" + string(point)
	if truncate {
		id = "crash-truncated-ledger"
	}
	ns := id
	policy := id + "-scaling"
	dir := t.TempDir()
	reportsDir := filepath.Join(dir, "reports")
	logPath := filepath.Join(dir, "operator.log")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("operator log: %s\n%s", logPath, tailFile(logPath, 60))
		}
	})
	createNamespace(t, ns)

	start := time.Now().Truncate(time.Second)
	end := start.Add(crashWindow)
	p := newPlan(id, ns, plan.ModeAudit, window.Spec{Type: window.TimeRange,
		StartAt: &metav1.Time{Time: start}, EndAt: &metav1.Time{Time: end}})
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	first := startCommand(t, reportsDir, logPath, operator.CrashEnvVar+"="+string(point))

	// Inside the window: audited scales until Kyverno records one.
	waitFor(t, crashWindow, "the policy in place", func() (string, bool) {
		return "", len(planPolicies(t, id)) == 1
	})
	replicas := int32(1)
	audited := waitFor(t, time.Until(end)-time.Second, "an audited scale recorded by Kyverno", func() (string, bool) {
		replicas++
		if err := scale(t.Context(), ns, replicas, false); err != nil {
			t.Fatalf("an audited scale was refused: %v", err)
		}
		time.Sleep(300 * time.Millisecond)
		n := len(violationEvents(t, ns))
		return "no PolicyViolation event yet", n > 0
	})
	t.Logf("inside the window: an audited scale recorded %s after the policy was in place", audited.Round(time.Millisecond))

	// The final pass kills the process.
	err, ok := first.exited(time.Until(end) + 30*time.Second)
	if !ok {
		t.Fatalf("the operator did not die at %s within 30 s of the window's end", point)
	}
	diedAt := time.Now()
	if !first.killedBySIGKILL() {
		t.Fatalf("the operator exited with %v, want killed by SIGKILL at %s", err, point)
	}
	if !strings.Contains(first.logTail(20), `"fault injection: killing the process"`) {
		t.Errorf("the log does not say where the process died:\n%s", first.logTail(20))
	}
	before := ledgerKeys(t, reportsDir, id)
	reportsBefore := len(reportFiles(t, reportsDir, id))
	t.Logf("killed by SIGKILL at %s, %s after the window's end: %d ledger entries, %d report files, %d policies left",
		point, diedAt.Sub(end).Round(time.Millisecond), len(before), reportsBefore, len(planPolicies(t, id)))
	if truncate {
		path := filepath.Join(reportsDir, id, store.LedgerFile)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data[:len(data)/2], 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := violations.DecodeLedger(data[:len(data)/2]); !errors.As(err, new(*violations.DecodeError)) {
			t.Fatalf("the truncated ledger decodes with %v, want a *violations.DecodeError", err)
		}
		t.Logf("ledger truncated from %d to %d bytes", len(data), len(data)/2)
	}

	// Restarted without the hook.
	second := startCommand(t, reportsDir, logPath)
	converged := waitFor(t, time.Minute, "the restarted operator to finish the run", func() (string, bool) {
		switch files := reportFiles(t, reportsDir, id); {
		case len(files) != len(report.Formats()):
			return "report files: " + strings.Join(files, ", "), false
		case len(planPolicies(t, id)) > 0:
			return "policies left", false
		case getPlan(t, id).Status.Phase != plan.PhaseTerminated:
			return "phase " + string(getPlan(t, id).Status.Phase), false
		case observedPhase(t, reportsDir, id) != plan.PhaseTerminated:
			return "observed.json: " + string(observedPhase(t, reportsDir, id)), false
		case planEvents(t, id, reconcile.EventReportWritten) != 1:
			return "ReportWritten events: " + strconv.Itoa(planEvents(t, id, reconcile.EventReportWritten)), false
		case truncate && planEvents(t, id, operator.EventFileRecovered) != 1:
			return "FileRecovered events: " + strconv.Itoa(planEvents(t, id, operator.EventFileRecovered)), false
		}
		return "", true
	})
	t.Logf("restarted: the run finished %s after the restart (%s after the window's end): report written, nothing left, status terminated",
		converged.Round(time.Millisecond), time.Since(end).Round(time.Millisecond))

	// Exactly once, whatever the next pass does.
	time.Sleep(tick + tick/4)
	if files := reportFiles(t, reportsDir, id); len(files) != len(report.Formats()) {
		t.Errorf("final report files %q, want one per format", files)
	}
	if n := planEvents(t, id, reconcile.EventReportWritten); n != 1 {
		t.Errorf("%d ReportWritten events, want 1", n)
	}
	second.stop(t)

	// No ledger entry lost: what the ledger held before the crash, and every
	// violation the cluster's events hold.
	after := ledgerKeys(t, reportsDir, id)
	for _, k := range before {
		if !slices.Contains(after, k) {
			t.Errorf("ledger entry %s, there before the crash, is gone", k)
		}
	}
	idx := violations.NewPolicyIndex(violations.IndexEntry{Namespace: ns, Name: policy, Plan: id, Template: "scaling"})
	batch, _ := violations.FromEvents(idx, violationEvents(t, ns))
	var want []string
	for _, v := range batch.Violations {
		if v.Result == violations.ResultFail && !slices.Contains(want, v.Key) {
			want = append(want, v.Key)
		}
	}
	for _, k := range want {
		if !slices.Contains(after, k) {
			t.Errorf("the violation %s of the cluster's events is not in the ledger", k)
		}
	}
	rep := readReport(t, reportsDir, id)
	if len(want) == 0 || rep.Summary.Violations != len(after) {
		t.Errorf("%d violations in the events, %d in the ledger, %d in the report; want them all, at least one", len(want), len(after), rep.Summary.Violations)
	}
	t.Logf("ledger: %d entries before the crash, %d after, %d violations in the events; the report counts %d",
		len(before), len(after), len(want), rep.Summary.Violations)
}

// violationEvents lists the PolicyViolation events of namespace ns.
func violationEvents(t *testing.T, ns string) []corev1.Event {
	t.Helper()
	var list corev1.EventList
	if err := c.List(t.Context(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var out []corev1.Event
	for _, e := range list.Items {
		if e.Reason == violations.ReasonPolicyViolation {
			out = append(out, e)
		}
	}
	return out
}

// planEvents counts the events of a reason the operator recorded on plan
// id (events.k8s.io, namespace default; a repeated event is one object
// with a series).
func planEvents(t *testing.T, id, reason string) int {
	t.Helper()
	var list eventsv1.EventList
	if err := c.List(t.Context(), &list, client.InNamespace(metav1.NamespaceDefault)); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range list.Items {
		if e.Regarding.Name != id || e.Reason != reason {
			continue
		}
		if e.Series != nil {
			n += int(e.Series.Count)
		} else {
			n++
		}
	}
	return n
}

// reportFiles lists the final report files of plan id.
func reportFiles(t *testing.T, reportsDir, id string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(reportsDir, id, id+"-"+string(report.TriggerEnd)+"-*"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// readReport reads the JSON final report of plan id.
func readReport(t *testing.T, reportsDir, id string) report.Report {
	t.Helper()
	var r report.Report
	for _, f := range reportFiles(t, reportsDir, id) {
		if filepath.Ext(f) == ".json" {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &r); err != nil {
				t.Fatal(err)
			}
		}
	}
	return r
}

// ledgerKeys reads the keys of plan id's ledger (none when it has none).
func ledgerKeys(t *testing.T, reportsDir, id string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(reportsDir, id, store.LedgerFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	l, err := violations.DecodeLedger(data)
	if err != nil {
		t.Fatalf("the ledger: %v", err)
	}
	var keys []string
	for _, v := range l.Violations {
		keys = append(keys, v.Key)
	}
	return keys
}

// observedPhase reads the phase the operator recorded in observed.json.
func observedPhase(t *testing.T, reportsDir, id string) plan.Phase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(reportsDir, id, store.ObservedFile))
	if err != nil {
		return ""
	}
	var o struct {
		Phase plan.Phase `json:"phase"`
	}
	_ = json.Unmarshal(data, &o)
	return o.Phase
}
