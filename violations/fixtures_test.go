package violations

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/telark/protectionplans/render"
)

// The fixtures in testdata/kyverno-1.19.1 are REAL: recorded from Kyverno
// v1.19.1 and kube-apiserver v1.36.3 by TestRecordFixtures
// (examples/e2e/harness/record_e2e_test.go; the folder's README.md says how,
// commands.log lists every command and its output). Each case has its own
// namespace fx-<case>, a Deployment web with 1 replica, one policy, and two
// requests: `kubectl scale deployment/web --replicas=3` (a /scale request:
// the related object is an autoscaling/v1 Scale) and a patch of
// spec.replicas to 4; the *-dryrun-* cases pass --dry-run=server to both.
//
// As the README asks, the tests do not depend on recorded UIDs, names or
// times: expected times are looked up in the recorded events themselves.

const fixtures = "testdata/kyverno-1.19.1"

// fixtureCase is one recorded case: its namespace, its policy file and
// name, and the template the test's index pretends the policy renders.
type fixtureCase struct {
	name, policyFile, policy string
}

var fixtureCases = []fixtureCase{
	{"enforce-v1", "policy-enforce-v1.yaml", "freeze-replicas"},
	{"dryrun-v1", "policy-enforce-v1.yaml", "freeze-replicas"},
	{"audit-v1", "policy-audit-v1.yaml", "freeze-replicas-audit"},
	{"audit-dryrun-v1", "policy-audit-v1.yaml", "freeze-replicas-audit"},
	{"audit-nvpol", "nvpol-audit.yaml", "freeze-replicas-cel"},
	{"audit-dryrun-nvpol", "nvpol-audit.yaml", "freeze-replicas-cel"},
	{"enforce-nvpol", "nvpol-enforce.yaml", "freeze-replicas-cel-deny"},
	{"dryrun-nvpol", "nvpol-enforce.yaml", "freeze-replicas-cel-deny"},
}

// fixtureIndex indexes the recorded policies as the operator would: the
// real policy files, put in each case's namespace and given the labels
// render gives its policies (the recorded policies were written by hand
// and carry none), plan "fx-plan", template "scaling".
func fixtureIndex(t testing.TB) PolicyIndex {
	t.Helper()
	var objs []*unstructured.Unstructured
	for _, c := range fixtureCases {
		data, err := os.ReadFile(filepath.Join(fixtures, c.policyFile))
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &u.Object); err != nil {
			t.Fatal(err)
		}
		if u.GetName() != c.policy {
			t.Fatalf("%s names %q, want %q", c.policyFile, u.GetName(), c.policy)
		}
		u.SetNamespace("fx-" + c.name)
		u.SetLabels(map[string]string{render.LabelPlan: "fx-plan", render.LabelTemplate: "scaling"})
		objs = append(objs, u)
	}
	return IndexPolicies(objs)
}

