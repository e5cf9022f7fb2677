package plan_test

import (
	"errors"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/plan/plantest"
	"github.com/telark/protectionplans/window"
)

func berlin(s string) time.Time {
	loc, _ := time.LoadLocation("Europe/Berlin")
	t, _ := time.ParseInLocation("Mon Jan 2 2006 15:04", s, loc)
	return t
}

func holidayPlan() *plan.ProtectionPlan {
	return &plan.ProtectionPlan{
		ObjectMeta: metav1.ObjectMeta{Name: "holiday"},
		Spec: plan.Spec{
			Name:      "Holiday freeze",
			Scope:     plan.Scope{Namespaces: []string{"shop"}},
			Templates: []plan.TemplateRef{{Name: "all-writes"}},
			Window: window.Spec{Type: window.TimeRange, TimeZone: "Europe/Berlin",
				StartAt: &metav1.Time{Time: berlin("Thu Dec 24 2026 18:00")},
				EndAt:   &metav1.Time{Time: berlin("Sun Dec 27 2026 06:00")}},
			Mode:         plan.ModeEnforce,
			ApprovalMode: plan.ApprovalAutomatic,
		},
	}
}

// Create a plan, then let the operator's tick move it across its window.
func Example_createAndTick() {
	res, err := plan.Create(holidayPlan(), "alice", berlin("Tue Dec 1 2026 11:00"))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Plan.Status.Phase, "until", res.NextEdge.Format(time.RFC1123))

	for _, now := range []string{"Thu Dec 24 2026 18:00", "Thu Dec 24 2026 18:00", "Sun Dec 27 2026 06:00"} {
		res = plan.Tick(res.Plan, berlin(now))
		fmt.Println(now, "→", res.Plan.Status.Phase, len(res.Events), "event(s)")
	}
	for _, ev := range res.Plan.Status.Timeline {
		fmt.Println(ev.Type, ev.Actor, ev.Message)
	}
	// Output:
	// scheduled until Thu, 24 Dec 2026 18:00:00 CET
	// Thu Dec 24 2026 18:00 → active 1 event(s)
	// Thu Dec 24 2026 18:00 → active 0 event(s)
	// Sun Dec 27 2026 06:00 → terminated 1 event(s)
	// Created alice created: from 2026-12-24 18:00 to 2026-12-27 06:00 Europe/Berlin
	// PhaseChanged  scheduled → active: the window is open until 2026-12-27T05:00:00Z
	// PhaseChanged  active → terminated: the window ended
}

// Validation reports every problem at once, with field paths; the code
// follows the kinds of problem.
func ExampleValidate() {
	cluster := plantest.Cluster{
		Namespaces:       []string{"shop", "telark-system"},
		ReleaseNamespace: "telark-system",
		Plans:            []plantest.PlanName{{ID: "xmas", Name: "Holiday freeze"}},
	}
	env := plan.ValidationEnv{Now: berlin("Tue Dec 1 2026 11:00"), Cluster: cluster, Names: cluster}

	p := holidayPlan()
	err := plan.Validate(p, env)
	fmt.Println(plan.CodeOf(err), err)

	p.Spec.Scope.Namespaces = []string{"shop", "telark-system", "ghost"}
	p.Spec.Description = "{{ request.object }}"
	err = plan.Validate(p, env)
	fmt.Println(plan.CodeOf(err))
	var verr *plan.ValidationError
	if errors.As(err, &verr) {
		for _, fe := range verr.Errs {
			fmt.Println(" ", fe.Field, "-", fe.Type)
		}
	}
	// Output:
	// 409 spec.name: Duplicate value: "Holiday freeze": plan "xmas" already has this name (names ignore case and surrounding spaces)
	// 400
	//   spec.name - Duplicate value
	//   spec.description - Invalid value
	//   spec.scope.namespaces[1] - Invalid value
	//   spec.scope.namespaces[2] - Not found
}

// A refused action says why, with a code.
func ExampleCancel_refused() {
	res, _ := plan.Create(holidayPlan(), "alice", berlin("Fri Dec 25 2026 09:00"))
	res = plan.Tick(res.Plan, berlin("Mon Dec 28 2026 09:00"))

	_, err := plan.Cancel(res.Plan, "bob", berlin("Mon Dec 28 2026 09:05"))
	fmt.Println(plan.CodeOf(err))
	fmt.Println(strings.ReplaceAll(err.Error(), "; ", ";\n"))
	// Output:
	// 409
	// cannot cancel a terminated plan: the plan already terminated when its window ended;
	// nothing is left to cancel (reactivate it to run it again)
}

// Decode refuses unknown fields by path, so typos do not pass silently.
func ExampleDecode() {
	body := `
apiVersion: telark.io/v1alpha1
kind: ProtectionPlan
metadata: {name: holiday}
spec:
  name: Holiday freeze
  scope: {namespace: [shop]}
`
	var p plan.ProtectionPlan
	err := plan.Decode(strings.NewReader(body), &p)
	fmt.Println(plan.CodeOf(err), err)
	// Output:
	// 400 invalid YAML body: spec.scope.namespace: unknown field
}

// A plan's requesters: who it never freezes (exclude) and, when include
// names anyone, the only requesters it freezes. Exclusions win. Service
// accounts are written namespace:name; names are exact.
func ExampleValidateRequesters() {
	r := &plan.Requesters{
		Include: plan.RequesterSet{Groups: []string{"developers"}},
		Exclude: plan.RequesterSet{
			Users:           []string{"alice"},
			ServiceAccounts: []string{"ci:release-pipeline"},
		},
	}
	fmt.Println(plan.ValidateRequesters(r, field.NewPath("spec", "requesters")))
	fmt.Println(r.Exclude.Matches("system:serviceaccount:ci:release-pipeline", nil))
	fmt.Println(r.Include.Matches("bob", []string{"developers"}), r.Exclude.Matches("bob", []string{"developers"}))

	r.Exclude.Users = []string{"system:*"}
	r.Exclude.ServiceAccounts = []string{"system:serviceaccount:ci:release-pipeline"}
	for _, e := range plan.ValidateRequesters(r, field.NewPath("spec", "requesters")) {
		fmt.Println(e.Field, "-", e.Detail)
	}
	// Output:
	// []
	// true
	// true false
	// spec.requesters.exclude.users[0] - must be an exact name: Kyverno reads * and ? as wildcards, and a requester must only ever match itself
	// spec.requesters.exclude.serviceAccounts[0] - write namespace:name, without system:serviceaccount:
}
