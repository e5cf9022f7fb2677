package matrix

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/violations"
)

// The matrix-* fixtures in violations/testdata/kyverno-1.19.1 were recorded
// by the end-to-end matrix (PROTECTIONPLANS_RECORD_FIXTURES) from a real
// Kyverno 1.19.1 enforcing the operator's rendered policies: kyverno.io/v1
// Policies (matrix-cases.json, namespaces mx-*) and policies.kyverno.io/v1
// NamespacedValidatingPolicies (matrix-cel-cases.json, namespaces
// cel-mx-*). This test, which needs no cluster, checks that package
// violations reads every one of them and attributes each recorded
// decision to its plan and template, with its message, as the operator's
// checkpoints do.

const recorded = "../../../violations/testdata/kyverno-1.19.1"

// recordings are the case files, by target.
var recordings = []struct{ target, cases string }{
	{"kyverno", "matrix-cases.json"},
	{"kyverno-cel", "matrix-cel-cases.json"},
}

type recordedCase struct {
	Namespace string            `json:"namespace"`
	Plan      string            `json:"plan"`
	Mode      string            `json:"mode"`
	Door      string            `json:"door"`
	Object    string            `json:"object"`
	DryRun    bool              `json:"dryRun"`
	Blocked   []string          `json:"blocked"`
	Audited   []string          `json:"audited"`
	Messages  map[string]string `json:"messages"`
	Refusal   string            `json:"refusal"`
}

func readRecorded(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(recorded, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func TestRecordedMatrixFixtures(t *testing.T) {
	for _, rec := range recordings {
		t.Run(rec.target, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(recorded, rec.cases)); err != nil {
				t.Skip("no matrix fixtures recorded for " + rec.target)
			}
			testRecording(t, rec.target, rec.cases)
		})
	}
}

func testRecording(t *testing.T, target, casesFile string) {
	var cases []recordedCase
	readRecorded(t, casesFile, &cases)
	byNS := map[string][]recordedCase{}
	for _, c := range cases {
		byNS[c.Namespace] = append(byNS[c.Namespace], c)
	}
	for ns, cs := range byNS {
		t.Run(ns, func(t *testing.T) {
			var pols struct{ Items []unstructured.Unstructured }
			readRecorded(t, "matrix-policies-"+ns+".json", &pols)
			var objs []*unstructured.Unstructured
			for i := range pols.Items {
				objs = append(objs, &pols.Items[i])
				if k := pols.Items[i].GetKind(); k != map[string]string{"kyverno": "Policy", "kyverno-cel": "NamespacedValidatingPolicy"}[target] {
					t.Errorf("a %s in the %s recording", k, target)
				}
			}
			idx := violations.IndexPolicies(objs)
			if idx.Len() == 0 {
				t.Fatal("no policy indexed")
			}
			var evs struct{ Items []corev1.Event }
			readRecorded(t, "matrix-events-"+ns+".json", &evs)
			b, err := violations.FromEvents(idx, evs.Items)
			if err != nil {
				t.Errorf("FromEvents: %v", err)
			}
			var evs1 struct{ Items []eventsv1.Event }
			readRecorded(t, "matrix-events.k8s.io-"+ns+".json", &evs1)
			b1, err := violations.FromEventsV1(idx, evs1.Items)
			if err != nil {
				t.Errorf("FromEventsV1: %v", err)
			}
			if len(b.Violations) != len(b1.Violations) || b.Skipped != 0 {
				t.Errorf("core/v1: %d violations (%d skipped), events.k8s.io/v1: %d", len(b.Violations), b.Skipped, len(b1.Violations))
			}
			var reps struct{ Items []*unstructured.Unstructured }
			readRecorded(t, "matrix-policyreports-"+ns+".json", &reps)
			fromReports, err := violations.FromPolicyReports(idx, reps.Items)
			if err != nil {
				t.Errorf("FromPolicyReports: %v", err)
			}
			// Every decision of the matrix is in the events, with its
			// plan, template and message. (A policy that failed on two
			// rules, e.g. all-writes and its scope guard, also has an
			// event for the second rule: one of the template's events
			// must carry Explain's message.)
			type key struct{ tmpl, object string }
			got := map[key][]violations.Violation{}
			for _, v := range b.Violations {
				if v.Result == violations.ResultFail {
					k := key{v.Template, v.Resource.Name}
					got[k] = append(got[k], v)
				}
			}
			n := 0
			for _, c := range cs {
				for _, tmpl := range slices.Concat(c.Blocked, c.Audited) {
					n++
					vs := got[key{tmpl, c.Object}]
					blocked := slices.Contains(c.Blocked, tmpl)
					if !slices.ContainsFunc(vs, func(v violations.Violation) bool {
						return v.Plan == c.Plan && v.Blocked == blocked && v.Message == c.Messages[tmpl]
					}) {
						t.Errorf("%s on %s (%s): read %+v, want plan %s, blocked %v, message %q",
							c.Door, c.Object, tmpl, vs, c.Plan, blocked, c.Messages[tmpl])
					}
				}
			}
			// A report's fail result is an audited decision of a real
			// request, with its message.
			fails := 0
			for _, v := range fromReports.Violations {
				if v.Result != violations.ResultFail {
					continue
				}
				fails++
				if !slices.ContainsFunc(cs, func(c recordedCase) bool {
					return !c.DryRun && slices.Contains(c.Audited, v.Template) && c.Messages[v.Template] == v.Message &&
						(c.Object == v.Resource.Name || v.Resource.Kind == "Scale")
				}) {
					t.Errorf("report result %s on %s %s: %q matches no audited real request of the recording", v.Template, v.Resource.Kind, v.Resource.Name, v.Message)
				}
			}
			if target == "kyverno-cel" && strings.Contains(ns, "-audit") && fails == 0 {
				t.Errorf("no fail result in the PolicyReports of %s", ns)
			}
			t.Logf("%d events -> %d violations (%d decisions of the matrix), %d reports with %d fail results",
				len(evs.Items), len(b.Violations), n, len(reps.Items), fails)
		})
	}
}
