package report

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/plan"
)

// edgeRunInput is the final report of the summer freeze canceled at 12:00
// on its first day, after its edge actions ran: CronJobs suspended and
// Deployments scaled to 0 at 08:00, restored at 12:00 with every outcome a
// restore can have. It also holds a journal of an earlier run and one of
// another plan of the same name, which the report leaves out.
func edgeRunInput(t testing.TB) Input {
	p := activeNamespacesPlan()
	p.UID = "plan-uid"
	p.Spec.EdgeActions = []edge.Action{{Name: edge.SuspendCronJobs}, {Name: edge.ScaleTo, Replicas: new(int32(0))}}
	res, err := plan.Cancel(p, "carol", at("Thu Jul 23 2026 12:00:00"))
	if err != nil {
		t.Fatal(err)
	}
	restoring := at("Thu Jul 23 2026 12:00:00")
	ref := edge.ObjectRef{APIVersion: "protectionplans.telark.io/v1alpha1", Kind: "ProtectionPlan", Name: "summer-freeze", UID: "plan-uid"}
	yes, no, absent := edgeValue(`true`), edgeValue(`false`), edge.Value{}
	cron := func(ns, name, uid string) edge.ObjectRef {
		return edge.ObjectRef{APIVersion: "batch/v1", Kind: "CronJob", Namespace: ns, Name: name, UID: types.UID("uid-" + uid)}
	}
	deploy := func(ns, name, uid string) edge.ObjectRef {
		return edge.ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Namespace: ns, Name: name, UID: types.UID("uid-" + uid)}
	}
	suspend := func(target edge.ObjectRef, captured edge.Value, st edge.State, skip edge.Skip, reason string) edge.Entry {
		return edge.Entry{Action: edge.SuspendCronJobs, Target: target, Pointer: "/spec/suspend", Captured: captured, Desired: yes, State: st, Skip: skip, Reason: reason, Attempts: 1}
	}
	scale := func(target edge.ObjectRef, captured string, st edge.State, skip edge.Skip, reason string) edge.Entry {
		return edge.Entry{Action: edge.ScaleTo, Target: target, Subresource: "scale", Pointer: "/spec/replicas", Captured: edgeValue(captured), Desired: edgeValue(`0`), State: st, Skip: skip, Reason: reason, Attempts: 1}
	}
	run := edge.Journal{Version: edge.JournalVersion, Plan: ref, Start: at("Thu Jul 23 2026 08:00:00"), CapturedAt: at("Thu Jul 23 2026 08:00:00"),
		RestoringSince: &restoring, Phase: edge.Done, AbandonedBy: `annotation protectionplans.telark.io/edge-abandon="alice"`,
		Entries: []edge.Entry{
			suspend(cron("shop", "report", "c1"), absent, edge.Restored, "", ""),
			suspend(cron("shop", "cleanup", "c2"), yes, edge.Skipped, edge.SkipStart, "already suspended: stays suspended, and is not touched at the end"),
			suspend(cron("shop", "digest", "c3"), no, edge.Skipped, edge.SkipChanged, "changed during the window to false: kept (the action does not overwrite; captured false)"),
			suspend(cron("payments", "settle", "c4"), absent, edge.Skipped, edge.SkipReplaced, "replaced (uid uid-c4, now uid-c9) at the end: nothing restored"),
			suspend(cron("payments", "refund", "c5"), absent, edge.Skipped, edge.SkipNotLanded, "the start's patch never landed: nothing to restore"),
			scale(deploy("shop", "web", "d1"), `3`, edge.Restored, "", ""),
			scale(deploy("payments", "api", "d2"), `2`, edge.Skipped, edge.SkipAbandoned,
				`abandoned by annotation protectionplans.telark.io/edge-abandon="alice" after: restore failed: field .spec.replicas is owned by field manager "helm" (not forced)`),
			scale(deploy("shop", "worker", "d3"), `1`, edge.Skipped, edge.SkipMissing, "missing at the end: nothing restored"),
		}}
	earlier := run
	earlier.Start, earlier.CapturedAt = at("Mon Jul 20 2026 08:00:00"), at("Mon Jul 20 2026 08:00:00")
	other := run
	other.Plan.UID = "an-earlier-plan-of-the-same-name"
	other.CapturedAt = at("Thu Jul 23 2026 09:00:00")
	return Input{Plan: res.Plan, Trigger: TriggerCancel, Now: at("Thu Jul 23 2026 12:00:05"),
		EdgeJournals: []edge.Journal{other, run, earlier}}
}

func edgeValue(s string) edge.Value { return edge.Value{Present: true, JSON: json.RawMessage(s)} }

