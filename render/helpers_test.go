package render

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/")

// now is the fixed instant every test renders at: Thu Jul 23 12:00 2026 UTC.
var now = time.Date(2026, time.July, 23, 12, 0, 0, 0, time.UTC)

// freezeWindow is a time range around now, in Berlin: from Thu Jul 23
// 00:00 to Fri Jul 24 06:00 CEST.
func freezeWindow() window.Spec {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	start := metav1.NewTime(time.Date(2026, time.July, 23, 0, 0, 0, 0, berlin))
	end := metav1.NewTime(time.Date(2026, time.July, 24, 6, 0, 0, 0, berlin))
	return window.Spec{Type: window.TimeRange, StartAt: &start, EndAt: &end, TimeZone: "Europe/Berlin"}
}

// namespacePlan is an active plan on namespaces.
func namespacePlan(mode plan.Mode, namespaces []string, templates ...plan.TemplateRef) *plan.ProtectionPlan {
	return &plan.ProtectionPlan{
		ObjectMeta: metav1.ObjectMeta{Name: "summer-freeze"},
		Spec: plan.Spec{
			Name:      "Summer freeze",
			Scope:     plan.Scope{Namespaces: namespaces},
			Templates: templates,
			Window:    freezeWindow(),
			Mode:      mode,
		},
		Status: plan.Status{Phase: plan.PhaseActive},
	}
}

// appPlan is an active plan on the application "checkout".
func appPlan(mode plan.Mode, templates ...plan.TemplateRef) *plan.ProtectionPlan {
	p := namespacePlan(mode, nil, templates...)
	p.Name = "checkout-freeze"
	p.Spec.Name = "Checkout freeze"
	p.Spec.Scope = plan.Scope{Applications: []string{"checkout"}}
	return p
}

// checkoutApp lives in "shop" and selects app=checkout, tier in (api, web).
func checkoutApp() plan.Application {
	return plan.Application{
		Name:       "checkout",
		Namespaces: []string{"shop"},
		Selector: &metav1.LabelSelector{
			MatchLabels: map[string]string{"app": "checkout"},
			MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"web", "api"}},
			},
		},
		Members: []plan.ResourceRef{{Kind: "Deployment", Name: "web", Namespace: "shop"}},
	}
}

func tpl(name string) plan.TemplateRef { return plan.TemplateRef{Name: name} }

func tplWith(name, param, value string) plan.TemplateRef {
	return plan.TemplateRef{Name: name, Parameters: map[string]string{param: value}}
}

// allTemplates lists every template of the catalog.
func allTemplates() []plan.TemplateRef {
	var out []plan.TemplateRef
	for _, t := range Catalog() {
		out = append(out, tpl(t.Name()))
	}
	return out
}

func mustRender(t testing.TB, in Input) Result {
	t.Helper()
	res, err := Render(in)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	return res
}

func mustYAML(t testing.TB, res Result) []byte {
	t.Helper()
	y, err := res.YAML()
	if err != nil {
		t.Fatalf("YAML: %v", err)
	}
	return y
}

// checkGolden compares got with testdata/<name>.golden, or rewrites it
// with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if name == "explain_corpus" {
		path = filepath.Join("testdata", name+".json")
	}
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./render/ -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
