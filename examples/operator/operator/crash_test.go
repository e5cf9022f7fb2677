package operator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/examples/internal/store"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
)

// crashed is what a fixture's crash hook panics with: the process died at
// that point.
type crashed CrashPoint

// crashingPass runs a pass with the crash hook armed at point, and reports
// whether the pass reached it (the process "died" there).
func (f *fixture) crashingPass(point CrashPoint) (died bool) {
	f.t.Helper()
	f.r.cfg.CrashAt = point
	f.r.crash = func(p CrashPoint) { panic(crashed(p)) }
	defer func() {
		f.r.cfg.CrashAt, f.r.crash = "", nil
		if v := recover(); v != nil {
			if v != crashed(point) {
				panic(v)
			}
			died = true
		}
	}()
	f.r.reconcileAll(context.Background())
	return false
}

// restart replaces the fixture's reconciler by a new one, as a new process
// would start: same cluster, same reports directory, nothing in memory.
func (f *fixture) restart() {
	f.r = newReconciler(f.r.cfg, f.c, f.c, f.recorder)
}

// countEvents counts the recorded events that start with prefix.
func countEvents(evs []string, prefix string) int {
	n := 0
	for _, e := range evs {
		if strings.HasPrefix(e, prefix) {
			n++
		}
	}
	return n
}

func TestCrash_AFinalPassKilledAnywhereReportsOnceAndLosesNoViolation(t *testing.T) {
	for _, point := range CrashPoints() {
		t.Run("killed "+string(point)+", restarted", func(t *testing.T) {
			f := newFixture(t, []client.Object{namespace("shop"), windowPlan()})
			f.pass()
			// A checkpoint 5 s before the end, then an audited request that
			// only the final checkpoint reads.
			f.clock.SetTime(faultWindow.end.Add(-5 * time.Second))
			f.pass()
			for _, ev := range kyvernoAuditEvents("shop", "freeze-scaling", "replicas", "scaling is frozen", f.clock.Now().Add(time.Second)) {
				if err := f.c.Create(context.Background(), ev); err != nil {
					t.Fatal(err)
				}
			}
			f.drainEvents()

			f.clock.SetTime(faultWindow.end)
			if !f.crashingPass(point) {
				t.Fatalf("the final pass did not reach %s", point)
			}
			f.restart()
			f.clock.Step(2 * time.Second) // a restart takes time
			c, why := f.converge(5, f.ended)
			if c.status > 5 {
				t.Fatalf("not converged after the restart: %s", why)
			}
			t.Logf("after the restart: the world right after %d passes, the status after %d, %s of wall time",
				c.world, c.status, c.wall.Round(time.Microsecond))
			if c.world != 1 {
				t.Errorf("the world was right %d passes after the restart, want 1", c.world)
			}

			// Exactly once: one report in every format, one event, whatever
			// the passes afterwards do.
			for range 2 {
				f.tick(2 * time.Second)
			}
			if files := f.reportFiles(); len(files) != len(report.Formats()) {
				t.Errorf("final report files %q, want one per format", files)
			}
			if n := countEvents(f.drainEvents(), "Normal "+reconcile.EventReportWritten); n != 1 {
				t.Errorf("%d ReportWritten events, want 1", n)
			}
			l, err := f.r.store.LoadLedger("freeze")
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Violations) != 1 {
				t.Errorf("the ledger holds %d violations, want the one audited before the end", len(l.Violations))
			}
			if r := f.finalReport(); r.Summary.Violations != 1 || len(r.Policies) != 2 {
				t.Errorf("the final report has %d violations and %d policies, want 1 and 2", r.Summary.Violations, len(r.Policies))
			}
		})
	}
}

