package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/violations"
)

func TestValidate(t *testing.T) {
	runGolden(t, []goldenCase{
		{name: "validate_holiday", code: 0,
			args: []string{"validate", "-f", holiday, "--cluster", cluster, "--now", "2026-11-01T10:00:00Z"}},
		{name: "validate_holiday_offline", code: 0,
			args: []string{"validate", "-f", holiday, "--now", "2026-11-01T10:00:00Z"}},
		{name: "validate_nightly_json", code: 0,
			args: []string{"validate", "-f", nightly, "--cluster", cluster, "--now", "2026-11-01T10:00:00Z", "-o", "json"}},
		{name: "validate_holiday_namespaces_yaml", code: 0,
			args: []string{"validate", "-f", holiday, "--namespaces", "shop,payments", "--now", "2026-11-01T10:00:00Z", "-o", "yaml"}},
		{name: "validate_production_ended", code: 1,
			args: []string{"validate", "-f", "testdata/q4-release-2026.yaml", "--cluster", cluster, "--now", "2026-12-01T00:00:00Z", "-o", "table"}},
		{name: "validate_invalid", code: 1,
			args: []string{"validate", "-f", "testdata/invalid.yaml", "--cluster", cluster, "--now", "2026-11-01T10:00:00Z"}},
		{name: "validate_invalid_json", code: 1,
			args: []string{"validate", "-f", "testdata/invalid.yaml", "--cluster", cluster, "--now", "2026-11-01T10:00:00Z", "-o", "json"}},
		{name: "validate_unknown_fields", code: 1,
			args: []string{"validate", "-f", "testdata/unknown-fields.yaml"}},
		{name: "validate_namespace_missing", code: 1,
			args: []string{"validate", "-f", holiday, "--namespaces", "shop", "--now", "2026-11-01T10:00:00Z"}},
	})
}

func TestValidate_DefaultNowIsTheClock(t *testing.T) {
	// The test clock is Sun Nov 1 2026: the production release window
	// (Nov 16 to 20) has not ended yet, so the plan is valid.
	res := protectctl(t, "", "validate", "-f", production, "--cluster", cluster)
	if res.code != 0 {
		t.Fatalf("exit status %d: %s%s", res.code, res.stdout, res.stderr)
	}
}

