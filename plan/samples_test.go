package plan

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// sampleCatalog mirrors the names, scopes and parameters of the real
// catalog (package render), which plan may not import.
var sampleCatalog = CatalogFunc(func(name string) (TemplateInfo, bool) {
	both := []ScopeType{ScopeApplications, ScopeNamespaces}
	kinds := []ParameterInfo{{Name: "kinds", Type: ParamStringList,
		Values: []string{"Deployment", "StatefulSet", "Job", "CronJob", "Service", "Ingress", "PersistentVolumeClaim"}}}
	switch name {
	case "create", "delete", "all-writes":
		return TemplateInfo{Name: name, Scopes: both, Parameters: kinds}, true
	case "scaling":
		return TemplateInfo{Name: name, Scopes: both, Parameters: []ParameterInfo{{Name: "direction", Type: ParamString, Values: []string{"any", "up", "down"}}}}, true
	case "image-change", "configmap-edits", "secret-edits", "storage", "rollout-restart":
		return TemplateInfo{Name: name, Scopes: both}, true
	}
	return TemplateInfo{}, false
})

// sampleCluster lists what the sample plans refer to.
var sampleCluster = fakeCluster{
	Namespaces:         []string{"shop", "payments", "telark-system", "kube-system"},
	ReleaseNamespace:   "telark-system",
	ExcludedNamespaces: []string{"kube-system"},
	Applications: []Application{
		{Name: "checkout", Namespaces: []string{"shop"}},
		{Name: "payments-api", Namespaces: []string{"payments"}, Members: []ResourceRef{
			{Kind: "Deployment", Name: "payments-api", Namespace: "payments"},
			{Kind: "Deployment", Name: "payments-migrations", Namespace: "payments"},
		}},
	},
}

// Every sample is valid at a fixed instant and today (issue 17: a sample
// with a time range had expired): the real clock is read here, a test's
// right, so a sample that will expire fails the day it does. Samples are
// recurring windows for that reason.
func TestSamplePlans_DecodeValidateAndCreate(t *testing.T) {
	now := at("Sun Nov 1 2026 10:00 UTC")
	env := ValidationEnv{Now: now, Catalog: sampleCatalog, Cluster: sampleCluster,
		Applications: sampleCluster, Names: sampleCluster}
	want := map[string]struct {
		phase  Phase
		window string
	}{
		"nightly-image-freeze.yaml": {PhaseScheduled, "every day at 22:00 Europe/Berlin for 8h"},
		"holiday-freeze.yaml":       {PhaseScheduled, "on 24 December at 18:00 Europe/Berlin for 60h"},
		"production-release.yaml":   {PhasePendingApproval, "every Monday to Friday at 09:00 Europe/Berlin for 10h"},
		"maintenance-windows.yaml":  {PhaseActive, `frozen outside: every Tuesday and Thursday at 10:00 Europe/Berlin for 2h, except on 2026-12-24 and the calendar in ConfigMap "holidays", key "de.ics"`},
	}
	files, err := filepath.Glob("../examples/plans/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if diff := cmp.Diff([]string{"holiday-freeze.yaml", "maintenance-windows.yaml", "nightly-image-freeze.yaml", "production-release.yaml"}, names); diff != "" {
		t.Fatalf("sample files (-want +got):\n%s", diff)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			body, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			defer body.Close()
			var p ProtectionPlan
			if err := Decode(body, &p); err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if p.APIVersion != "telark.io/v1alpha1" || p.Kind != "ProtectionPlan" || p.Name == "" {
				t.Errorf("type meta %q %q, name %q", p.APIVersion, p.Kind, p.Name)
			}
			if err := Validate(&p, env); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			today := env
			today.Now = time.Now()
			if err := Validate(&p, today); err != nil {
				t.Errorf("Validate today (%s): %v", today.Now.Format(time.RFC3339), err)
			}
			res, err := Create(&p, "alice", now)
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			w := want[filepath.Base(f)]
			if res.Plan.Status.Phase != w.phase || res.Plan.Status.Window != w.window {
				t.Errorf("phase %s, window %q; want %s, %q", res.Plan.Status.Phase, res.Plan.Status.Window, w.phase, w.window)
			}
		})
	}
}
