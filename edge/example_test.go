package edge_test

import (
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/window"
)

// A night's freeze suspends a CronJob at its start and restores it at its
// end: the journal is persisted before the patch, and the restore leaves
// the field out, as it was.
func ExampleDecide() {
	start := time.Date(2026, 12, 24, 21, 0, 0, 0, time.UTC)
	cron := &unstructured.Unstructured{}
	_ = json.Unmarshal([]byte(`{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"report","namespace":"shop","uid":"u1","resourceVersion":"5"},"spec":{"schedule":"@hourly"}}`), &cron.Object)
	in := edge.Input{
		Plan:    edge.ObjectRef{Kind: "ProtectionPlan", Name: "xmas", UID: "p1"},
		Actions: []edge.Action{{Name: edge.SuspendCronJobs}},
		Scope:   edge.Scope{Namespaces: []string{"shop"}},
		Active:  &window.Interval{Start: start, End: start.Add(10 * time.Hour)},
		Live:    []*unstructured.Unstructured{cron},
		Now:     start.Add(time.Minute),
	}
	d, _ := edge.Decide(in)
	fmt.Println("persist first:", d.Journal.Phase, "then", string(d.Patches[0].Body))
	j := edge.Record(*d.Journal, []edge.Result{{Entry: 0, Outcome: edge.Succeeded}})

	_ = unstructured.SetNestedField(cron.Object, true, "spec", "suspend")
	cron.SetResourceVersion("6")
	in.Active, in.Journal, in.Now = nil, &j, start.Add(10*time.Hour)
	d, _ = edge.Decide(in)
	fmt.Println("at the end:", string(d.Patches[0].Body))
	j = edge.Record(*d.Journal, []edge.Result{{Entry: 0, Outcome: edge.Succeeded}})
	fmt.Println(j.Phase, j.Entries[0].State)
	// Output:
	// persist first: Starting then {"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"report","namespace":"shop","uid":"u1"},"spec":{"suspend":true}}
	// at the end: {"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"report","namespace":"shop","resourceVersion":"6","uid":"u1"}}
	// Done Restored
}