func TestValidate_ReadsStandardInput(t *testing.T) {
	body, err := os.ReadFile(holiday)
	if err != nil {
		t.Fatal(err)
	}
	res := protectctl(t, string(body), "validate", "-f", "-", "--now", "2026-11-01T10:00:00Z")
	if res.code != 0 || res.stdout != "-: valid (cluster checks skipped: no --cluster)\n" {
		t.Errorf("exit status %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
}

func TestRender(t *testing.T) {
	runGolden(t, []goldenCase{
		{name: "render_holiday", code: 0,
			args: []string{"render", "-f", holiday, "--now", "2026-12-25T12:00:00+01:00"}},
		{name: "render_nightly", code: 0,
			args: []string{"render", "-f", nightly, "--cluster", cluster, "--now", "2026-11-30T23:00:00+01:00"}},
		{name: "render_production_json", code: 0,
			args: []string{"render", "-f", production, "--cluster", cluster, "--now", "2026-11-18T12:00:00Z", "-o", "json"}},
		{name: "render_holiday_scheduled", code: 0,
			args:   []string{"render", "-f", holiday, "--now", "2026-12-20T12:00:00+01:00"},
			stderr: "protectctl: no policies: plan holiday-freeze is scheduled at 2026-12-20T12:00:00+01:00; its window opens at 2026-12-24T18:00:00+01:00\n"},
		{name: "render_production_pending", code: 0,
			args:   []string{"render", "-f", production, "--cluster", cluster, "--now", "2026-11-18T12:00:00Z", "--pending"},
			stderr: "protectctl: no policies: plan production-release is pending_approval at 2026-11-18T12:00:00Z (waiting for approval)\n"},
		{name: "render_holiday_kyverno-cel", code: 0,
			args: []string{"render", "-f", holiday, "--now", "2026-12-25T12:00:00+01:00", "--target", "kyverno-cel"}},
		{name: "render_holiday_vap", code: 0,
			args: []string{"render", "-f", holiday, "--now", "2026-12-25T12:00:00+01:00", "--target", "vap"}},
		{name: "render_nightly_kyverno-cel", code: 0,
			args: []string{"render", "-f", nightly, "--cluster", cluster, "--now", "2026-11-30T23:00:00+01:00", "--target", "kyverno-cel"}},
		{name: "render_nightly_vap_json", code: 0,
			args: []string{"render", "-f", nightly, "--cluster", cluster, "--now", "2026-11-30T23:00:00+01:00", "--target", "vap", "-o", "json"}},
		{name: "render_nightly_vap_compact", code: 0,
			args: []string{"render", "-f", nightly, "--cluster", cluster, "--now", "2026-11-30T23:00:00+01:00", "--target", "vap", "--compact"}},
		{name: "render_holiday_kyverno-cel_compact", code: 0,
			args: []string{"render", "-f", holiday, "--now", "2026-12-25T12:00:00+01:00", "--target", "kyverno-cel", "--compact"}},
		{name: "render_holiday_kyverno_compact", code: 0,
			args: []string{"render", "-f", holiday, "--now", "2026-12-25T12:00:00+01:00", "--compact"}},
		{name: "render_calendar_night_before_holiday", code: 0,
			args: []string{"render", "-f", "testdata/nightly-holidays.yaml", "--namespaces", "shop", "--now", "2026-04-02T23:00:00+02:00",
				"--calendar", "holidays/de.ics=../../calendar/testdata/holidays.ics"}},
		{name: "render_calendar_on_the_holiday", code: 0,
			args: []string{"render", "-f", "testdata/nightly-holidays.yaml", "--namespaces", "shop", "--now", "2026-04-03T23:00:00+02:00",
				"--calendar", "holidays/de.ics=../../calendar/testdata/holidays.ics"},
			stderr: "protectctl: no policies: plan nightly is scheduled at 2026-04-03T23:00:00+02:00; its window opens at 2026-04-04T00:00:00+02:00\n"},
		{name: "render_calendar_not_given", code: 0,
			args:   []string{"render", "-f", "testdata/nightly-holidays.yaml", "--namespaces", "shop", "--now", "2026-04-03T23:00:00+02:00"},
			stderr: "protectctl: testdata/nightly-holidays.yaml: spec.window.except: ConfigMap \"holidays\" has no key \"de.ics\" (or does not exist); until it is read, the freeze holds on its dates too (give its ICS file with --calendar NAME/KEY=FILE)\n"},
		{name: "render_holiday_ended_json", code: 0,
			args:   []string{"render", "-f", "testdata/q4-release-2026.yaml", "--cluster", cluster, "--now", "2027-01-04T09:00:00+01:00", "-o", "json"},
			stderr: "protectctl: no policies: plan q4-release-2026 is terminated at 2027-01-04T09:00:00+01:00\n"},
	})
}

// The render is a YAML stream kubectl apply -f - accepts: documents of
// kyverno.io/v1 Policy, one per template and namespace, each with the plan
// label and a render hash.
func TestRender_IsAnApplyableStream(t *testing.T) {
	res := protectctl(t, "", "render", "-f", holiday, "--now", "2026-12-25T12:00:00+01:00")
	if res.code != 0 {
		t.Fatalf("exit status %d: %s", res.code, res.stderr)
	}
	objs := decodeStream(t, res.stdout)
	var got []string
	for _, o := range objs {
		if o.GetAPIVersion() != "kyverno.io/v1" || o.GetKind() != "Policy" {
			t.Errorf("%s %s", o.GetAPIVersion(), o.GetKind())
		}
		if o.GetLabels()["telark.io/protection-plan"] != "holiday-freeze" || o.GetAnnotations()["telark.io/render-hash"] == "" {
			t.Errorf("%s/%s: labels %v annotations %v", o.GetNamespace(), o.GetName(), o.GetLabels(), o.GetAnnotations())
		}
		got = append(got, o.GetNamespace()+"/"+o.GetName())
	}
	want := []string{
		"payments/holiday-freeze-create", "payments/holiday-freeze-delete", "payments/holiday-freeze-scaling",
		"shop/holiday-freeze-create", "shop/holiday-freeze-delete", "shop/holiday-freeze-scaling",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("policies %v, want %v", got, want)
	}
}

// A hostile display name reaches the policies only base64-encoded: the
// stream still holds exactly the rendered objects, and the message decodes
// to the name.
func TestRender_HostileNameStaysData(t *testing.T) {
	res := protectctl(t, "", "render", "-f", "testdata/hostile.yaml", "--now", "2026-03-09T06:00:00Z")
	if res.code != 0 {
		t.Fatalf("exit status %d: %s", res.code, res.stderr)
	}
	name := `x"; evil: $(whoami) --- # ,;\ END:VCALENDAR`
	if strings.Contains(res.stdout, "whoami") || strings.Contains(res.stdout, "evil") {
		t.Errorf("the plan's name reached the YAML as text:\n%s", res.stdout)
	}
	objs := decodeStream(t, res.stdout)
	if len(objs) != 1 || objs[0].GetName() != "hostile-delete" {
		t.Fatalf("objects: %d", len(objs))
	}
	rules, _, _ := unstructured.NestedSlice(objs[0].Object, "spec", "rules")
	msg, _, _ := unstructured.NestedString(rules[0].(map[string]any), "validate", "message")
	enc := strings.TrimSuffix(strings.TrimPrefix(msg, "{{- base64_decode('"), "') }}")
	text, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || !strings.Contains(string(text), "protection plan "+name+" until") {
		t.Errorf("message %q decodes to %q (%v)", msg, text, err)
	}
}

func decodeStream(t *testing.T, stream string) []*unstructured.Unstructured {
	t.Helper()
	rd := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(stream)))
	var out []*unstructured.Unstructured
	for {
		doc, err := rd.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(bytes.TrimSpace(doc)) == 0 || string(bytes.TrimSpace(doc)) == "---" {
			continue
		}
		var obj map[string]any
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			t.Fatalf("%v in:\n%s", err, doc)
		}
		out = append(out, &unstructured.Unstructured{Object: obj})
	}
}

