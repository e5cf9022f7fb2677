package health

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/window"
)

// now is the instant of every check: Thu Jul 23 12:00 2026 UTC, inside the
// window the live samples were rendered for.
var now = time.Date(2026, time.July, 23, 12, 0, 0, 0, time.UTC)

// earlier is when the plan's conditions were last set: Thu Jul 23 08:00
// 2026 UTC.
var earlier = time.Date(2026, time.July, 23, 8, 0, 0, 0, time.UTC)

// templates are the catalog's templates, in catalog order.
func templates() []string {
	var out []string
	for _, t := range render.Catalog() {
		out = append(out, t.Name())
	}
	return out
}

// samplePlan is the plan the live samples in ../render/testdata/live were
// rendered from (render's golden <template>_namespaces_enforce, one
// template each): "summer-freeze" on namespace shop, enforce, Thu Jul 23
// 00:00 to Fri Jul 24 06:00 Berlin, active, with the given templates (all
// of them by default) and namespaces (shop by default).
func samplePlan(namespaces []string, tmpls ...string) *plan.ProtectionPlan {
	if len(tmpls) == 0 {
		tmpls = templates()
	}
	if len(namespaces) == 0 {
		namespaces = []string{"shop"}
	}
	var refs []plan.TemplateRef
	for _, t := range tmpls {
		refs = append(refs, plan.TemplateRef{Name: t})
	}
	berlin, _ := time.LoadLocation("Europe/Berlin")
	start := metav1.NewTime(time.Date(2026, time.July, 23, 0, 0, 0, 0, berlin))
	end := metav1.NewTime(time.Date(2026, time.July, 24, 6, 0, 0, 0, berlin))
	p := &plan.ProtectionPlan{
		ObjectMeta: metav1.ObjectMeta{Name: "summer-freeze", Generation: 3},
		Spec: plan.Spec{
			Name:         "Summer freeze",
			Scope:        plan.Scope{Namespaces: namespaces},
			Templates:    refs,
			Window:       window.Spec{Type: window.TimeRange, StartAt: &start, EndAt: &end, TimeZone: "Europe/Berlin"},
			Mode:         plan.ModeEnforce,
			ApprovalMode: plan.ApprovalAutomatic,
		},
		Status: plan.Status{Phase: plan.PhaseActive},
	}
	plan.SetCondition(p, metav1.Condition{Type: plan.ConditionReady, Status: metav1.ConditionTrue,
		Reason: "Active", Message: "the window is open until 2026-07-24T04:00:00Z"}, earlier)
	return p
}

func mustRender(t testing.TB, p *plan.ProtectionPlan) render.Result {
	t.Helper()
	res, err := render.Render(render.Input{Plan: p, Now: now})
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	return res
}

// liveSample reads ../render/testdata/live/<template>.json: a Policy as a
// real API server with Kyverno returned it after a server-side apply.
func liveSample(t testing.TB, template string) *unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "render", "testdata", "live", template+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var o unstructured.Unstructured
	if err := json.Unmarshal(b, &o.Object); err != nil {
		t.Fatal(err)
	}
	return &o
}

// liveSamples reads the live samples of the given templates (all by
// default).
func liveSamples(t testing.TB, tmpls ...string) []*unstructured.Unstructured {
	t.Helper()
	if len(tmpls) == 0 {
		tmpls = templates()
	}
	var out []*unstructured.Unstructured
	for _, tm := range tmpls {
		out = append(out, liveSample(t, tm))
	}
	return out
}

// served makes a rendered object look read back from a server: a deep
// copy with uid, resourceVersion, generation, creationTimestamp,
// managedFields and a status.
func served(o *unstructured.Unstructured, i int) *unstructured.Unstructured {
	c := o.DeepCopy()
	md := c.Object["metadata"].(map[string]any)
	md["uid"] = fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
	md["resourceVersion"] = fmt.Sprint(1000 + i)
	md["generation"] = int64(1)
	md["creationTimestamp"] = "2026-07-23T00:00:05Z"
	md["managedFields"] = []any{map[string]any{
		"apiVersion": c.GetAPIVersion(), "fieldsType": "FieldsV1", "manager": "protectionplans",
		"operation": "Apply", "time": "2026-07-23T00:00:05Z",
		"fieldsV1": map[string]any{"f:spec": map[string]any{"f:rules": map[string]any{}}},
	}}
	c.Object["status"] = map[string]any{
		"conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": "Succeeded", "message": "Ready"}},
		"rulecount":  map[string]any{"validate": int64(1)},
	}
	return c
}

// servedAll serves every object of a render.
func servedAll(res render.Result) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for i, o := range res.Objects() {
		out = append(out, served(o, i))
	}
	return out
}
