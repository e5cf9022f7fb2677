package report

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// stored is a store of reports: for plan "nightly" 13 manual reports (one
// a day from Jul 1, IDs nightly-m01..m13) and two finals; for plan
// "holiday" 3 manual reports and a final; and a report of the deleted
// plan "gone".
func stored() []Meta {
	var s []Meta
	day := at("Wed Jul 1 2026 10:00:00")
	for i := 1; i <= 13; i++ {
		s = append(s, Meta{ID: fmt.Sprintf("nightly-m%02d", i), Plan: "nightly", Environment: "Staging", Trigger: TriggerManual,
			CreatedAt: day.Add(time.Duration(i-1) * 24 * time.Hour)})
	}
	s = append(s,
		Meta{ID: "nightly-end", Plan: "nightly", Environment: "Staging", Trigger: TriggerEnd, CreatedAt: at("Mon Jun 1 2026 04:00:00")},
		Meta{ID: "nightly-cancel", Plan: "nightly", Environment: "Staging", Trigger: TriggerCancel, CreatedAt: at("Sat Jul 25 2026 04:00:00")},
		Meta{ID: "holiday-m1", Plan: "holiday", Environment: "Production", Trigger: TriggerManual, CreatedAt: at("Thu Dec 24 2026 18:00:00")},
		Meta{ID: "holiday-m2", Plan: "holiday", Environment: "Production", Trigger: TriggerManual, CreatedAt: at("Fri Dec 25 2026 18:00:00")},
		Meta{ID: "holiday-m3", Plan: "holiday", Environment: "Production", Trigger: TriggerManual, CreatedAt: at("Sat Dec 26 2026 18:00:00")},
		Meta{ID: "holiday-end", Plan: "holiday", Environment: "Production", Trigger: TriggerEnd, CreatedAt: at("Sun Dec 27 2026 05:00:00")},
		Meta{ID: "gone-end", Plan: "gone", Environment: "", Trigger: TriggerEnd, CreatedAt: at("Mon Jun 1 2026 04:00:00")},
	)
	// The store hands them over in no particular order.
	slices.Reverse(s)
	return s
}

func ids(ms []Meta) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

func exists(plans ...string) func(string) bool {
	return func(id string) bool { return slices.Contains(plans, id) }
}