func TestWindows(t *testing.T) {
	runGolden(t, []goldenCase{
		{name: "windows_nightly", code: 0,
			args: []string{"windows", "-f", nightly, "--from", "2026-10-20T00:00:00Z", "--to", "2026-11-03T00:00:00Z"}},
		{name: "windows_calendar", code: 0,
			args: []string{"windows", "-f", "testdata/nightly-holidays.yaml", "--now", "2026-04-01T12:00:00+02:00", "--to", "2026-04-08T00:00:00+02:00",
				"--calendar", "holidays/de.ics=../../calendar/testdata/holidays.ics"}},
		{name: "windows_holiday_yaml", code: 0,
			args: []string{"windows", "-f", holiday, "-o", "yaml"}},
		{name: "windows_production_json", code: 0,
			args: []string{"windows", "-f", production, "--now", "2026-11-01T00:00:00Z", "-o", "json"}},
		{name: "windows_permanent", code: 0,
			args: []string{"windows", "-f", "testdata/permanent.yaml", "--now", "2026-11-20T00:00:00Z"}},
		{name: "windows_hostile_dst", code: 0,
			args: []string{"windows", "-f", "testdata/hostile.yaml", "--from", "2026-03-07T00:00:00Z", "--to", "2026-03-10T00:00:00Z"}},
		{name: "windows_none", code: 0,
			args: []string{"windows", "-f", holiday, "--from", "2027-01-01T00:00:00Z"}},
	})
}

