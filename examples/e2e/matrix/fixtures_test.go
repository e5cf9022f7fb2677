package matrix

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/violations"
)

// The matrix-* fixtures in violations/testdata/kyverno-1.19.1 were recorded
// by TestMatrix (PROTECTIONPLANS_RECORD_FIXTURES=1) from a real Kyverno
// 1.19.1 enforcing the operator's rendered policies. This test, which needs
// no cluster, checks that package violations reads every one of them and
// attributes each recorded decision to its plan and template, as the
// operator's checkpoints do.

const recorded = "../../../violations/testdata/kyverno-1.19.1"

type recordedCase struct {
	Namespace string            `json:"namespace"`
	Plan      string            `json:"plan"`
	Mode      string            `json:"mode"`
	Door      string            `json:"door"`
	Object    string            `json:"object"`
	Blocked   []string          `json:"blocked"`
	Audited   []string          `json:"audited"`
	Messages  map[string]string `json:"messages"`
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
	if _, err := os.Stat(filepath.Join(recorded, "matrix-cases.json")); err != nil {
		t.Skip("no matrix fixtures recorded")
	}
	var cases []recordedCase
	readRecorded(t, "matrix-cases.json", &cases)
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
			if _, err := violations.FromPolicyReports(idx, reps.Items); err != nil {
				t.Errorf("FromPolicyReports: %v", err)
			}
			// Every decision of the matrix is in the events, with its
			// plan, template and message.
			type key struct{ tmpl, object string }
			got := map[key]violations.Violation{}
			for _, v := range b.Violations {
				if v.Result == violations.ResultFail {
					got[key{v.Template, v.Resource.Name}] = v
				}
			}
			n := 0
			for _, c := range cs {
				for _, tmpl := range slices.Concat(c.Blocked, c.Audited) {
					n++
					v, ok := got[key{tmpl, c.Object}]
					switch {
					case !ok:
						t.Errorf("%s on %s: no %s violation read", c.Door, c.Object, tmpl)
					case v.Plan != c.Plan || v.Blocked != slices.Contains(c.Blocked, tmpl) || v.Message != c.Messages[tmpl]:
						t.Errorf("%s on %s (%s): read %+v, want plan %s, blocked %v, message %q",
							c.Door, c.Object, tmpl, v, c.Plan, slices.Contains(c.Blocked, tmpl), c.Messages[tmpl])
					}
				}
			}
			t.Logf("%d events -> %d violations (%d decisions of the matrix), %d reports", len(evs.Items), len(b.Violations), n, len(reps.Items))
		})
	}
}
