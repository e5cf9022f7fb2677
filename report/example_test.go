package report_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
	"github.com/telark/protectionplans/window"
)

// summerFreeze is an audit plan on the namespace "shop", active since
// Thu Jul 23 2026 08:00 UTC.
func summerFreeze() *plan.ProtectionPlan {
	start := time.Date(2026, 7, 23, 8, 0, 0, 0, time.UTC)
	end := start.Add(48 * time.Hour)
	return &plan.ProtectionPlan{
		ObjectMeta: metav1.ObjectMeta{Name: "summer-freeze"},
		Spec: plan.Spec{
			Name:      "Summer freeze",
			Scope:     plan.Scope{Namespaces: []string{"shop"}},
			Templates: []plan.TemplateRef{{Name: "delete"}},
			Window:    window.Spec{Type: window.TimeRange, StartAt: &metav1.Time{Time: start}, EndAt: &metav1.Time{Time: end}},
			Mode:      plan.ModeAudit,
		},
		Status: plan.Status{Phase: plan.PhaseActive, StartedAt: &metav1.Time{Time: start},
			Timeline: []plan.TimelineEvent{{Time: metav1.Time{Time: start}, Type: plan.EventCreated, Actor: "carol", Phase: plan.PhaseActive}}},
	}
}

// An on-demand report of a running plan, written as CSV.
func Example() {
	p := summerFreeze()
	now := time.Date(2026, 7, 23, 12, 0, 0, 0, time.UTC)
	if err := report.CheckManual(p); err != nil {
		fmt.Println(err, plan.CodeOf(err))
		return
	}
	r, err := report.Build(report.Input{
		Plan:    p,
		Trigger: report.TriggerManual,
		Now:     now,
		Violations: []violations.Violation{{
			Key: "e1", Plan: "summer-freeze", Policy: "summer-freeze-delete", PolicyNamespace: "shop",
			Resource: violations.Resource{Kind: "Deployment", Namespace: "shop", Name: "=cmd"},
			Result:   violations.ResultFail, Message: "would be blocked by protection plan Summer freeze: deleting",
			Timestamp: now.Add(-time.Hour), Source: violations.SourceEvent,
		}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.ID, r.Summary.ActiveSeconds, r.Summary.Audited)
	csv, err := report.Render(r, report.CSV)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(strings.ReplaceAll(string(csv), "\r\n", "\n")) // CSV lines end in CRLF

	// Output:
	// summer-freeze-manual-20260723T120000Z 14400 1
	// timestamp,first_seen,count,decision,result,plan,template,policy_namespace,policy,rule,api_version,kind,namespace,name,subresource,message,source,key
	// 2026-07-23T11:00:00Z,,1,audited,fail,summer-freeze,,shop,summer-freeze-delete,,,Deployment,shop,'=cmd,,would be blocked by protection plan Summer freeze: deleting,event,e1
}

// The operator asks after every lifecycle step whether to capture a final
// report.
func ExampleFinalTrigger() {
	before := summerFreeze()
	res, _ := plan.Cancel(before, "carol", time.Date(2026, 7, 23, 14, 0, 0, 0, time.UTC))
	trigger, ok := report.FinalTrigger(before, res.Plan)
	fmt.Println(trigger, ok)

	neverStarted := summerFreeze()
	neverStarted.Status.StartedAt = nil
	neverStarted.Status.Phase = plan.PhaseScheduled
	res, _ = plan.Cancel(neverStarted, "carol", time.Date(2026, 7, 23, 14, 0, 0, 0, time.UTC))
	trigger, ok = report.FinalTrigger(neverStarted, res.Plan)
	fmt.Printf("%q %v\n", trigger, ok)
	// Output:
	// cancel true
	// "" false
}

// Two renders run at a time; the third is told to come back.
func ExampleLimiter() {
	limiter := report.NewLimiter()
	r1, _ := limiter.Acquire()
	r2, _ := limiter.Acquire()
	_, err := limiter.Acquire()
	if busy, ok := err.(*report.BusyError); ok {
		fmt.Println(plan.CodeOf(err), "Retry-After:", busy.RetryAfterSeconds())
	}
	r1()
	r2()
	// Output: 429 Retry-After: 5
}

// Retention keeps the newest 10 on-demand reports of a plan.
func ExamplePrune() {
	var stored []report.Meta
	day := time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC)
	for i := 1; i <= 12; i++ {
		stored = append(stored, report.Meta{ID: fmt.Sprintf("r%02d", i), Plan: "summer-freeze",
			Trigger: report.TriggerManual, CreatedAt: day.AddDate(0, 0, i)})
	}
	stored = append(stored, report.Meta{ID: "final", Plan: "summer-freeze", Trigger: report.TriggerEnd, CreatedAt: day})
	for _, d := range report.Prune(stored, func(string) bool { return true }) {
		fmt.Println(d.Report.ID, d.Reason)
	}
	// Output:
	// r02 manual_overflow
	// r01 manual_overflow
}

// A final report lists every edge action with its participants, what the
// start did to each and what the restore did, from the journals the
// embedder kept.
func ExampleBuild_edgeActions() {
	p := summerFreeze()
	p.Spec.EdgeActions = []edge.Action{{Name: edge.SuspendCronJobs}}
	start := p.Status.StartedAt.Time
	restoring := start.Add(4 * time.Hour)
	cron := func(name string) edge.ObjectRef {
		return edge.ObjectRef{APIVersion: "batch/v1", Kind: "CronJob", Namespace: "shop", Name: name, UID: types.UID("uid-" + name)}
	}
	yes := edge.Value{Present: true, JSON: json.RawMessage("true")}
	journal := edge.Journal{Version: edge.JournalVersion, Start: start, CapturedAt: start, RestoringSince: &restoring, Phase: edge.Done,
		Entries: []edge.Entry{
			{Action: edge.SuspendCronJobs, Target: cron("report"), Pointer: "/spec/suspend", Desired: yes, State: edge.Restored},
			{Action: edge.SuspendCronJobs, Target: cron("cleanup"), Pointer: "/spec/suspend", Captured: yes, Desired: yes, State: edge.Skipped,
				Skip: edge.SkipStart, Reason: "already suspended: stays suspended, and is not touched at the end"},
			{Action: edge.SuspendCronJobs, Target: cron("digest"), Pointer: "/spec/suspend", Desired: yes, State: edge.Skipped,
				Skip: edge.SkipMissing, Reason: "missing at the end: nothing restored"},
		}}
	r, err := report.Build(report.Input{Plan: p, Trigger: report.TriggerManual, Now: restoring.Add(time.Minute), EdgeJournals: []edge.Journal{journal}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range r.EdgeActions.Windows {
		for _, a := range w.Actions {
			for _, x := range a.Participants {
				fmt.Printf("%s %s: captured %s, start %s, restore %s\n", a.Name, x.Target, x.Captured, x.Start.Outcome, x.Restore.Outcome)
			}
		}
	}
	// Output:
	// suspend-cronjobs CronJob shop/report: captured absent, start applied, restore restored
	// suspend-cronjobs CronJob shop/cleanup: captured true, start skipped, restore not_needed
	// suspend-cronjobs CronJob shop/digest: captured absent, start applied, restore skipped_missing
}