func readJSON(t testing.TB, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func coreEvents(t testing.TB, c string) []corev1.Event {
	var l corev1.EventList
	readJSON(t, "events-"+c+".json", &l)
	return l.Items
}

func v1Events(t *testing.T, c string) []eventsv1.Event {
	var l eventsv1.EventList
	readJSON(t, "events.k8s.io-"+c+".json", &l)
	return l.Items
}

func reports(t *testing.T, name string) []*unstructured.Unstructured {
	var l struct {
		Items []map[string]any `json:"items"`
	}
	readJSON(t, name, &l)
	out := make([]*unstructured.Unstructured, len(l.Items))
	for i, it := range l.Items {
		out[i] = &unstructured.Unstructured{Object: it}
	}
	return out
}

// eventTime is the eventTime of the recorded event about kind (the event
// on the resource) or, when onPolicy, of the event on the policy whose
// related object is of kind.
func eventTime(t *testing.T, evs []corev1.Event, kind string, onPolicy bool) time.Time {
	t.Helper()
	for _, e := range evs {
		if onPolicy && e.Related != nil && e.Related.Kind == kind ||
			!onPolicy && e.Related == nil && e.InvolvedObject.Kind == kind {
			return e.EventTime.UTC()
		}
	}
	t.Fatalf("no recorded event about %s (on the policy: %v)", kind, onPolicy)
	return time.Time{}
}

// decided is an expected decision of a recorded case.
type decided struct {
	kind, msg string
}

func TestFixtures_Events(t *testing.T) {
	idx := fixtureIndex(t)
	cases := map[string]fixtureCase{}
	for _, c := range fixtureCases {
		cases[c.name] = c
	}
	const v1Rule, cel = "replicas-frozen", ""
	v1Scale := decided{"Scale", "spec.replicas is frozen: 1 -> 3"}
	celScale, celPatch := decided{"Scale", "spec.replicas is frozen (CEL)"}, decided{"Deployment", "spec.replicas is frozen (CEL)"}
	tests := []struct {
		name    string
		c       fixtureCase
		rule    string
		blocked bool
		events  int
		want    []decided // newest first: the patch, then the scale
	}{
		{"an enforced Policy leaves one blocked event per refused request",
			cases["enforce-v1"], v1Rule, true, 2, []decided{{"Deployment", "spec.replicas is frozen: 1 -> 4"}, v1Scale}},
		{"a refused server dry-run reads exactly like a refused request",
			cases["dryrun-v1"], v1Rule, true, 2, []decided{{"Deployment", "spec.replicas is frozen: 1 -> 4"}, v1Scale}},
		{"an audited Policy leaves two events per request, counted once and not blocked",
			cases["audit-v1"], v1Rule, false, 4, []decided{{"Deployment", "spec.replicas is frozen: 3 -> 4"}, v1Scale}},
		{"an audited server dry-run reads like an audited request (the scale did not happen: 1 -> 4)",
			cases["audit-dryrun-v1"], v1Rule, false, 4, []decided{{"Deployment", "spec.replicas is frozen: 1 -> 4"}, v1Scale}},
		{"an audited NamespacedValidatingPolicy has no rule name",
			cases["audit-nvpol"], cel, false, 4, []decided{celPatch, celScale}},
		{"an audited server dry-run of a NamespacedValidatingPolicy reads like an audited request",
			cases["audit-dryrun-nvpol"], cel, false, 4, []decided{celPatch, celScale}},
		{"an enforced NamespacedValidatingPolicy leaves one blocked event per refused request",
			cases["enforce-nvpol"], cel, true, 2, []decided{celPatch, celScale}},
		{"a NamespacedValidatingPolicy's refused server dry-run reads like a refused request",
			cases["dryrun-nvpol"], cel, true, 2, []decided{celPatch, celScale}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := coreEvents(t, tt.c.name)
			var want []Violation
			for _, d := range tt.want {
				r := Resource{APIVersion: "apps/v1", Kind: d.kind, Namespace: "fx-" + tt.c.name, Name: "web"}
				if d.kind == "Scale" {
					r.APIVersion, r.Subresource = "autoscaling/v1", "scale"
				}
				// The event on the policy comes first; an audited
				// decision is last seen at its event on the resource.
				first := eventTime(t, evs, d.kind, true)
				last := first
				if !tt.blocked {
					last = eventTime(t, evs, d.kind, false)
				}
				want = append(want, Violation{
					Plan: "fx-plan", Template: "scaling", Policy: tt.c.policy, PolicyNamespace: "fx-" + tt.c.name,
					Rule: tt.rule, Resource: r, Result: ResultFail, Blocked: tt.blocked, Message: d.msg,
					Timestamp: last, FirstSeen: first, Count: 1, Source: SourceEvent,
				})
			}
			core, err := FromEvents(idx, evs)
			if err != nil {
				t.Fatal(err)
			}
			if core.Read != tt.events || core.Skipped != 0 || core.Unrecognized != 0 {
				t.Errorf("core/v1: Read, Skipped, Unrecognized = %d, %d, %d; want %d, 0, 0", core.Read, core.Skipped, core.Unrecognized, tt.events)
			}
			if diff := cmp.Diff(want, core.Violations, ignoreKey); diff != "" {
				t.Errorf("core/v1 events (-want +got):\n%s", diff)
			}
			v1, err := FromEventsV1(idx, v1Events(t, tt.c.name))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(core.Violations, v1.Violations); diff != "" {
				t.Errorf("events.k8s.io/v1 differs from core/v1, keys included (-core +v1):\n%s", diff)
			}
		})
	}
}

