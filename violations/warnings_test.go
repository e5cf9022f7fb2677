package violations

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/telark/protectionplans/render"
)

// The fixtures in testdata/kyverno-1.19.1/warnings are REAL: recorded by
// TestRecordWarningFixtures (examples/e2e/harness/record_warnings_e2e_test.go)
// from Kyverno v1.19.1 for a plan's warning policies as render writes them
// (policies-*.yaml, with the plan's own scaling policy), after an admitted
// label change in scope that printed the Active warning (kubectl-*.txt).
const warningFixtures = "testdata/kyverno-1.19.1/warnings"

// warningIndex indexes the recorded policies by their labels, as the
// operator does.
func warningIndex(t *testing.T) PolicyIndex {
	t.Helper()
	var objs []*unstructured.Unstructured
	for _, c := range []string{"v1", "nvpol"} {
		data, err := os.ReadFile(filepath.Join(warningFixtures, "policies-"+c+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range bytes.Split(data, []byte("\n---\n")) {
			doc = bytes.TrimPrefix(doc, []byte("---\n"))
			if len(bytes.TrimSpace(doc)) == 0 {
				continue
			}
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal(doc, &u.Object); err != nil {
				t.Fatal(err)
			}
			objs = append(objs, u)
		}
	}
	return IndexPolicies(objs)
}

// TestWarnings_RecordsAreNotViolations: every record Kyverno made of the
// warning policies (PolicyViolation events in both APIs, report results)
// is counted as a warning and none is a violation.
func TestWarnings_RecordsAreNotViolations(t *testing.T) {
	idx := warningIndex(t)
	for _, c := range []string{"v1", "nvpol"} {
		t.Run("the "+c+" warning policy's core/v1 events are warnings, not violations", func(t *testing.T) {
			var list corev1.EventList
			readJSON(t, filepath.Join("warnings", "events-"+c+".json"), &list)
			b, err := FromEvents(idx, list.Items)
			checkWarningBatch(t, b, err, len(list.Items))
		})
		t.Run("the "+c+" warning policy's events.k8s.io events are warnings, not violations", func(t *testing.T) {
			var list eventsv1.EventList
			readJSON(t, filepath.Join("warnings", "events.k8s.io-"+c+".json"), &list)
			b, err := FromEventsV1(idx, list.Items)
			checkWarningBatch(t, b, err, len(list.Items))
		})
		t.Run("the "+c+" warning policy's report results are warnings, not violations", func(t *testing.T) {
			var list unstructured.UnstructuredList
			readJSON(t, filepath.Join("warnings", "policyreports-"+c+".json"), &list)
			var reports []*unstructured.Unstructured
			warned := 0
			for i := range list.Items {
				reports = append(reports, &list.Items[i])
				results, _, _ := unstructured.NestedSlice(list.Items[i].Object, "results")
				for _, r := range results {
					if pol, _ := r.(map[string]any)["policy"].(string); len(pol) > 5 && pol[len(pol)-5:] == "-warn" {
						warned++
					}
				}
			}
			b, err := FromPolicyReports(idx, reports)
			if err != nil {
				t.Fatal(err)
			}
			if warned == 0 || b.Warnings != warned {
				t.Errorf("%d warnings counted, the reports hold %d results of the warning policy", b.Warnings, warned)
			}
			for _, v := range b.Violations {
				if v.Template == render.WarnTemplate || render.IsWarningRule(v.Rule) {
					t.Errorf("a warning read as a violation: %+v", v)
				}
			}
		})
	}
}

// checkWarningBatch: every event recorded is the warning policy's (the
// plan's own scaling policy admitted the label change), so each is a
// warning and none a violation.
func checkWarningBatch(t *testing.T, b Batch, err error, n int) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 || b.Warnings != n || len(b.Violations) != 0 || b.Skipped != 0 {
		t.Errorf("%d events: %d warnings, %d violations, %d skipped; want every one a warning", n, b.Warnings, len(b.Violations), b.Skipped)
	}
}