func TestExplain(t *testing.T) {
	runGolden(t, []goldenCase{
		{name: "explain_scale_blocked", code: 1,
			args: []string{"explain", "-f", production, "--cluster", cluster, "--request", requests + "scale-payments-api.yaml", "--now", "2026-11-18T12:00:00Z"}},
		{name: "explain_selectors_with_labels", code: 1,
			args: []string{"explain", "-f", "testdata/lint-selectors/plans.yaml", "--cluster", "testdata/lint-selectors-cluster.yaml",
				"--request", requests + "review-image-change.json", "--now", "2026-03-10T01:00:00+01:00"}},
		{name: "explain_selectors_without_labels", code: 1,
			args: []string{"explain", "-f", "testdata/lint-selectors/plans.yaml", "--cluster", cluster,
				"--request", requests + "review-image-change.json", "--now", "2026-03-10T01:00:00+01:00"}},
		{name: "explain_scale_excluded", code: 0,
			args: []string{"explain", "-f", production, "--cluster", cluster, "--request", requests + "scale-payments-migrations.yaml", "--now", "2026-11-18T12:00:00Z"}},
		{name: "explain_scale_other_app", code: 0,
			args: []string{"explain", "-f", production, "--cluster", cluster, "--request", requests + "scale-payments-api.yaml", "--labels", "app.kubernetes.io/part-of=ledger", "--now", "2026-11-18T12:00:00Z"}},
		{name: "explain_review_blocked_json", code: 1,
			args: []string{"explain", "-f", nightly, "--cluster", cluster, "--request", requests + "review-image-change.json", "--now", "2026-11-30T23:00:00+01:00", "-o", "json"}},
		{name: "explain_review_daytime_yaml", code: 0,
			args: []string{"explain", "-f", nightly, "--cluster", cluster, "--request", requests + "review-image-change.json", "--now", "2026-11-30T12:00:00+01:00", "-o", "yaml"}},
		{name: "explain_delete_audited", code: 1,
			args: []string{"explain", "-f", holiday, "--request", requests + "delete-deployment.yaml", "--now", "2026-12-25T12:00:00+01:00"}},
		{name: "explain_delete_configmap_table", code: 0,
			args: []string{"explain", "-f", holiday, "--request", requests + "delete-configmap.yaml", "--now", "2026-12-25T12:00:00+01:00", "-o", "table"}},
		{name: "explain_scale_blocked_vap_compact", code: 1,
			args: []string{"explain", "-f", production, "--cluster", cluster, "--request", requests + "scale-payments-api.yaml", "--now", "2026-11-18T12:00:00Z", "--target", "vap", "--compact"}},
		{name: "explain_delete_audited_kyverno-cel", code: 1,
			args: []string{"explain", "-f", holiday, "--request", requests + "delete-deployment.yaml", "--now", "2026-12-25T12:00:00+01:00", "--target", "kyverno-cel"}},
		{name: "explain_production_pending", code: 0,
			args: []string{"explain", "-f", production, "--cluster", cluster, "--request", requests + "scale-payments-api.yaml", "--now", "2026-11-18T12:00:00Z", "--pending"}},
	})
}

// An AdmissionReview of kubectl scale carries the Scale's kind; explain
// reads the parent's kind from the resource, as Kyverno does.
func TestExplain_ScaleReviewUsesTheParentKind(t *testing.T) {
	review := `{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
	  "uid": "1", "kind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
	  "resource": {"group": "apps", "version": "v1", "resource": "deployments"}, "subResource": "scale",
	  "name": "payments-api", "namespace": "payments", "operation": "UPDATE", "userInfo": {"username": "alice"},
	  "object": {"apiVersion": "autoscaling/v1", "kind": "Scale", "spec": {"replicas": 6}},
	  "oldObject": {"apiVersion": "autoscaling/v1", "kind": "Scale", "spec": {"replicas": 3}}}}`
	res := protectctl(t, review, "explain", "-f", production, "--cluster", cluster, "--request", "-",
		"--labels", "app.kubernetes.io/part-of=payments-api", "--now", "2026-11-18T12:00:00Z", "-o", "json")
	var ex explanation
	if err := json.Unmarshal([]byte(res.stdout), &ex); err != nil {
		t.Fatalf("%v: %s %s", err, res.stdout, res.stderr)
	}
	if res.code != 1 || !ex.Blocked || ex.Template != "scaling" || ex.Request != "UPDATE Deployment payments/payments-api (scale) by alice" {
		t.Errorf("exit status %d, %+v", res.code, ex)
	}
}

