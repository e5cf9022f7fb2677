package lint

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// now is Sunday 1 March 2026, noon UTC: both 2026 DST changes of Berlin
// and New York lie within the default horizon.
var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func mt(s string) *metav1.Time { return &metav1.Time{Time: at(s)} }

// onNamespaces is a plan on namespaces with templates and a window.
func onNamespaces(id string, ns []string, templates []string, w window.Spec) *plan.ProtectionPlan {
	p := &plan.ProtectionPlan{ObjectMeta: metav1.ObjectMeta{Name: id},
		Spec: plan.Spec{Name: id, Scope: plan.Scope{Namespaces: ns}, Window: w, Mode: plan.ModeEnforce}}
	for _, t := range templates {
		p.Spec.Templates = append(p.Spec.Templates, plan.TemplateRef{Name: t})
	}
	return p
}

func recurring(zone string, scheds ...string) window.Spec {
	s := window.Spec{Type: window.Recurring, TimeZone: zone}
	for i := 0; i+1 < len(scheds); i += 2 {
		s.Schedules = append(s.Schedules, window.Schedule{Cron: scheds[i], Duration: scheds[i+1]})
	}
	return s
}

func timeRange(start, end string) window.Spec {
	return window.Spec{Type: window.TimeRange, TimeZone: "Europe/Berlin", StartAt: mt(start), EndAt: mt(end)}
}

// brief is a finding without its message and with instants in UTC, for
// comparing.
type brief struct {
	Severity Severity
	Code     Code
	Plans    []string
	Fields   []Field
	Instants []string
}

func briefOf(fs []Finding) []brief {
	out := []brief{}
	for _, f := range fs {
		b := brief{Severity: f.Severity, Code: f.Code, Plans: f.Plans, Fields: f.Fields}
		for _, t := range f.Instants {
			b.Instants = append(b.Instants, t.UTC().Format(time.RFC3339))
		}
		out = append(out, b)
	}
	return out
}

