package overview

import (
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
)

// Row is a plan as a list of plans and the top of its page show it.
type Row struct {
	ID, Name, Description string
	Phase                 plan.Phase
	Mode                  plan.Mode
	Approval              plan.ApprovalMode
	Environment           string
	Tags                  []string
	// Window describes the window (the status's description).
	Window string
	// NextEdge is the window's next edge; nil when there is none.
	NextEdge *time.Time
	// Health is the stored health: the operator's last check.
	Health HealthLabel
	// Enforcement is the stored EnforcementVerified: does the freeze
	// really refuse (EnforcementOf).
	Enforcement HealthLabel
	// Scope is "applications a, b", "namespaces x, y", or "namespaces
	// selected by env=prod or team in (pay) (now: x, y)" (the namespaces
	// of status.coverage; "the whole cluster" for {}).
	Scope string
}

// RowOf is p's row.
func RowOf(p *plan.ProtectionPlan) Row {
	row := Row{ID: p.Name, Name: p.Spec.Name, Description: p.Spec.Description, Phase: p.Status.Phase,
		Mode: p.Spec.Mode, Approval: p.Spec.ApprovalMode, Environment: p.Spec.Environment, Tags: p.Spec.Tags,
		Window: p.Status.Window, Health: HealthOf(p), Enforcement: EnforcementOf(p)}
	if p.Status.NextEdge != nil {
		t := p.Status.NextEdge.Time
		row.NextEdge = &t
	}
	switch sc := p.Spec.Scope; sc.Type() {
	case plan.ScopeApplications:
		row.Scope = "applications " + strings.Join(sc.Applications, ", ")
	case plan.ScopeNamespaces:
		row.Scope = "namespaces " + strings.Join(sc.Namespaces, ", ")
	case plan.ScopeNamespaceSelectors:
		row.Scope = selectorsScope(sc, p.Status.Coverage)
	}
	return row
}

// selectorsScope says which namespaces a namespaceSelectors scope selects,
// and which it covers (status.coverage).
func selectorsScope(sc plan.Scope, coverage []plan.Coverage) string {
	what := "the whole cluster"
	if !plan.IsWholeCluster(sc.NamespaceSelectors) {
		sels := make([]string, len(sc.NamespaceSelectors))
		for i := range sc.NamespaceSelectors {
			sels[i] = metav1.FormatLabelSelector(&sc.NamespaceSelectors[i])
		}
		what = "namespaces selected by " + strings.Join(sels, " or ")
	}
	covered := make([]string, len(coverage))
	for i, c := range coverage {
		covered[i] = c.Namespace
	}
	if len(covered) == 0 {
		return what + " (now: none)"
	}
	return what + " (now: " + strings.Join(covered, ", ") + ")"
}

// Tone is how a label should look: a closed set, for style classes.
type Tone string

// Tones.
const (
	ToneOK    Tone = "ok"
	ToneMuted Tone = "muted"
	ToneBad   Tone = "bad"
)

// HealthLabel is a plan's stored health in words: a short Label, its
// Tone, and the condition's message as Detail.
type HealthLabel struct {
	Label  string
	Tone   Tone
	Detail string
}

// HealthOf reads p's stored PoliciesHealthy condition (the operator's
// last check): not checked yet (unknown or absent), healthy (the
// policies are in place), nothing deployed (true for another reason: a
// plan that is not active has none), or its reason in words ("Policies
// missing").
func HealthOf(p *plan.ProtectionPlan) HealthLabel {
	c := meta.FindStatusCondition(p.Status.Conditions, plan.ConditionPoliciesHealthy)
	switch {
	case c == nil || c.Status == metav1.ConditionUnknown:
		return HealthLabel{Label: "Not checked", Tone: ToneMuted, Detail: "health has not been checked yet"}
	case c.Status == metav1.ConditionTrue && c.Reason == health.ReasonInPlace:
		return HealthLabel{Label: "Healthy", Tone: ToneOK, Detail: c.Message}
	case c.Status == metav1.ConditionTrue:
		return HealthLabel{Label: "Nothing deployed", Tone: ToneMuted, Detail: c.Message}
	}
	return HealthLabel{Label: SplitCamel(c.Reason), Tone: ToneBad, Detail: c.Message}
}

// SplitCamel writes a CamelCase reason in words: "PoliciesMissing" is
// "Policies missing".
func SplitCamel(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