func TestCrash_AReportWrittenInPartIsRewrittenUnderItsID(t *testing.T) {
	f := newFixture(t, []client.Object{namespace("shop"), windowPlan()})
	f.pass()
	f.clock.SetTime(faultWindow.end)
	if !f.crashingPass(CrashAfterReportWrite) {
		t.Fatal("no crash")
	}
	// As if the process had died after the first two formats.
	files := f.reportFiles()
	slices.Sort(files)
	for _, p := range files {
		if ext := filepath.Ext(p); ext == ".csv" || ext == ".json" {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	f.restart()
	f.tick(2 * time.Second)
	if again := f.reportFiles(); !slices.Equal(sorted(again), files) {
		t.Errorf("report files after the restart %q, want %q (the same ID)", again, files)
	}
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

// checkpointViolation creates the events of one audited request at the
// clock's time and runs a pass at the next checkpoint.
func (f *fixture) checkpointViolation(rule string) {
	f.t.Helper()
	for _, ev := range kyvernoAuditEvents("shop", "freeze-scaling", rule, "scaling is frozen", f.clock.Now()) {
		ev.SetName(ev.GetName() + "." + rule)
		if err := f.c.Create(context.Background(), ev); err != nil {
			f.t.Fatal(err)
		}
	}
	f.tick(10 * time.Second)
}

func TestLedger_TruncatedMidFileIsRecoveredFromTheLastGoodCopy(t *testing.T) {
	tests := []struct {
		name string
		// expire deletes the events of the second violation before the
		// recovery: the cluster no longer holds them.
		expire bool
		want   int
	}{
		{name: "the events still in the cluster are read again: nothing is lost", want: 2},
		{name: "events expired since: only what the last good copy lacked is lost", expire: true, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, []client.Object{namespace("shop"), kubectlPlan("freeze", plan.ModeAudit, []string{"shop"}, "scaling")})
			f.pass()
			f.checkpointViolation("first")
			f.checkpointViolation("second")
			path := filepath.Join(f.dir, "freeze", store.LedgerFile)
			good, err := os.ReadFile(path + store.BackupSuffix)
			if err != nil {
				t.Fatalf("no previous generation: %v", err)
			}
			if l, _ := violations.DecodeLedger(good); len(l.Violations) != 1 {
				t.Fatalf("the previous generation holds %d violations, want 1", len(l.Violations))
			}
			full := f.readFile("freeze", store.LedgerFile)
			if err := os.WriteFile(path, full[:len(full)/2], 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := violations.DecodeLedger(full[:len(full)/2]); !errors.As(err, new(*violations.DecodeError)) {
				t.Fatalf("a truncated ledger decodes with %v, want a *violations.DecodeError", err)
			}
			if tt.expire {
				var evs []client.Object
				evs = append(evs, kyvernoAuditEvents("shop", "freeze-scaling", "second", "", t0)...)
				for _, ev := range evs {
					ev.SetName(ev.GetName() + ".second")
					if err := f.c.Delete(context.Background(), ev); err != nil {
						t.Fatal(err)
					}
				}
			}
			f.drainEvents()
			errsBefore := errorsCounted()

			f.tick(10 * time.Second)

			l, err := f.r.store.LoadLedger("freeze")
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Violations) != tt.want {
				t.Errorf("the recovered ledger holds %d violations, want %d", len(l.Violations), tt.want)
			}
			if _, err := violations.DecodeLedger(f.readFile("freeze", store.LedgerFile)); err != nil {
				t.Errorf("ledger.json after the recovery: %v", err)
			}
			evs := f.drainEvents()
			if n := countEvents(evs, "Warning "+EventFileRecovered+" ledger.json was unreadable"); n != 1 {
				t.Errorf("%d FileRecovered events, want 1: %q", n, evs)
			}
			if errorsCounted() == errsBefore {
				t.Error("the recovery counted no error")
			}
			// Once recovered, the ledger reads cleanly again.
			f.tick(10 * time.Second)
			if n := countEvents(f.drainEvents(), "Warning "+EventFileRecovered); n != 0 {
				t.Errorf("%d FileRecovered events on the pass after the recovery", n)
			}
		})
	}
}

func TestParseCrashPoint(t *testing.T) {
	for _, p := range CrashPoints() {
		if got, err := ParseCrashPoint(string(p)); err != nil || got != p {
			t.Errorf("ParseCrashPoint(%q) = %q, %v", p, got, err)
		}
	}
	if got, err := ParseCrashPoint(""); err != nil || got != "" {
		t.Errorf("ParseCrashPoint(\"\") = %q, %v; want no crash point", got, err)
	}
	_, err := ParseCrashPoint("mid-pass")
	if want := `PROTECTIONPLANS_CRASH_AT="mid-pass": want one of [before-policy-writes after-policy-writes before-ledger-write after-ledger-write before-report-write after-report-write]`; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}