func TestLint(t *testing.T) {
	nightly := recurring("Europe/Berlin", "0 22 * * *", "8h")
	cases := []struct {
		name     string
		plans    []*plan.ProtectionPlan
		want     []brief
		messages []string
	}{{
		name: "two plans on a shared namespace that lock the same template overlap: a warning with the first overlap",
		plans: []*plan.ProtectionPlan{
			onNamespaces("nightly", []string{"payments", "shop"}, []string{"image-change"}, nightly),
			onNamespaces("release", []string{"shop"}, []string{"delete", "image-change"}, timeRange("2026-03-10T00:00:00+01:00", "2026-03-11T00:00:00+01:00")),
		},
		want: []brief{{Severity: Warning, Code: PlansOverlap, Plans: []string{"nightly", "release"},
			Fields: []Field{{"nightly", "spec.scope.namespaces[1]"}, {"release", "spec.scope.namespaces[0]"}, {"nightly", "spec.templates[0]"},
				{"nightly", "spec.window"}, {"release", "spec.window"}},
			Instants: []string{"2026-03-09T23:00:00Z", "2026-03-10T05:00:00Z"}}},
		messages: []string{"plans nightly and release are both active on namespaces shop from Tue 2026-03-10 00:00 CET to Tue 2026-03-10 06:00 CET (and once more in the next 366 days); both lock image-change, so a change there is refused or recorded twice, with two messages; merge the plans, or split their scope or their time"},
	}, {
		name: "two plans on a shared application that lock different templates overlap: only info",
		plans: []*plan.ProtectionPlan{
			appPlan("a", []string{"checkout"}, "create", timeRange("2026-04-01T00:00:00+02:00", "2026-04-03T00:00:00+02:00")),
			appPlan("b", []string{"cart", "checkout"}, "delete", timeRange("2026-04-02T00:00:00+02:00", "2026-04-05T00:00:00+02:00")),
		},
		want: []brief{{Severity: Info, Code: PlansOverlap, Plans: []string{"a", "b"},
			Fields:   []Field{{"a", "spec.scope.applications[0]"}, {"b", "spec.scope.applications[1]"}, {"a", "spec.window"}, {"b", "spec.window"}},
			Instants: []string{"2026-04-01T22:00:00Z", "2026-04-02T22:00:00Z"}}},
		messages: []string{"plans a and b are both active on applications checkout from Thu 2026-04-02 00:00 CEST to Fri 2026-04-03 00:00 CEST; they lock different templates, which is often meant: check that the combined freeze is what you want"},
	}, {
		name: "plans at the same time on different namespaces, or one on applications and one on namespaces, do not overlap",
		plans: []*plan.ProtectionPlan{
			onNamespaces("a", []string{"shop"}, []string{"create"}, nightly),
			onNamespaces("b", []string{"payments"}, []string{"create"}, nightly),
			appPlan("c", []string{"shop"}, "create", nightly),
		},
		want: []brief{},
	}, {
		name: "plans on the same namespace at different times do not overlap",
		plans: []*plan.ProtectionPlan{
			onNamespaces("a", []string{"shop"}, []string{"create"}, timeRange("2026-04-01T00:00:00+02:00", "2026-04-02T00:00:00+02:00")),
			onNamespaces("b", []string{"shop"}, []string{"create"}, timeRange("2026-04-02T00:00:00+02:00", "2026-04-03T00:00:00+02:00")),
		},
		want: []brief{},
	}, {
		name: "a schedule whose occurrences all fall inside another schedule's is shadowed",
		plans: []*plan.ProtectionPlan{onNamespaces("p", []string{"shop"}, []string{"create"},
			recurring("UTC", "0 22 * * *", "8h", "0 23 * * 1-5", "2h"))},
		want: []brief{{Severity: Warning, Code: ScheduleShadowed, Plans: []string{"p"},
			Fields:   []Field{{"p", "spec.window.schedules[1]"}, {"p", "spec.window.schedules[0]"}},
			Instants: []string{"2026-03-02T23:00:00Z", "2026-03-03T01:00:00Z"}}},
		messages: []string{`every occurrence of spec.window.schedules[1] ("0 23 * * 1-5" for 2h) in the next 366 days falls inside one of spec.window.schedules[0] ("0 22 * * *" for 8h), the first from Mon 2026-03-02 23:00 UTC to Tue 2026-03-03 01:00 UTC: it adds nothing; remove it, or change its cron or duration if it was meant to add time`},
	}, {
		name: "of two identical schedules only the later is reported; one that only partly overlaps is not",
		plans: []*plan.ProtectionPlan{onNamespaces("p", []string{"shop"}, []string{"create"},
			recurring("UTC", "0 1 * * *", "1h", "0 1 * * *", "60m", "30 1 * * *", "1h"))},
		want: []brief{{Severity: Warning, Code: ScheduleShadowed, Plans: []string{"p"},
			Fields:   []Field{{"p", "spec.window.schedules[1]"}, {"p", "spec.window.schedules[0]"}},
			Instants: []string{"2026-03-02T01:00:00Z", "2026-03-02T02:00:00Z"}}},
	}, {
		name: "a cron that never fires is an error, and a window of nothing else is not also reported as ended",
		plans: []*plan.ProtectionPlan{onNamespaces("p", []string{"shop"}, []string{"create"},
			recurring("UTC", "0 0 31 2 *", "1h"))},
		want:     []brief{{Severity: Error, Code: CronNeverFires, Plans: []string{"p"}, Fields: []Field{{"p", "spec.window.schedules[0].cron"}}}},
		messages: []string{`cron "0 0 31 2 *" never fires: no day matches its day of month, month and day of week together; this schedule freezes nothing, fix its day or month`},
	}, {
		name: "a start in the hour Berlin skips is a warning, one in the hour it repeats is info, each with the instant of the change",
		plans: []*plan.ProtectionPlan{onNamespaces("p", []string{"shop"}, []string{"create"},
			recurring("Europe/Berlin", "30 2 * * *", "1h"))},
		want: []brief{
			{Severity: Warning, Code: StartInSkippedHour, Plans: []string{"p"}, Fields: []Field{{"p", "spec.window.schedules[0].cron"}}, Instants: []string{"2026-03-29T01:00:00Z"}},
			{Severity: Info, Code: StartInRepeatedHour, Plans: []string{"p"}, Fields: []Field{{"p", "spec.window.schedules[0].cron"}}, Instants: []string{"2026-10-25T01:00:00Z"}},
		},
		messages: []string{
			`cron "30 2 * * *" starts at Sun 2026-03-29 02:30 in Europe/Berlin, a local time the clocks skip: that occurrence does not happen (the freeze is missing that night); move the start out of the skipped hour or use a zone without DST`,
			`cron "30 2 * * *" starts at Sun 2026-10-25 02:30 in Europe/Berlin, a local time that occurs twice: it fires at both, and the two occurrences merge into one an hour longer`,
		},
	}, {
		name: "a Sunday 02:00 start in New York is in both of its 2026 transitions; a Saturday one in neither",
		plans: []*plan.ProtectionPlan{onNamespaces("p", []string{"shop"}, []string{"create"},
			recurring("America/New_York", "0 2 * * 0", "1h", "0 2 * * 6", "1h"))},
		want: []brief{
			{Severity: Warning, Code: StartInSkippedHour, Plans: []string{"p"}, Fields: []Field{{"p", "spec.window.schedules[0].cron"}}, Instants: []string{"2026-03-08T07:00:00Z"}},
		},
	}, {
		name: "a start at 01:30 on Sundays in New York is in its repeated hour",
		plans: []*plan.ProtectionPlan{onNamespaces("p", []string{"shop"}, []string{"create"},
			recurring("America/New_York", "30 1 * * 0", "1h"))},
		want: []brief{
			{Severity: Info, Code: StartInRepeatedHour, Plans: []string{"p"}, Fields: []Field{{"p", "spec.window.schedules[0].cron"}}, Instants: []string{"2026-11-01T06:00:00Z"}},
		},
	}, {
		name: "occurrences that chain without a gap never end: a warning from now past the horizon",
		plans: []*plan.ProtectionPlan{onNamespaces("p", []string{"shop"}, []string{"create"},
			recurring("UTC", "0 */4 * * *", "4h"))},
		want: []brief{{Severity: Warning, Code: WindowNeverEnds, Plans: []string{"p"}, Fields: []Field{{"p", "spec.window.schedules"}},
			Instants: []string{"2026-03-01T12:00:00Z", "2027-03-02T12:00:00Z"}}},
		messages: []string{`the occurrences of the window (cron "0 */4 * * *" UTC for 4h) chain without a gap from Sun 2026-03-01 12:00 UTC past Tue 2027-03-02 12:00 UTC (longer than the next 366 days): the freeze never ends; if that is meant, make the window permanent, else shorten a duration or space the crons so that each occurrence ends before the next starts`},
	}, {
		name: "a permanent window is meant to last and is not reported as never ending",
		plans: []*plan.ProtectionPlan{onNamespaces("p", []string{"shop"}, []string{"create"},
			window.Spec{Type: window.Permanent, StartAt: mt("2026-01-01T00:00:00Z")})},
		want: []brief{},
	}, {
		name: "a time range that has ended is an error at its end",
		plans: []*plan.ProtectionPlan{onNamespaces("p", []string{"shop"}, []string{"create"},
			timeRange("2026-02-01T00:00:00+01:00", "2026-02-02T00:00:00+01:00"))},
		want:     []brief{{Severity: Error, Code: WindowEnded, Plans: []string{"p"}, Fields: []Field{{"p", "spec.window.endAt"}}, Instants: []string{"2026-02-01T23:00:00Z"}}},
		messages: []string{"the window (from 2026-02-01 00:00 to 2026-02-02 00:00 Europe/Berlin) ended at Mon 2026-02-02 00:00 CET: the plan would be terminated as soon as it is applied, and the API refuses a window that has ended; move endAt or remove the plan"},
	}, {
		name: "a recurring window whose validity has ended is an error, and its schedules are not checked further",
		plans: []*plan.ProtectionPlan{onNamespaces("p", []string{"shop"}, []string{"create"},
			window.Spec{Type: window.Recurring, TimeZone: "Europe/Berlin", EndAt: mt("2026-02-01T00:00:00Z"),
				Schedules: []window.Schedule{{Cron: "30 2 * * *", Duration: "1h"}, {Cron: "30 2 * * *", Duration: "1h"}}})},
		want: []brief{{Severity: Error, Code: WindowEnded, Plans: []string{"p"}, Fields: []Field{{"p", "spec.window.endAt"}}, Instants: []string{"2026-02-01T00:00:00Z"}}},
	}, {
		name: "a window that does not parse is an error at the field",
		plans: []*plan.ProtectionPlan{onNamespaces("p", []string{"shop"}, []string{"create"},
			recurring("Europe/Berlin", "61 * * * *", "1h"))},
		want: []brief{{Severity: Error, Code: InvalidWindow, Plans: []string{"p"}, Fields: []Field{{"p", "spec.window.schedules[0].cron"}}}},
	}, {
		name:  "a sound nightly plan has no finding",
		plans: []*plan.ProtectionPlan{onNamespaces("p", []string{"shop"}, []string{"create"}, nightly)},
		want:  []brief{},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Lint(c.plans, now)
			if diff := cmp.Diff(c.want, briefOf(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for i, m := range c.messages {
				if i < len(got) && got[i].Message != m {
					t.Errorf("message %d\n got %s\nwant %s", i, got[i].Message, m)
				}
			}
		})
	}
}

func appPlan(id string, apps []string, template string, w window.Spec) *plan.ProtectionPlan {
	p := onNamespaces(id, nil, []string{template}, w)
	p.Spec.Scope = plan.Scope{Applications: apps}
	return p
}

func TestLint_OrderAndErrors(t *testing.T) {
	got := Lint([]*plan.ProtectionPlan{
		onNamespaces("z", []string{"shop"}, []string{"create"}, recurring("Europe/Berlin", "30 2 * * *", "1h")),
		onNamespaces("a", []string{"shop"}, []string{"create"}, timeRange("2026-02-01T00:00:00+01:00", "2026-02-02T00:00:00+01:00")),
		nil,
	}, now)
	var codes []Code
	for _, f := range got {
		codes = append(codes, f.Code)
	}
	if diff := cmp.Diff([]Code{WindowEnded, StartInSkippedHour, StartInRepeatedHour}, codes); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if !Errors(got) || Errors(got[1:]) {
		t.Errorf("Errors: want true with the WindowEnded finding, false without")
	}
}

func TestFinding_JSON(t *testing.T) {
	f := Finding{Severity: Warning, Code: PlansOverlap, Plans: []string{"a", "b"}, Fields: []Field{{"a", "spec.window"}},
		Instants: []time.Time{at("2026-03-10T00:00:00+01:00")}, Message: "m"}
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"severity":"warning","code":"PlansOverlap","plans":["a","b"],"fields":[{"plan":"a","path":"spec.window"}],"instants":["2026-03-10T00:00:00+01:00"],"message":"m"}`
	if string(data) != want {
		t.Errorf("got  %s\nwant %s", data, want)
	}
}
