package report

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/violations"
)

// breakGlassInput is the on-demand report of the active summer freeze
// with three grants: one in force with two writes of its user (and a
// write of another exempt requester, which is not the grant's), one
// revoked before it was granted, one of last week (before the run).
func breakGlassInput() Input {
	p := activeNamespacesPlan()
	t := func(s string) *metav1.Time { x := metav1.NewTime(at(s)); return &x }
	p.Status.Grants = []plan.Grant{
		{ID: "summer-freeze-g0", Users: []string{"old"}, Reason: "last week", RequestedBy: "old", RequestedAt: *t("Thu Jul 16 2026 08:00:00"),
			GrantedBy: "alice", GrantedAt: t("Thu Jul 16 2026 08:01:00"), ExpiresAt: t("Thu Jul 16 2026 09:01:00")},
		{ID: "summer-freeze-g1", Users: []string{"carol"}, Reason: `INC-4711 <script>alert(1)</script> | =cmd`, RequestedBy: "carol",
			RequestedAt: *t("Thu Jul 23 2026 09:00:00"), GrantedBy: "alice", GrantedAt: t("Thu Jul 23 2026 09:05:00"), ExpiresAt: t("Thu Jul 23 2026 10:05:00")},
		{ID: "summer-freeze-g2", Users: []string{"dave"}, Reason: "withdrawn", RequestedBy: "dave",
			RequestedAt: *t("Thu Jul 23 2026 09:30:00"), RevokedBy: "dave", RevokedAt: t("Thu Jul 23 2026 09:31:00")},
	}
	record := func(user, when string) violations.Violation {
		return violations.Violation{Key: user + when, Plan: "summer-freeze", Template: render.ExemptTemplate, Policy: "summer-freeze-exempt",
			PolicyNamespace: "shop", Rule: "delete", Resource: violations.Resource{Kind: "Deployment", Namespace: "shop", Name: "web"},
			Result: violations.ResultFail, Message: "exempt requester " + user + " admitted by protection plan Summer freeze: deleting resources",
			Requester: user, Timestamp: at(when), FirstSeen: at(when), Count: 1, Source: violations.SourceEvent}
	}
	return Input{Plan: p, Trigger: TriggerManual, Now: at("Thu Jul 23 2026 12:00:00"),
		Policies: []PolicyInfo{{Namespace: "shop", Name: "summer-freeze-delete", Template: "delete", Target: string(render.TargetKyverno)}},
		Violations: []violations.Violation{
			record("carol", "Thu Jul 23 2026 09:04:59"), // before the grant
			record("carol", "Thu Jul 23 2026 09:10:00"),
			record("carol", "Thu Jul 23 2026 10:00:00"),
			record("carol", "Thu Jul 23 2026 10:05:00"), // at the expiry: not under it
			record("release-bot", "Thu Jul 23 2026 09:20:00"),
		}}
}

func TestBreakGlassSection(t *testing.T) {
	r := mustBuild(t, breakGlassInput())
	b := r.BreakGlass
	if b == nil || len(b.Grants) != 2 {
		t.Fatalf("grants %+v, want g1 and g2 (g0 ended before the run)", b)
	}
	g1, g2 := b.Grants[0], b.Grants[1]
	if g1.ID != "summer-freeze-g1" || g1.State != plan.GrantExpired || len(g1.Writes) != 2 ||
		!g1.Writes[0].At.Equal(at("Thu Jul 23 2026 09:10:00")) || g1.Writes[1].Requester != "carol" {
		t.Errorf("g1 %+v: want expired with carol's two writes while it was in force", g1)
	}
	if g2.State != plan.GrantRevoked || len(g2.Writes) != 0 || g2.GrantedAt != nil {
		t.Errorf("g2 %+v: want revoked, never granted, no writes", g2)
	}
	if b.Note != "" {
		t.Errorf("a kyverno run has a note: %q", b.Note)
	}
	checkSchema(t, mustRender(t, r, JSON))

	html := string(mustRender(t, r, HTML))
	for _, want := range []string{"<h2>Break-glass grants</h2>", "summer-freeze-g1", "INC-4711 &lt;script&gt;alert(1)&lt;/script&gt;", "revoked by dave", "2 writes"} {
		if !strings.Contains(html, want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	if strings.Contains(html, "<script>alert") {
		t.Error("the HTML report carries the reason unescaped")
	}
	md := string(mustRender(t, r, Markdown))
	for _, want := range []string{"## Break-glass grants", "summer-freeze-g1", "expires 2026-07-23 10:05:00"} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown report lacks %q", want)
		}
	}
	if strings.Contains(md, "| =cmd") && !strings.Contains(md, `\| =cmd`) {
		t.Error("the reason's | opens a new Markdown cell")
	}

	// Without grants there is no section at all.
	in := breakGlassInput()
	in.Plan.Status.Grants = nil
	if r := mustBuild(t, in); r.BreakGlass != nil || strings.Contains(string(mustRender(t, r, HTML)), "Break-glass") {
		t.Error("a run without grants has a break-glass section")
	}
	// With vap, the writes are not among the violations: the report says so.
	in = breakGlassInput()
	in.Policies[0].Target = string(render.TargetVAP)
	if r := mustBuild(t, in); r.BreakGlass == nil || !strings.Contains(r.BreakGlass.Note, "API server's audit log") {
		t.Errorf("a vap run's section has no note: %+v", r.BreakGlass)
	}
}