func TestEdgeActions_EveryParticipantWithBothOutcomes(t *testing.T) {
	r := mustBuild(t, edgeRunInput(t))
	a := r.EdgeActions
	if a == nil || len(a.Windows) != 1 {
		t.Fatalf("edge actions %+v, want the run's one window (not the earlier run's, not another plan's)", a)
	}
	w := a.Windows[0]
	if w.Phase != edge.Done || w.RestoringSince == nil || !w.RestoringSince.Equal(at("Thu Jul 23 2026 12:00:00")) || !strings.Contains(w.AbandonedBy, "alice") {
		t.Errorf("window %+v: want done, restoring since 12:00, abandoned by alice", w)
	}
	if len(w.Actions) != 2 || w.Actions[0].Title != "Suspend CronJobs" || w.Actions[1].Name != edge.ScaleTo ||
		len(w.Actions[1].Parameters) != 1 || w.Actions[1].Parameters[0] != (Parameter{Name: "replicas", Value: "0"}) {
		t.Fatalf("actions %+v: want suspend-cronjobs, then scale-to with replicas = 0", w.Actions)
	}
	type outcomes struct{ start, restore EdgeOutcome }
	got := map[string]outcomes{}
	for _, act := range w.Actions {
		for _, p := range act.Participants {
			got[p.Target.Name] = outcomes{p.Start.Outcome, p.Restore.Outcome}
		}
	}
	tests := []struct {
		name   string
		object string
		want   outcomes
	}{
		{"a CronJob suspended at the start and restored at the end says both", "report", outcomes{EdgeApplied, EdgeRestored}},
		{"a CronJob already suspended was left alone and needs no restore", "cleanup", outcomes{EdgeStartSkipped, EdgeNotNeeded}},
		{"a value changed during the window was kept", "digest", outcomes{EdgeApplied, EdgeKept}},
		{"an object replaced during the window was not restored", "settle", outcomes{EdgeApplied, EdgeReplaced}},
		{"a start whose patch never landed needs no restore", "refund", outcomes{EdgeNotLanded, EdgeNotNeeded}},
		{"a Deployment scaled through /scale and restored says both", "web", outcomes{EdgeApplied, EdgeRestored}},
		{"a failed restore given up says abandoned", "api", outcomes{EdgeApplied, EdgeAbandoned}},
		{"an object deleted during the window was not restored", "worker", outcomes{EdgeApplied, EdgeMissing}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if g := got[tt.object]; g != tt.want {
				t.Errorf("%s: start %s, restore %s; want %s, %s", tt.object, g.start, g.restore, tt.want.start, tt.want.restore)
			}
		})
	}
	web := w.Actions[1].Participants[0]
	if web.Captured != "3" || web.Applied != "0" || web.Subresource != "scale" || web.Pointer != "/spec/replicas" || web.Target.UID != "uid-d1" {
		t.Errorf("web %+v: want /spec/replicas (scale) captured 3, applied 0, uid-d1", web)
	}
	if p := w.Actions[0].Participants[0]; p.Captured != "absent" || p.Applied != "true" {
		t.Errorf("report %+v: want captured absent, applied true", p)
	}
	checkSchema(t, mustRender(t, r, JSON))

	md := string(mustRender(t, r, Markdown))
	for _, want := range []string{"## Edge actions", "1 window, 8 participants: 6 changed at the start, 1 left alone; 2 restored, 1 kept as changed during the window, 2 missing or replaced at the end, 1 abandoned.",
		"### Window from 2026-07-23 08:00:00", "restore began 2026-07-23 12:00:00", "| Scale to (replicas = 0) | Deployment shop/web | uid-d1 | /spec/replicas (scale) | 3 | 0 | applied | restored |",
		"| kept (changed during the window): changed during the window to false", "| left alone: already suspended"} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown report lacks %q", want)
		}
	}
	checkMarkdownTables(t, md)
	html := string(mustRender(t, r, HTML))
	for _, want := range []string{"<h2>Edge actions</h2>", "<td>Deployment payments/api</td>", "abandoned: abandoned by annotation", "field manager &#34;helm&#34;"} {
		if !strings.Contains(html, want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
}

func TestEdgeActions_WhenTheSectionIsThere(t *testing.T) {
	tests := []struct {
		name    string
		change  func(in *Input)
		section bool
		text    string // in the Markdown, when there is a section
	}{{
		name:   "a plan without edge actions nor journals has no section",
		change: func(in *Input) { in.Plan.Spec.EdgeActions, in.EdgeJournals = nil, nil },
	}, {
		name:    "a plan whose actions never started says so",
		change:  func(in *Input) { in.EdgeJournals = nil },
		section: true,
		text:    "The plan has edge actions; none started during this run.",
	}, {
		name: "a report made while restores are pending says which",
		change: func(in *Input) {
			j := in.EdgeJournals[1]
			j.Entries = append([]edge.Entry(nil), j.Entries...)
			j.Entries[0].State, j.Phase = edge.Applied, edge.Restoring
			j.Entries[0].LastError = "Errored: etcdserver: request timed out"
			in.EdgeJournals = []edge.Journal{j}
		},
		section: true,
		text:    "applied (last error: Errored: etcdserver: request timed out) | pending |",
	}, {
		name:    "windows the embedder no longer kept are counted",
		change:  func(in *Input) { in.EdgeDropped = 3 },
		section: true,
		text:    "3 earlier windows of the run are no longer kept: not shown.",
	}, {
		name: "the same journal passed twice (kept and still in its Secret) is one window",
		change: func(in *Input) {
			in.EdgeJournals = []edge.Journal{in.EdgeJournals[1], in.EdgeJournals[1]}
		},
		section: true,
		text:    "1 window, 8 participants",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := edgeRunInput(t)
			tt.change(&in)
			r := mustBuild(t, in)
			if (r.EdgeActions != nil) != tt.section {
				t.Fatalf("section %+v, want present %v", r.EdgeActions, tt.section)
			}
			md := string(mustRender(t, r, Markdown))
			if !tt.section {
				if strings.Contains(md, "Edge actions") || strings.Contains(string(mustRender(t, r, JSON)), "edgeActions") {
					t.Error("a report without edge actions has the section")
				}
				return
			}
			if !strings.Contains(md, tt.text) {
				t.Errorf("the Markdown lacks %q:\n%s", tt.text, md)
			}
			checkSchema(t, mustRender(t, r, JSON))
		})
	}
}

func TestGolden_EdgeRun(t *testing.T) {
	r := mustBuild(t, edgeRunInput(t))
	for _, f := range []Format{HTML, Markdown, JSON} {
		t.Run(string(f), func(t *testing.T) {
			checkGolden(t, "edge_run.golden."+f.Extension(), mustRender(t, r, f))
		})
	}
}