func TestPrune(t *testing.T) {
	tests := []struct {
		name   string
		stored []Meta
		exists func(string) bool
		want   []Deletion
	}{
		{"the newest 10 manual reports of a plan are kept, the 3 oldest deleted; finals are never pruned",
			stored(), exists("nightly", "holiday", "gone"), []Deletion{
				{Meta{ID: "nightly-m03", Plan: "nightly", Environment: "Staging", Trigger: TriggerManual, CreatedAt: at("Fri Jul 3 2026 10:00:00")}, ManualOverflow},
				{Meta{ID: "nightly-m02", Plan: "nightly", Environment: "Staging", Trigger: TriggerManual, CreatedAt: at("Thu Jul 2 2026 10:00:00")}, ManualOverflow},
				{Meta{ID: "nightly-m01", Plan: "nightly", Environment: "Staging", Trigger: TriggerManual, CreatedAt: at("Wed Jul 1 2026 10:00:00")}, ManualOverflow},
			}},
		{"every report of a deleted plan is deleted, its final reports too",
			stored()[:5], exists(), []Deletion{
				{Meta{ID: "holiday-end", Plan: "holiday", Environment: "Production", Trigger: TriggerEnd, CreatedAt: at("Sun Dec 27 2026 05:00:00")}, PlanDeleted},
				{Meta{ID: "holiday-m3", Plan: "holiday", Environment: "Production", Trigger: TriggerManual, CreatedAt: at("Sat Dec 26 2026 18:00:00")}, PlanDeleted},
				{Meta{ID: "holiday-m2", Plan: "holiday", Environment: "Production", Trigger: TriggerManual, CreatedAt: at("Fri Dec 25 2026 18:00:00")}, PlanDeleted},
				{Meta{ID: "holiday-m1", Plan: "holiday", Environment: "Production", Trigger: TriggerManual, CreatedAt: at("Thu Dec 24 2026 18:00:00")}, PlanDeleted},
				{Meta{ID: "gone-end", Plan: "gone", Trigger: TriggerEnd, CreatedAt: at("Mon Jun 1 2026 04:00:00")}, PlanDeleted},
			}},
		{"exactly 10 manual reports are all kept", stored()[7:17], nil, nil},
		{"an empty store deletes nothing", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Prune(tt.stored, tt.exists)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Prune (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPrune_KeepsTheNewestOnTiesByID(t *testing.T) {
	var s []Meta
	same := at("Wed Jul 1 2026 10:00:00")
	for i := range 12 {
		s = append(s, Meta{ID: fmt.Sprintf("r%02d", i), Plan: "p", Trigger: TriggerManual, CreatedAt: same})
	}
	got := Prune(s, nil)
	slices.Reverse(s)
	if again := Prune(s, nil); !cmp.Equal(got, again) {
		t.Errorf("the answer depends on the store's order: %v vs %v", got, again)
	}
	if want := []string{"r01", "r00"}; !cmp.Equal(want, []string{got[0].Report.ID, got[1].Report.ID}) {
		t.Errorf("deleted %v, want %v", got, want)
	}
}

func TestList(t *testing.T) {
	tests := []struct {
		name   string
		filter Filter
		want   []string
	}{
		{"no filter lists everything, newest first", Filter{}, []string{
			"holiday-end", "holiday-m3", "holiday-m2", "holiday-m1", "nightly-cancel",
			"nightly-m13", "nightly-m12", "nightly-m11", "nightly-m10", "nightly-m09", "nightly-m08", "nightly-m07",
			"nightly-m06", "nightly-m05", "nightly-m04", "nightly-m03", "nightly-m02", "nightly-m01",
			"nightly-end", "gone-end"}},
		{"by plan", Filter{Plan: "holiday"}, []string{"holiday-end", "holiday-m3", "holiday-m2", "holiday-m1"}},
		{"by environment, ignoring case and spaces", Filter{Environment: " production "}, []string{"holiday-end", "holiday-m3", "holiday-m2", "holiday-m1"}},
		{"by trigger: the end reports", Filter{Trigger: TriggerEnd}, []string{"holiday-end", "nightly-end", "gone-end"}},
		{"by trigger: the cancel reports", Filter{Trigger: TriggerCancel}, []string{"nightly-cancel"}},
		{"from a date (inclusive) to a date (exclusive)",
			Filter{From: at("Fri Jul 10 2026 10:00:00"), To: at("Sun Jul 12 2026 10:00:00")}, []string{"nightly-m11", "nightly-m10"}},
		{"from a date only", Filter{From: at("Sat Jul 25 2026 00:00:00")}, []string{"holiday-end", "holiday-m3", "holiday-m2", "holiday-m1", "nightly-cancel"}},
		{"until a date only", Filter{To: at("Wed Jul 1 2026 10:00:01")}, []string{"nightly-m01", "nightly-end", "gone-end"}},
		{"all filters at once", Filter{Plan: "nightly", Environment: "staging", Trigger: TriggerManual,
			From: at("Sun Jul 12 2026 00:00:00"), To: at("Tue Jul 14 2026 00:00:00")}, []string{"nightly-m13", "nightly-m12"}},
		{"a plan with no reports lists none", Filter{Plan: "unknown"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ids(List(stored(), tt.filter))); diff != "" {
				t.Errorf("List (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMeta_OfABuiltReport(t *testing.T) {
	r := mustBuild(t, nightlyInput(t))
	want := Meta{ID: "nightly-image-freeze-end-20260722T040002Z", Plan: "nightly-image-freeze", Environment: "Staging",
		Trigger: TriggerEnd, CreatedAt: nightlyNow}
	if diff := cmp.Diff(want, r.Meta()); diff != "" {
		t.Errorf("Meta (-want +got):\n%s", diff)
	}
}
