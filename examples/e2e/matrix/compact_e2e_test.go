//go:build e2e

package matrix

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// TestCompactLayout runs every door of three scopes twice on the real
// admission chain, for each target: once against the plan's per-template
// policies and once against its compact layout (render.Input.Compact: one
// policy per namespace), in twin namespaces with the same fixtures. For
// every door the two must refuse or admit alike, Explain (compact) must
// say so too, and a compact refusal must quote Explain's message: the
// first template, in the plan's order, that applies.
//
// The scopes: a namespace with every template (all-writes without
// Deployments and Pods, so that their other changes reach the other
// templates); an application with every template but all-writes, beside
// another application in the same namespace (selectors, /scale of members,
// scope guards, and updates that several templates' rules match); an
// application with excluded kinds and named resources. Enforce only: an
// audited request is admitted either way. No operator runs: the test
// renders and applies the policies itself, and removes them.
func TestCompactLayout(t *testing.T) {
	if s.run != nil {
		t.Fatal("an operator is running")
	}
	ctx := t.Context()
	if left, err := anyManagedObject(ctx); err != nil || left != "" {
		t.Fatalf("managed policies left by an earlier test: %s %v", left, err)
	}
	if err := createStorageClass(ctx, s.c); err != nil {
		t.Fatal(err)
	}
	for _, target := range render.Targets() {
		t.Run(string(target), func(t *testing.T) { compactPhase(t, target) })
	}
}

// compactScopes are the scopes of one twin ("pt": per template, "cp":
// compact) for a target; names carry both, so that no two share an
// object or an application.
func compactScopes(short, layout string) []scope {
	id := func(base string) string { return "cl-" + short + "-" + layout + "-" + base }
	nsScope := plan.Scope{Namespaces: []string{id("ns")}}
	app := func(name string) plan.Scope { return plan.Scope{Applications: []string{id(name)}} }
	in := func(app, peer string) objSet { return objSet{app: id(app), peer: id(peer)} }
	other := func(app, peer string) objSet { return objSet{prefix: "o-", app: id(app), peer: id(peer)} }
	noAllWrites := []string{}
	for _, name := range catalogNames() {
		if name != "all-writes" {
			noAllWrites = append(noAllWrites, name)
		}
	}
	withScope := func(p *plan.ProtectionPlan, sc plan.Scope, ex plan.Exclusions) *plan.ProtectionPlan {
		p.Spec.Scope, p.Spec.Exclusions = sc, ex
		return p
	}
	return []scope{
		{ns: id("ns"), sets: []objSet{{peer: "elsewhere"}},
			plan: withScope(latencyPlan(id("ns"), id("ns"), catalogNames()...), nsScope, plan.Exclusions{})},
		{ns: id("app"), sets: []objSet{in("shop", "search"), other("search", "shop")},
			plan: withScope(latencyPlan(id("app"), "", noAllWrites...), app("shop"), plan.Exclusions{})},
		{ns: id("excl"), sets: []objSet{in("cart", "elsewhere")},
			plan: withScope(latencyPlan(id("excl"), "", noAllWrites...), app("cart"), plan.Exclusions{
				Kinds: []string{"StatefulSet", "ConfigMap"},
				Resources: []plan.ResourceRef{
					{Kind: "Deployment", Namespace: id("excl"), Name: "d-image"},
					{Kind: "Deployment", Namespace: id("excl"), Name: "d-scale"},
					{Kind: "DaemonSet", Namespace: id("excl"), Name: "ds-restart"},
				}})},
	}
}

