package plan

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/window"
)

// at parses a readable time such as "Thu Dec 24 2026 22:00 Europe/Berlin"
// (the weekday is checked, so a wrong one fails the test).
func at(s string) time.Time {
	i := strings.LastIndexByte(s, ' ')
	loc, err := time.LoadLocation(s[i+1:])
	if err != nil {
		panic(err)
	}
	t, err := time.ParseInLocation("Mon Jan 2 2006 15:04", s[:i], loc)
	if err != nil {
		panic(err)
	}
	return t
}

func mt(s string) *metav1.Time { return &metav1.Time{Time: at(s)} }

// testCatalog holds the stable template names of the catalog.
var testCatalog = CatalogFunc(func(name string) (TemplateInfo, bool) {
	both := []ScopeType{ScopeApplications, ScopeNamespaces}
	switch name {
	case "create", "delete", "configmap-edits", "secret-edits", "storage", "rollout-restart":
		return TemplateInfo{Name: name, Scopes: both}, true
	case "image-change":
		return TemplateInfo{Name: name, Scopes: []ScopeType{ScopeApplications}, Parameters: []ParameterInfo{
			{Name: "allowedRegistries", Type: ParamStringList},
		}}, true
	case "scaling":
		return TemplateInfo{Name: name, Scopes: both, Parameters: []ParameterInfo{
			{Name: "maxReplicas", Type: ParamInteger},
			{Name: "allowScaleDown", Type: ParamBoolean},
			{Name: "grace", Type: ParamDuration},
		}}, true
	case "all-writes":
		return TemplateInfo{Name: name, Scopes: []ScopeType{ScopeNamespaces}}, true
	}
	return TemplateInfo{}, false
})

func testSnapshot() fakeCluster {
	return fakeCluster{
		Namespaces:         []string{"shop", "payments", "telark-system", "kube-system", "monitoring"},
		ReleaseNamespace:   "telark-system",
		ExcludedNamespaces: []string{"kube-system"},
		Plans:              []fakePlanName{{ID: "xmas", Name: "Christmas freeze"}},
		Applications: []Application{
			{Name: "checkout", Namespaces: []string{"shop"}, Members: []ResourceRef{
				{Kind: "Deployment", Name: "checkout", Namespace: "shop"},
				{Kind: "ConfigMap", Name: "checkout-config", Namespace: "shop"},
			}},
			{Name: "cart", Namespaces: []string{"shop"}},
		},
	}
}

func testEnv(now time.Time) ValidationEnv {
	snap := testSnapshot()
	return ValidationEnv{Now: now, Catalog: testCatalog, Cluster: snap, Applications: snap, Names: snap}
}

// nightly is a valid applications plan: every night 22:00 Berlin for 8h.
func nightly() *ProtectionPlan {
	return &ProtectionPlan{
		TypeMeta:   metav1.TypeMeta{APIVersion: "telark.io/v1alpha1", Kind: "ProtectionPlan"},
		ObjectMeta: metav1.ObjectMeta{Name: "nightly"},
		Spec: Spec{
			Name:      "Nightly image freeze",
			Scope:     Scope{Applications: []string{"checkout"}},
			Templates: []TemplateRef{{Name: "image-change"}},
			Window: window.Spec{Type: window.Recurring, TimeZone: "Europe/Berlin",
				Schedules: []window.Schedule{{Cron: "0 22 * * *", Duration: "8h"}}},
			Mode: ModeEnforce,
		},
	}
}

// holiday is a valid namespaces plan: Dec 24 18:00 to Dec 27 06:00 Berlin.
func holiday() *ProtectionPlan {
	return &ProtectionPlan{
		ObjectMeta: metav1.ObjectMeta{Name: "holiday"},
		Spec: Spec{
			Name:      "Holiday freeze",
			Scope:     Scope{Namespaces: []string{"shop", "payments"}},
			Templates: []TemplateRef{{Name: "all-writes"}},
			Window: window.Spec{Type: window.TimeRange,
				StartAt: mt("Thu Dec 24 2026 18:00 Europe/Berlin"),
				EndAt:   mt("Sun Dec 27 2026 06:00 Europe/Berlin")},
			Mode:         ModeAudit,
			ApprovalMode: ApprovalAutomatic,
		},
	}
}

// required returns p with approval required.
func required(p *ProtectionPlan) *ProtectionPlan {
	p.Spec.ApprovalMode = ApprovalRequired
	return p
}

// fieldErr is the part of a field error a test asserts.
type fieldErr struct {
	Type   field.ErrorType
	Field  string
	Detail string
}

func fieldErrs(errs field.ErrorList) []fieldErr {
	var out []fieldErr
	for _, e := range errs {
		out = append(out, fieldErr{e.Type, e.Field, e.Detail})
	}
	return out
}

// mustCreate creates p at now or fails the test.
func mustCreate(t *testing.T, p *ProtectionPlan, actor string, now time.Time) *ProtectionPlan {
	t.Helper()
	res, err := Create(p, actor, now)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return res.Plan
}

func eventTypes(evs []TimelineEvent) []EventType {
	var out []EventType
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

// approve does what the approval package does on approval.
func approve(p *ProtectionPlan, by string, now time.Time) *ProtectionPlan {
	p = p.DeepCopy()
	p.Status.LastDecision = &ApprovalDecision{RequestID: p.Status.ApprovalRequest.ID,
		Decision: DecisionApproved, DecidedBy: by, DecidedAt: metav1.NewTime(now)}
	p.Status.ApprovalRequest, p.Status.Proposers = nil, nil
	AppendEvent(p, TimelineEvent{Time: metav1.NewTime(now), Type: EventApproved, Actor: by})
	return Tick(p, now).Plan
}