func TestTemplates(t *testing.T) {
	runGolden(t, []goldenCase{
		{name: "templates", code: 0, args: []string{"templates"}},
		{name: "templates_yaml", code: 0, args: []string{"templates", "-o", "yaml"}},
	})
}

func TestReport(t *testing.T) {
	base := []string{"report", "-f", holiday, "--ledger", ledger, "--now", "2026-12-28T09:00:00+01:00"}
	with := func(args ...string) []string { return append(append([]string(nil), base...), args...) }
	runGolden(t, []goldenCase{
		{name: "report_holiday_md", code: 0, args: with()},
		{name: "report_holiday_json", code: 0, args: with("-o", "json")},
		{name: "report_holiday_csv", code: 0, args: with("-o", "csv")},
		{name: "report_holiday_html", code: 0, args: with("--format", "html")}, // -o's former name
		{name: "report_nightly_manual_md", code: 0,
			args: []string{"report", "-f", nightly, "--cluster", cluster, "--ledger", "testdata/nightly.ledger.json", "--now", "2026-11-03T12:00:00Z"}},
	})
}

func TestReport_WritesTheFileNamedByOutputFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "holiday.html")
	res := protectctl(t, "", "report", "-f", holiday, "--ledger", ledger, "--now", "2026-12-28T09:00:00+01:00", "--output-file", out)
	if res.code != 0 || res.stdout != "" {
		t.Fatalf("exit status %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The format comes from the extension.
	if !bytes.HasPrefix(page, []byte("<!DOCTYPE html>")) {
		t.Errorf("not HTML: %.80s", page)
	}
}

// Every command's --help shows an example.
func TestHelp_ShowsAnExampleForEveryCommand(t *testing.T) {
	for _, cmd := range []string{"", "validate", "render", "windows", "explain", "report", "templates", "version"} {
		t.Run("help "+cmd, func(t *testing.T) {
			args := strings.Fields(cmd + " --help")
			res := protectctl(t, "", args...)
			if res.code != 0 || !strings.Contains(res.stdout, "Examples:\n  ") || res.stderr != "" {
				t.Errorf("exit status %d, stderr %q, stdout:\n%s", res.code, res.stderr, res.stdout)
			}
		})
	}
}

// A plan exported from the cluster (kubectl get -o yaml) carries its
// status: report uses it as stored, here a run canceled on Christmas Day.
func TestReport_UsesTheStoredStatus(t *testing.T) {
	docs, err := (&app{}).loadPlans([]string{holiday})
	if err != nil {
		t.Fatal(err)
	}
	p := docs[0].plan
	christmas := mustTime(t, "2026-12-25T14:00:00+01:00")
	off, err := (&clusterFlags{}).offline(&app{})
	if err != nil {
		t.Fatal(err)
	}
	running, err := off.SimulateRun(p, violations.Ledger{}, christmas.Add(-2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	canceled, err := plan.Cancel(running, "alice", christmas)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := yaml.Marshal(canceled.Plan)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "holiday-freeze.yaml")
	if err := os.WriteFile(file, stored, 0o644); err != nil {
		t.Fatal(err)
	}
	res := protectctl(t, "", "report", "-f", file, "--ledger", ledger, "--now", "2026-12-28T09:00:00+01:00", "-o", "json")
	if res.code != 0 {
		t.Fatalf("exit status %d: %s", res.code, res.stderr)
	}
	var r struct {
		Trigger  string    `json:"trigger"`
		RunStart time.Time `json:"runStart"`
		RunEnd   time.Time `json:"runEnd"`
		Plan     struct {
			Phase string `json:"phase"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &r); err != nil {
		t.Fatal(err)
	}
	if r.Trigger != "cancel" || r.Plan.Phase != "canceled" || !r.RunEnd.Equal(christmas) ||
		!r.RunStart.Equal(mustTime(t, "2026-12-24T18:00:00+01:00")) {
		t.Errorf("trigger %s, phase %s, run %s to %s", r.Trigger, r.Plan.Phase, r.RunStart, r.RunEnd)
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