// TestFixtures_EveryFileReads reads every recorded event and report file
// at once: nothing unrecognized, nothing skipped, and each decision once.
func TestFixtures_EveryFileReads(t *testing.T) {
	idx := fixtureIndex(t)
	files, err := filepath.Glob(filepath.Join(fixtures, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	var core []corev1.Event
	var v1 []eventsv1.Event
	var reps []*unstructured.Unstructured
	for _, f := range files {
		base := filepath.Base(f)
		switch {
		case strings.HasPrefix(base, "events.k8s.io-"):
			var l eventsv1.EventList
			readJSON(t, base, &l)
			v1 = append(v1, l.Items...)
		case strings.HasPrefix(base, "events-"):
			var l corev1.EventList
			readJSON(t, base, &l)
			core = append(core, l.Items...)
		case strings.HasPrefix(base, "policyreports-"):
			reps = append(reps, reports(t, base)...)
		}
	}
	bc, err := FromEvents(idx, core)
	if err != nil || bc.Skipped != 0 {
		t.Fatalf("core/v1: %v, skipped %d", err, bc.Skipped)
	}
	// 8 cases x 2 requests; the 16 audited events are 8 pairs.
	if bc.Read != 24 || len(bc.Violations) != 16 {
		t.Errorf("core/v1: %d events read into %d violations; want 24 into 16", bc.Read, len(bc.Violations))
	}
	// Reading both views at once: the same events, the same keys.
	both, err := FromEvents(idx, append(slices.Clone(core), toCore(v1)...))
	if err != nil || len(both.Violations) != 16 {
		t.Errorf("both views: %d violations, %v; want 16", len(both.Violations), err)
	}
	br, err := FromPolicyReports(idx, reps)
	if err != nil || br.Skipped != 0 || br.Unrecognized != 0 {
		t.Fatalf("reports: %v, skipped %d", err, br.Skipped)
	}
	if br.Read != 3 || len(br.Violations) != 3 {
		t.Errorf("reports: %d results into %d violations; want 3 into 3", br.Read, len(br.Violations))
	}
}

// toCore converts events.k8s.io/v1 events to core/v1 as the API server
// serves them.
func toCore(evs []eventsv1.Event) []corev1.Event {
	out := make([]corev1.Event, 0, len(evs))
	for _, e := range evs {
		out = append(out, corev1.Event{
			ObjectMeta: e.ObjectMeta, EventTime: e.EventTime, Action: e.Action, Reason: e.Reason,
			InvolvedObject: e.Regarding, Related: e.Related, Message: e.Note, Type: e.Type,
			ReportingController: e.ReportingController, ReportingInstance: e.ReportingInstance,
		})
	}
	return out
}

func TestFixtures_PolicyReports(t *testing.T) {
	idx := fixtureIndex(t)
	report := func(c fixtureCase, rule string, kind string, res Result, msg string) Violation {
		// The recorded result's own timestamp (seconds).
		var l struct {
			Items []struct {
				Results []struct {
					Timestamp struct{ Seconds int64 } `json:"timestamp"`
				} `json:"results"`
			} `json:"items"`
		}
		readJSON(t, "policyreports-"+c.name+".json", &l)
		ts := time.Unix(l.Items[0].Results[0].Timestamp.Seconds, 0).UTC()
		return Violation{
			Plan: "fx-plan", Template: "scaling", Policy: c.policy, PolicyNamespace: "fx-" + c.name, Rule: rule,
			Resource: Resource{APIVersion: "apps/v1", Kind: kind, Namespace: "fx-" + c.name, Name: "web"},
			Result:   res, Message: msg, Timestamp: ts, FirstSeen: ts, Count: 1, Source: SourcePolicyReport,
		}
	}
	tests := []struct {
		name string
		c    fixtureCase
		want []Violation
	}{
		{
			name: "an enforced Policy's report holds the admitted label change as a pass, no refusal",
			c:    fixtureCases[0],
			want: []Violation{report(fixtureCases[0], "replicas-frozen", "Deployment", ResultPass, "validation rule 'replicas-frozen' passed.")},
		},
		{name: "refused dry-runs leave no report", c: fixtureCases[1]},
		{
			name: "an audited Policy's report holds only the latest result for the Deployment (the patch, not the scale)",
			c:    fixtureCases[2],
			want: []Violation{report(fixtureCases[2], "replicas-frozen", "Deployment", ResultFail, "spec.replicas is frozen: 3 -> 4")},
		},
		{name: "audited dry-runs leave no report", c: fixtureCases[3]},
		{
			name: "an audited NamespacedValidatingPolicy's report has no rule name",
			c:    fixtureCases[4],
			want: []Violation{report(fixtureCases[4], "", "Deployment", ResultFail, "spec.replicas is frozen (CEL)")},
		},
		{name: "an audited NamespacedValidatingPolicy's dry-runs leave no report", c: fixtureCases[5]},
		{name: "an enforced NamespacedValidatingPolicy leaves no report of refusals", c: fixtureCases[6]},
		{name: "a NamespacedValidatingPolicy's refused dry-runs leave no report", c: fixtureCases[7]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := FromPolicyReports(idx, reports(t, "policyreports-"+tt.c.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, b.Violations, ignoreKey, cmpEmpty); diff != "" {
				t.Errorf("FromPolicyReports (-want +got):\n%s", diff)
			}
		})
	}
}

var cmpEmpty = cmp.FilterValues(func(a, b []Violation) bool { return len(a) == 0 && len(b) == 0 }, cmp.Ignore())

func TestFixtures_EphemeralReportsAreNotPolicyReports(t *testing.T) {
	b, err := FromPolicyReports(fixtureIndex(t), reports(t, "ephemeralreports-audit-v1.json"))
	var ue *UnrecognizedError
	if !errors.As(err, &ue) || b.Unrecognized != 2 || len(b.Violations) != 0 {
		t.Errorf("err = %v, Unrecognized = %d; want two *UnrecognizedError (EphemeralReports are Kyverno's internal, short-lived reports)", err, b.Unrecognized)
	}
}

// TestFixtures_CheckpointsCountOnce merges the recorded events as four
// checkpoints of an hour would read them: the same events each time, with
// the events of one request's pair missing from the first read.
func TestFixtures_CheckpointsCountOnce(t *testing.T) {
	idx := fixtureIndex(t)
	evs := coreEvents(t, "audit-v1")
	var partial []corev1.Event
	for _, e := range evs {
		if e.InvolvedObject.Kind == "Policy" || e.InvolvedObject.Kind == "Deployment" {
			partial = append(partial, e) // the Scale's own event not yet listed
		}
	}
	l := NewLedger("fx-plan")
	for _, read := range [][]corev1.Event{partial, evs, evs, evs} {
		b, err := FromEvents(idx, read)
		if err != nil {
			t.Fatal(err)
		}
		l = l.Merge(b.Violations)
	}
	if len(l.Violations) != 2 {
		t.Fatalf("%d violations after four checkpoints, want 2", len(l.Violations))
	}
	for _, v := range l.Violations {
		if v.Count != 1 || v.Blocked {
			t.Errorf("%+v", v)
		}
	}
}
