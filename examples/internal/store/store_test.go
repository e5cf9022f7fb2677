package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
	"github.com/telark/protectionplans/window"
)

// record stands for a caller's record (the operator's observed state).
type record struct {
	UID   types.UID `json:"uid"`
	Phase string    `json:"phase,omitempty"`
}

func TestWriteFileAtomic(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, path string) // before the writes
		writes  []string
		wantErr bool
	}{
		{name: "a file written twice holds the second content and no temporary file is left", writes: []string{"one", "two"}},
		{name: "a write into a directory that does not exist yet creates it", writes: []string{"one"}},
		{name: "a failed write leaves no temporary file", writes: []string{"one"}, wantErr: true,
			prepare: func(t *testing.T, path string) {
				// A non-empty directory where the file goes: the rename fails.
				if err := os.MkdirAll(filepath.Join(path, "x"), 0o755); err != nil {
					t.Fatal(err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "plan", LedgerFile)
			if tt.prepare != nil {
				tt.prepare(t, p)
			}
			for _, content := range tt.writes {
				err := writeFileAtomic(p, []byte(content))
				if tt.wantErr {
					if err == nil || !strings.Contains(err.Error(), p) {
						t.Fatalf("err = %v, want an error naming %s", err, p)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if got, _ := os.ReadFile(p); string(got) != content {
					t.Errorf("content = %q, want %q", got, content)
				}
			}
			entries, _ := os.ReadDir(filepath.Dir(p))
			if len(entries) != 1 || entries[0].Name() != LedgerFile {
				t.Errorf("the directory holds %v, want only %s", entries, LedgerFile)
			}
		})
	}
}

func TestFS_RefusesPlanIDsThatAreNotOnePathElement(t *testing.T) {
	s := New(t.TempDir())
	calls := map[string]func(id string) error{
		"LoadLedger":  func(id string) error { _, err := s.LoadLedger(id); return err },
		"SaveRecord":  func(id string) error { return s.SaveRecord(id, record{}) },
		"Names":       func(id string) error { _, err := s.Names(id); return err },
		"ListReports": func(id string) error { _, err := s.ListReports(id); return err },
		"RemovePlan":  s.RemovePlan,
	}
	for _, id := range []string{"", ".", "..", "a/b", `a\b`, "../up", "Upper", "under_score", "-dash"} {
		for name, call := range calls {
			if name == "ListReports" && id == "" {
				continue // every plan's
			}
			if err := call(id); !errors.Is(err, ErrPlanID) {
				t.Errorf("%s(%q) = %v, want ErrPlanID", name, id, err)
			}
		}
	}
	if entries, _ := os.ReadDir(s.Dir()); len(entries) != 0 {
		t.Errorf("the reports directory holds %v, want nothing", entries)
	}
}

func TestRemovePlan_TheSweepOfDeletedAndRecreatedPlans(t *testing.T) {
	s := New(t.TempDir())
	for id, uid := range map[string]types.UID{"kept": "u1", "deleted": "u2", "recreated": "old", "no-uid": ""} {
		if err := s.SaveRecord(id, record{UID: uid}); err != nil {
			t.Fatal(err)
		}
	}
	// Not plans' directories: left alone.
	for _, d := range []string{".hidden", "Not_A_Plan"} {
		if err := os.MkdirAll(filepath.Join(s.Dir(), d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// reconcile.Sweep decides over what the store holds; the store removes.
	stored := map[string]types.UID{}
	ids, err := s.PlanIDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		uid, _, err := s.RecordUID(id)
		if err != nil {
			t.Fatal(err)
		}
		stored[id] = uid
	}
	var plans []*plan.ProtectionPlan
	for id, uid := range map[string]types.UID{"kept": "u1", "recreated": "new", "no-uid": "u3", "without-a-directory": "u4"} {
		plans = append(plans, &plan.ProtectionPlan{ObjectMeta: metav1.ObjectMeta{Name: id, UID: uid}})
	}
	removed := reconcile.Sweep(reconcile.SweepInput{Plans: plans, Stored: stored}).Remove
	for _, id := range removed {
		if err := s.RemovePlan(id); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(removed, []string{"deleted", "recreated"}) {
		t.Errorf("removed = %v, want deleted and recreated", removed)
	}
	ids, _ = s.PlanIDs()
	if !slices.Equal(ids, []string{"kept", "no-uid"}) {
		t.Errorf("plans left %v, want kept and no-uid", ids)
	}
	for _, d := range []string{".hidden", "Not_A_Plan"} {
		if _, err := os.Stat(filepath.Join(s.Dir(), d)); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
}

func TestFS_SaveKeepsThePreviousGeneration(t *testing.T) {
	s := New(t.TempDir())
	for _, v := range []string{"one", "two", "three"} {
		if err := s.SaveRecord("plan", record{UID: types.UID(v)}); err != nil {
			t.Fatal(err)
		}
	}
	var cur, prev record
	if found, err := s.LoadRecord("plan", &cur); err != nil || !found || cur.UID != "three" {
		t.Errorf("current = %+v, %v, %v; want three", cur, found, err)
	}
	data, _ := os.ReadFile(filepath.Join(s.Dir(), "plan", ObservedFile+BackupSuffix))
	if err := json.Unmarshal(data, &prev); err != nil || prev.UID != "two" {
		t.Errorf("previous generation = %+v, %v; want two", prev, err)
	}
	entries, _ := os.ReadDir(filepath.Join(s.Dir(), "plan"))
	if len(entries) != 2 {
		t.Errorf("the plan's directory holds %d entries, want the file and its previous generation", len(entries))
	}
	if uid, found, err := s.RecordUID("plan"); err != nil || !found || uid != "three" {
		t.Errorf("RecordUID = %q, %v, %v; want three", uid, found, err)
	}
	if found, err := s.LoadRecord("other", &cur); err != nil || found {
		t.Errorf("the record of a plan without one: found %v, %v", found, err)
	}
	if _, err := s.LoadRecord("plan", cur); err == nil {
		t.Error("LoadRecord into a value, not a pointer, accepted")
	}
}

func ledgerOf(t *testing.T, keys ...string) []byte {
	t.Helper()
	var vs []violations.Violation
	for _, k := range keys {
		vs = append(vs, violations.Violation{Key: k, Plan: "plan", Policy: "p", Rule: k})
	}
	data, err := violations.NewLedger("plan").Merge(vs).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestFS_LoadRecoversFromThePreviousGeneration(t *testing.T) {
	good, newer := ledgerOf(t, "a"), ledgerOf(t, "a", "b")
	future := []byte(`{"version": 99, "plan": "plan"}`)
	tests := []struct {
		name          string
		file, backup  []byte // nil: absent
		wantKeys      []string
		wantRecovered bool
		wantErr       any // a pointer to the error type errors.As must find
	}{
		{name: "a valid ledger is read as is", file: newer, backup: good, wantKeys: []string{"a", "b"}},
		{name: "a ledger truncated mid-file is replaced by its previous generation", file: newer[:len(newer)/2], backup: good, wantKeys: []string{"a"}, wantRecovered: true},
		{name: "an empty ledger file (a write lost to a crash) is replaced by its previous generation", file: []byte{}, backup: good, wantKeys: []string{"a"}, wantRecovered: true},
		{name: "a ledger that is not JSON is replaced by its previous generation", file: []byte("\x00\x00\x00"), backup: good, wantKeys: []string{"a"}, wantRecovered: true},
		{name: "a missing ledger with a previous generation is restored", backup: good, wantKeys: []string{"a"}, wantRecovered: true},
		{name: "a new plan has an empty ledger", wantKeys: nil},
		{name: "a truncated ledger without a previous generation is a DecodeError", file: newer[:10], wantErr: new(*violations.DecodeError)},
		{name: "a truncated ledger whose previous generation is truncated too is a DecodeError", file: newer[:10], backup: good[:10], wantErr: new(*violations.DecodeError)},
		{name: "a ledger of a newer version is never replaced", file: future, backup: good, wantErr: new(*violations.VersionError)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var recovered []string
			s := New(t.TempDir(), OnRecovered(func(id, name string, cause error) {
				recovered = append(recovered, id+"/"+name)
				if !errors.As(cause, new(*violations.DecodeError)) && !errors.Is(cause, fs.ErrNotExist) {
					t.Errorf("recovered from %v, want a DecodeError or a missing file", cause)
				}
			}))
			path := filepath.Join(s.Dir(), "plan", LedgerFile)
			_ = os.MkdirAll(filepath.Dir(path), 0o755)
			if tt.file != nil {
				_ = os.WriteFile(path, tt.file, 0o644)
			}
			if tt.backup != nil {
				_ = os.WriteFile(path+BackupSuffix, tt.backup, 0o644)
			}
			l, err := s.LoadLedger("plan")
			if tt.wantErr != nil {
				if !errors.As(err, tt.wantErr) {
					t.Fatalf("err = %v, want %T", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), path) {
					t.Errorf("err = %v, want the path named", err)
				}
				if got, _ := os.ReadFile(path); string(got) != string(tt.file) {
					t.Error("the file was changed")
				}
				if len(recovered) > 0 {
					t.Errorf("recovered %v", recovered)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, v := range l.Violations {
				keys = append(keys, v.Key)
			}
			if !slices.Equal(keys, tt.wantKeys) {
				t.Errorf("violations %v, want %v", keys, tt.wantKeys)
			}
			if got := len(recovered) > 0; got != tt.wantRecovered {
				t.Errorf("recovered %v, want %v", recovered, tt.wantRecovered)
			}
			if tt.wantRecovered {
				if !slices.Equal(recovered, []string{"plan/" + LedgerFile}) {
					t.Errorf("recovered %v, want plan/%s", recovered, LedgerFile)
				}
				if got, _ := os.ReadFile(path); string(got) != string(tt.backup) {
					t.Error("the file was not restored from its previous generation")
				}
			}
		})
	}
}

func TestFS_SaveLedger(t *testing.T) {
	tests := []struct {
		name      string
		file      []byte // the stored ledger; nil: absent
		save      []byte // the ledger saved
		wantWrote bool
		wantErr   any
		wantFile  []byte
	}{
		{name: "a first ledger is written", save: ledgerOf(t, "a"), wantWrote: true, wantFile: ledgerOf(t, "a")},
		{name: "a changed ledger is written", file: ledgerOf(t, "a"), save: ledgerOf(t, "a", "b"), wantWrote: true, wantFile: ledgerOf(t, "a", "b")},
		{name: "an unchanged ledger is not written", file: ledgerOf(t, "a"), save: ledgerOf(t, "a"), wantFile: ledgerOf(t, "a")},
		{name: "a corrupt ledger is replaced without becoming the previous generation", file: []byte(`{"vers`), save: ledgerOf(t, "a"), wantWrote: true, wantFile: ledgerOf(t, "a")},
		{name: "a ledger of a newer version is never replaced", file: []byte(`{"version": 99, "plan": "plan"}`), save: ledgerOf(t, "a"),
			wantErr: new(*violations.VersionError), wantFile: []byte(`{"version": 99, "plan": "plan"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t.TempDir())
			path := filepath.Join(s.Dir(), "plan", LedgerFile)
			if tt.file != nil {
				_ = os.MkdirAll(filepath.Dir(path), 0o755)
				_ = os.WriteFile(path, tt.file, 0o644)
			}
			l, err := violations.DecodeLedger(tt.save)
			if err != nil {
				t.Fatal(err)
			}
			wrote, err := s.SaveLedger("plan", l)
			if tt.wantErr != nil {
				if !errors.As(err, tt.wantErr) || !strings.Contains(err.Error(), path) {
					t.Errorf("err = %v, want %T naming the path", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if wrote != tt.wantWrote {
				t.Errorf("wrote = %v, want %v", wrote, tt.wantWrote)
			}
			if got, _ := os.ReadFile(path); string(got) != string(tt.wantFile) {
				t.Errorf("the file holds %s, want %s", got, tt.wantFile)
			}
			if backup, err := os.ReadFile(path + BackupSuffix); err == nil {
				if _, err := violations.DecodeLedger(backup); err != nil {
					t.Errorf("the previous generation is invalid: %v", err)
				}
			}
		})
	}
}

func TestFS_ALedgerWrittenOnceIsItsOwnBackup(t *testing.T) {
	var recovered int
	s := New(t.TempDir(), OnRecovered(func(string, string, error) { recovered++ }))
	l := violations.NewLedger("plan").Merge([]violations.Violation{{Key: "a", Plan: "plan"}})
	if _, err := s.SaveLedger("plan", l); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(s.Dir(), "plan", LedgerFile)
	data, _ := os.ReadFile(path)
	_ = os.WriteFile(path, data[:len(data)/3], 0o644)
	got, err := s.LoadLedger("plan")
	if err != nil || len(got.Violations) != 1 || recovered != 1 {
		t.Errorf("ledger = %+v, %v, recovered %d times; want the one violation written, recovered once", got.Violations, err, recovered)
	}
}

func TestFS_Samples(t *testing.T) {
	t.Run("a truncated health file is recovered from its previous generation", func(t *testing.T) {
		var recovered []string
		s := New(t.TempDir(), OnRecovered(func(id, name string, _ error) { recovered = append(recovered, id+"/"+name) }))
		for i := range 3 {
			if err := s.AppendSample("plan", report.HealthSample{Reason: fmt.Sprint(i)}); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(s.Dir(), "plan", HealthFile)
		data, _ := os.ReadFile(path)
		_ = os.WriteFile(path, data[:len(data)-7], 0o644)
		samples, err := s.LoadSamples("plan")
		if err != nil || len(samples) != 2 {
			t.Errorf("samples = %+v, %v; want the 2 of the previous generation", samples, err)
		}
		if !slices.Equal(recovered, []string{"plan/" + HealthFile}) {
			t.Errorf("recovered %v", recovered)
		}
	})
	t.Run("the health file keeps the newest MaxSamples", func(t *testing.T) {
		s := New(t.TempDir())
		full := make([]report.HealthSample, MaxSamples)
		for i := range full {
			full[i].Reason = fmt.Sprint(i)
		}
		if err := s.writeJSON("plan", HealthFile, full, validJSON[[]report.HealthSample]); err != nil {
			t.Fatal(err)
		}
		if err := s.AppendSample("plan", report.HealthSample{Reason: "new"}); err != nil {
			t.Fatal(err)
		}
		samples, err := s.LoadSamples("plan")
		if err != nil || len(samples) != MaxSamples || samples[0].Reason != "1" || samples[MaxSamples-1].Reason != "new" {
			t.Errorf("%d samples from %q to %q, %v; want %d from 1 to new", len(samples), samples[0].Reason, samples[len(samples)-1].Reason, err, MaxSamples)
		}
	})
	t.Run("a plan without a health file has no samples", func(t *testing.T) {
		if samples, err := New(t.TempDir()).LoadSamples("plan"); err != nil || samples != nil {
			t.Errorf("samples = %v, %v", samples, err)
		}
	})
}

func TestFS_EdgeHistory(t *testing.T) {
	journal := edge.Journal{Version: edge.JournalVersion, Plan: edge.ObjectRef{Name: "plan", UID: "uid"}, Start: start, CapturedAt: start, Phase: edge.Done,
		Entries: []edge.Entry{{Action: edge.SuspendCronJobs, Target: edge.ObjectRef{APIVersion: "batch/v1", Kind: "CronJob", Namespace: "shop", Name: "report", UID: "c1"},
			Pointer: "/spec/suspend", Desired: edge.Value{Present: true, JSON: json.RawMessage("true")}, State: edge.Restored}}}
	t.Run("the finished journals round-trip, values and outcomes included", func(t *testing.T) {
		s := New(t.TempDir())
		if err := s.SaveEdgeHistory("plan", reconcile.EdgeHistory{Journals: []edge.Journal{journal}, Dropped: 1}); err != nil {
			t.Fatal(err)
		}
		h, err := s.LoadEdgeHistory("plan")
		if err != nil || len(h.Journals) != 1 || h.Dropped != 1 || h.Journals[0].Entries[0].State != edge.Restored ||
			string(h.Journals[0].Entries[0].Desired.JSON) != "true" || !h.Journals[0].CapturedAt.Equal(start) {
			t.Errorf("history %+v, %v", h, err)
		}
	})
	t.Run("a plan without edge journals has none", func(t *testing.T) {
		if h, err := New(t.TempDir()).LoadEdgeHistory("plan"); err != nil || len(h.Journals) != 0 {
			t.Errorf("history %+v, %v", h, err)
		}
	})
	t.Run("a truncated edge file is recovered from its previous generation", func(t *testing.T) {
		var recovered []string
		s := New(t.TempDir(), OnRecovered(func(id, name string, _ error) { recovered = append(recovered, id+"/"+name) }))
		second := journal
		second.Start, second.CapturedAt = start.Add(24*time.Hour), start.Add(24*time.Hour)
		for _, h := range []reconcile.EdgeHistory{{Journals: []edge.Journal{journal}}, {Journals: []edge.Journal{journal, second}}} {
			if err := s.SaveEdgeHistory("plan", h); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(s.Dir(), "plan", EdgeFile)
		data, _ := os.ReadFile(path)
		_ = os.WriteFile(path, data[:len(data)/2], 0o644)
		h, err := s.LoadEdgeHistory("plan")
		if err != nil || len(h.Journals) != 1 {
			t.Errorf("history %+v, %v; want the previous generation's one journal", h, err)
		}
		if !slices.Equal(recovered, []string{"plan/" + EdgeFile}) {
			t.Errorf("recovered %v", recovered)
		}
	})
}

// testPlan is a plan of ID id, active since start.
func testPlan(id, env string, start time.Time) *plan.ProtectionPlan {
	return &plan.ProtectionPlan{
		ObjectMeta: metav1.ObjectMeta{Name: id},
		Spec: plan.Spec{
			Name: id, Environment: env,
			Scope:     plan.Scope{Namespaces: []string{"shop"}},
			Templates: []plan.TemplateRef{{Name: "delete"}},
			Window: window.Spec{Type: window.TimeRange, StartAt: &metav1.Time{Time: start},
				EndAt: &metav1.Time{Time: start.Add(48 * time.Hour)}},
			Mode: plan.ModeAudit,
		},
		Status: plan.Status{Phase: plan.PhaseActive, StartedAt: &metav1.Time{Time: start},
			Timeline: []plan.TimelineEvent{{Time: metav1.Time{Time: start}, Type: plan.EventCreated, Actor: "carol", Phase: plan.PhaseActive}}},
	}
}

var start = time.Date(2026, 7, 23, 8, 0, 0, 0, time.UTC)

func writeReport(t *testing.T, s *FS, p *plan.ProtectionPlan, trig report.Trigger, at time.Time) report.Report {
	t.Helper()
	r, err := report.Build(report.Input{Plan: p, Trigger: trig, Now: at})
	if err != nil {
		t.Fatal(err)
	}
	paths, err := s.WriteReport(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != len(report.Formats()) || filepath.Ext(paths[len(paths)-1]) != ".json" {
		t.Fatalf("paths written %q, want every format, the JSON last", paths)
	}
	return r
}

func TestFS_ListReports(t *testing.T) {
	s := New(t.TempDir())
	shop := testPlan("shop", "Production", start)
	r1 := writeReport(t, s, shop, report.TriggerManual, start.Add(time.Hour))
	r2 := writeReport(t, s, shop, report.TriggerEnd, start.Add(2*time.Hour))
	r3 := writeReport(t, s, testPlan("shop-manual", "Staging", start), report.TriggerManual, start.Add(3*time.Hour))
	if _, err := s.SaveLedger("shop", violations.NewLedger("shop")); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveRecord("shop", record{UID: "u"}); err != nil {
		t.Fatal(err)
	}
	// JSON files that are not reports, or not this plan's.
	for _, name := range []string{"notes.json", "shop-manual-yesterday.json", "other-manual-20260723T090000Z.json"} {
		if err := os.WriteFile(filepath.Join(s.Dir(), "shop", name), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(ms []report.Meta) []string {
		var out []string
		for _, m := range report.List(ms, report.Filter{}) {
			out = append(out, fmt.Sprintf("%s %s %s %s %s", m.ID, m.Plan, m.Trigger, m.Environment, m.CreatedAt.Format(time.RFC3339)))
		}
		return out
	}
	tests := []struct {
		name   string
		planID string
		want   []string
	}{
		{name: "a plan's reports are listed from their JSON files, and other JSON files are ignored", planID: "shop", want: []string{
			r2.ID + " shop end Production 2026-07-23T10:00:00Z",
			r1.ID + " shop manual Production 2026-07-23T09:00:00Z",
		}},
		{name: "a plan whose ID starts with another's lists its own reports only", planID: "shop-manual", want: []string{
			r3.ID + " shop-manual manual Staging 2026-07-23T11:00:00Z",
		}},
		{name: "every plan's reports are listed without a plan ID", want: []string{
			r3.ID + " shop-manual manual Staging 2026-07-23T11:00:00Z",
			r2.ID + " shop end Production 2026-07-23T10:00:00Z",
			r1.ID + " shop manual Production 2026-07-23T09:00:00Z",
		}},
		{name: "a plan without a directory has no reports", planID: "gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 2 { // the second from the cache
				ms, err := s.ListReports(tt.planID)
				if err != nil {
					t.Fatal(err)
				}
				if got := ids(ms); !slices.Equal(got, tt.want) {
					t.Errorf("reports\n%q\nwant\n%q", got, tt.want)
				}
			}
		})
	}

	t.Run("a report's JSON that is not JSON fails the list with its path named", func(t *testing.T) {
		path := filepath.Join(s.Dir(), "shop", report.FileName(r1.ID, report.JSON))
		if err := os.WriteFile(path, []byte(`{"generatedAt": "nope", "plan": {}}..`), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ListReports("shop"); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("err = %v, want one naming %s", err, path)
		}
	})
}

func TestFS_ReadReport(t *testing.T) {
	s := New(t.TempDir())
	r := writeReport(t, s, testPlan("shop", "", start), report.TriggerManual, start.Add(time.Hour))
	if err := os.Remove(filepath.Join(s.Dir(), "shop", report.FileName(r.ID, report.CSV))); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		plan, report string
		format       report.Format
		wantErr      func(error) bool
	}{
		{name: "a report is read in a format", plan: "shop", report: r.ID, format: report.HTML},
		{name: "a format missing is a missing file", plan: "shop", report: r.ID, format: report.CSV,
			wantErr: func(err error) bool { return errors.Is(err, fs.ErrNotExist) }},
		{name: "an ID that is not one of the plan's reports is never a path", plan: "shop", report: "../shop/" + r.ID, format: report.HTML,
			wantErr: func(err error) bool { return err != nil && !errors.Is(err, fs.ErrNotExist) }},
		{name: "another plan's report is not read through this one", plan: "shop-b", report: r.ID, format: report.HTML,
			wantErr: func(err error) bool { return err != nil && !errors.Is(err, fs.ErrNotExist) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := s.ReadReport(tt.plan, tt.report, tt.format)
			if tt.wantErr != nil {
				if !tt.wantErr(err) {
					t.Errorf("err = %v", err)
				}
				return
			}
			if err != nil || !strings.Contains(string(data), "<html") {
				t.Errorf("read %d bytes, %v; want the HTML report", len(data), err)
			}
		})
	}
}

func TestFS_PruneReportsKeepsFinalReports(t *testing.T) {
	s := New(t.TempDir())
	p := testPlan("shop", "", start)
	final := writeReport(t, s, p, report.TriggerCancel, start.Add(time.Minute))
	var manual []report.Report
	for i := range report.KeepManual + 2 {
		manual = append(manual, writeReport(t, s, p, report.TriggerManual, start.Add(time.Duration(i+2)*time.Minute)))
	}
	deleted, err := s.PruneReports("shop")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range deleted {
		got = append(got, d.Report.ID)
	}
	if want := []string{manual[1].ID, manual[0].ID}; !slices.Equal(got, want) {
		t.Errorf("deleted %v, want the 2 oldest on-demand reports %v", got, want)
	}
	ms, _ := s.ListReports("shop")
	if len(ms) != report.KeepManual+1 {
		t.Errorf("%d reports left, want %d on-demand and the final one", len(ms), report.KeepManual)
	}
	names, _ := s.Names("shop")
	for _, n := range names {
		if strings.HasPrefix(n, manual[0].ID) || strings.HasPrefix(n, manual[1].ID) {
			t.Errorf("%s left behind", n)
		}
	}
	if !report.Whole(final.ID, names) {
		t.Errorf("the final report %s is not whole: %v", final.ID, names)
	}
}

func TestFS_RemovePlan(t *testing.T) {
	s := New(t.TempDir())
	writeReport(t, s, testPlan("shop", "", start), report.TriggerManual, start.Add(time.Hour))
	if ms, _ := s.ListReports(""); len(ms) != 1 {
		t.Fatalf("%d reports, want 1", len(ms))
	}
	if err := s.RemovePlan("shop"); err != nil {
		t.Fatal(err)
	}
	if ms, _ := s.ListReports(""); len(ms) != 0 {
		t.Errorf("reports left: %v", ms)
	}
	if ids, _ := s.PlanIDs(); len(ids) != 0 {
		t.Errorf("plans left: %v", ids)
	}
	if err := s.RemovePlan("shop"); err != nil {
		t.Errorf("removing a plan without a directory: %v", err)
	}
}