func compactPhase(t *testing.T, target render.Target) {
	ctx := t.Context()
	short := map[render.Target]string{render.TargetKyverno: "kyv", render.TargetKyvernoCEL: "cel", render.TargetVAP: "vap"}[target]
	ts := specOf(target)
	twins := map[bool][]scope{false: compactScopes(short, "pt"), true: compactScopes(short, "cp")}

	// Fixtures, then the policies of both layouts.
	var members []plan.LabeledObject
	for _, scopes := range twins {
		for _, sc := range scopes {
			if err := createNamespace(ctx, s.c, sc.ns); err != nil {
				t.Fatal(err)
			}
			for _, o := range sc.sets {
				if err := createObjects(ctx, s.c, sc.ns, o); err != nil {
					t.Fatal(err)
				}
				for _, obj := range o.objects(sc.ns) {
					if l := obj.GetLabels()[plan.InstanceLabel]; l != "" {
						gvk, _ := s.c.GroupVersionKindFor(obj)
						members = append(members, plan.LabeledObject{Kind: gvk.Kind, Namespace: sc.ns, Name: obj.GetName(), Labels: obj.GetLabels()})
					}
				}
			}
		}
	}
	resolver := plan.InstanceLabelResolver{Objects: members}
	inputOf := func(sc scope, compact bool) render.Input {
		in := render.Input{Plan: sc.plan, Now: time.Now(), Target: target, Compact: compact}
		for _, name := range sc.plan.Spec.Scope.Applications {
			app, err := resolver.ResolveApplication(name)
			if err != nil {
				t.Fatal(err)
			}
			in.Applications = append(in.Applications, app)
		}
		return in
	}
	var objs []*unstructured.Unstructured
	npol := map[bool]int{}
	for compact, scopes := range twins {
		for _, sc := range scopes {
			res, err := render.Render(inputOf(sc, compact))
			if err != nil {
				t.Fatal(err)
			}
			npol[compact] += len(res.Policies)
			objs = append(objs, res.Objects()...)
		}
	}
	ts.applyPolicies(t, objs, "e2e-compact")
	t.Logf("%s: %d per-template policies and %d compact ones in force", target, npol[false], npol[true])
	// Kyverno updates its webhooks, and the API server its policies,
	// asynchronously: wait until each namespace refuses what it must.
	canaries := map[string][]string{
		"ns":   {"replicas-patch", "scale-kubectl", "image-pod", "configmap-label", "pvc-resize", "service-delete"},
		"app":  {"scale-kubectl", "image-deployment", "unlabel-deployment"},
		"excl": {"replicas-patch", "image-daemonset"},
	}
	x := &runner{s: s}
	for _, scopes := range twins {
		for _, sc := range scopes {
			for _, id := range canaries[sc.ns[strings.LastIndex(sc.ns, "-")+1:]] {
				d := doorByID(id)
				eventually(t, time.Minute, "a refusal of "+id+" in "+sc.ns, func() (string, bool) {
					err := d.run(ctx, x, sc.ns, sc.sets[0].name(d.base), sc.sets[0], true)
					return fmt.Sprint(err), err != nil && refused(err.Error())
				})
			}
		}
	}

	// Every door, in the same order in both twins (kubectl debug and
	// rollout restart are real requests and change their objects).
	var cases, refusedBoth, disagreements int
	for i := range twins[false] {
		pt, cp := twins[false][i], twins[true][i]
		for j := range pt.sets {
			for _, d := range doors {
				cases++
				ptErr := d.run(ctx, x, pt.ns, pt.sets[j].name(d.base), pt.sets[j], !d.real)
				req, err := doorRequest(ctx, d, cp.sets[j], cp.ns, cp.sets[j].name(d.base))
				if err != nil {
					t.Fatal(err)
				}
				want, err := render.Explain(inputOf(cp, true), req)
				if err != nil {
					t.Fatal(err)
				}
				cpErr := d.run(ctx, x, cp.ns, cp.sets[j].name(d.base), cp.sets[j], !d.real)
				for _, e := range []error{ptErr, cpErr} {
					if e != nil && !refused(e.Error()) {
						t.Fatalf("door %s: %v", d.id, e)
					}
				}
				what := fmt.Sprintf("%s %s on %s", cp.ns, d.id, cp.sets[j].name(d.base))
				switch {
				case (ptErr != nil) != (cpErr != nil):
					disagreements++
					t.Errorf("%s: per template refused=%v (%v), compact refused=%v (%v)", what, ptErr != nil, ptErr, cpErr != nil, cpErr)
				case (cpErr != nil) != want.Blocked:
					disagreements++
					t.Errorf("%s: compact refused=%v (%v), Explain blocked=%v (%s)", what, cpErr != nil, cpErr, want.Blocked, want.Reason)
				case cpErr != nil && !strings.Contains(cpErr.Error(), want.Message):
					disagreements++
					t.Errorf("%s: the compact refusal does not quote Explain's message %q (template %s):\n%v", what, want.Message, want.Template, cpErr)
				case cpErr != nil:
					refusedBoth++
				}
			}
		}
	}
	t.Logf("%s: %d doors run in both layouts: %d refused by both (the compact refusal quoting Explain's first template), %d admitted by both, %d disagreements",
		target, cases, refusedBoth, cases-refusedBoth-disagreements, disagreements)
}
