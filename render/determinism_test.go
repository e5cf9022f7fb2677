package render

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
)

// richInput exercises every list Render sorts: namespaces, applications,
// selectors and their values, exclusions, templates, kinds parameters.
func richInput() Input {
	p := appPlan(plan.ModeEnforce, tplWith("all-writes", "kinds", "Deployment,Secret,ConfigMap,StatefulSet"),
		tpl("image-change"), tpl("scaling"), tplWith("create", "kinds", "Service,Deployment,Job"))
	p.Spec.Scope.Applications = []string{"checkout", "search", "ledger"}
	p.Spec.Exclusions = plan.Exclusions{
		Kinds: []string{"Secret", "ConfigMap", "DaemonSet"},
		Resources: []plan.ResourceRef{
			{Kind: "Deployment", Name: "web", Namespace: "shop"},
			{Kind: "StatefulSet", Name: "db", Namespace: "shop"},
			{Kind: "Deployment", Name: "api", Namespace: "shop"},
			{Kind: "Deployment", Name: "indexer", Namespace: "search"},
		},
	}
	apps := []plan.Application{
		checkoutApp(),
		{Name: "search", Namespaces: []string{"search", "shop"}, Selector: &metav1.LabelSelector{
			MatchLabels: map[string]string{"app": "search", "team": "find"},
			MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "track", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"canary", "beta", "alpha"}},
				{Key: "app.kubernetes.io/part-of", Operator: metav1.LabelSelectorOpExists},
			}}},
		{Name: "ledger", Namespaces: []string{"ledger", "audit", "billing"}, Selector: &metav1.LabelSelector{
			MatchLabels: map[string]string{"app": "ledger"}}},
	}
	return Input{Plan: p, Applications: apps, Now: now}
}

// shuffled returns a copy of in with every list shuffled.
func shuffled(in Input, r *rand.Rand) Input {
	p := in.Plan.DeepCopy()
	shuffle(r, p.Spec.Scope.Applications)
	shuffle(r, p.Spec.Templates)
	shuffle(r, p.Spec.Exclusions.Kinds)
	shuffle(r, p.Spec.Exclusions.Resources)
	apps := make([]plan.Application, len(in.Applications))
	for i, a := range in.Applications {
		a.Namespaces = append([]string(nil), a.Namespaces...)
		shuffle(r, a.Namespaces)
		if a.Selector != nil {
			a.Selector = a.Selector.DeepCopy()
			shuffle(r, a.Selector.MatchExpressions)
			for _, e := range a.Selector.MatchExpressions {
				shuffle(r, e.Values)
			}
		}
		apps[i] = a
	}
	shuffle(r, apps)
	return Input{Plan: p, Applications: apps, Now: in.Now, Target: in.Target}
}

func shuffle[T any](r *rand.Rand, s []T) {
	r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
}

func TestDeterminism_SameInputSameBytes(t *testing.T) {
	in := richInput()
	first := mustYAML(t, mustRender(t, in))
	for i := 0; i < 3; i++ {
		if again := mustYAML(t, mustRender(t, in)); !bytes.Equal(first, again) {
			t.Fatal("two renders of the same input differ")
		}
	}
}

func TestDeterminism_ShuffledInputSameBytes(t *testing.T) {
	in := richInput()
	want := mustYAML(t, mustRender(t, in))
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 10; i++ {
		if got := mustYAML(t, mustRender(t, shuffled(in, r))); !bytes.Equal(want, got) {
			t.Fatalf("shuffle %d renders different bytes", i)
		}
	}
}

func TestDeterminism_RenderDoesNotChangeItsInput(t *testing.T) {
	in := richInput()
	before := in.Plan.DeepCopy()
	mustRender(t, in)
	if !equalPlans(before, in.Plan) {
		t.Error("Render changed the plan")
	}
}

func TestDeterminism_ObjectsDoNotShareState(t *testing.T) {
	p := namespacePlan(plan.ModeEnforce, []string{"a", "b"}, tpl("scaling"))
	res := mustRender(t, Input{Plan: p, Now: now})
	if err := SetFailureAction(res.Policies[0].Objects[0], plan.ModeAudit); err != nil {
		t.Fatal(err)
	}
	if m, _ := FailureAction(res.Policies[1].Objects[0]); m != plan.ModeEnforce {
		t.Error("changing one policy changed another: they share their spec")
	}
	again := mustRender(t, Input{Plan: p, Now: now})
	if m, _ := FailureAction(again.Policies[0].Objects[0]); m != plan.ModeEnforce {
		t.Error("changing a rendered policy changed the next render")
	}
}

func equalPlans(a, b *plan.ProtectionPlan) bool {
	ya, _ := json.Marshal(a)
	yb, _ := json.Marshal(b)
	return bytes.Equal(ya, yb)
}
