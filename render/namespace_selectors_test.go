package render

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/plan"
)

// selectorPlan is the summer freeze over namespaces chosen by labels.
func selectorPlan(mode plan.Mode, sels []metav1.LabelSelector, templates ...plan.TemplateRef) *plan.ProtectionPlan {
	p := namespacePlan(mode, nil, templates...)
	p.Spec.Scope = plan.Scope{NamespaceSelectors: sels}
	return p
}

func teamSelector(v string) metav1.LabelSelector {
	return metav1.LabelSelector{MatchLabels: map[string]string{"team": v}}
}

var prodSelector = metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
	{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod"}}}}

func selectorInput(target Target, p *plan.ProtectionPlan) Input {
	return Input{Plan: p, Now: now, Target: target, ReleaseNamespace: "telark-system", ExcludedNamespaces: []string{"legacy"}}
}

func TestGolden_NamespaceSelectors(t *testing.T) {
	for _, target := range Targets() {
		name := goldenName(target, "namespace_selectors_enforce")
		t.Run(name, func(t *testing.T) {
			p := selectorPlan(plan.ModeEnforce, []metav1.LabelSelector{teamSelector("payments"), prodSelector}, tpl("delete"), tpl("scaling"))
			checkGolden(t, name, mustYAML(t, mustRender(t, selectorInput(target, p))))
		})
		name = goldenName(target, "whole_cluster_audit")
		t.Run(name, func(t *testing.T) {
			p := selectorPlan(plan.ModeAudit, []metav1.LabelSelector{{}}, tpl("all-writes"))
			p.Spec.Requesters = &plan.Requesters{Exclude: plan.RequesterSet{Users: []string{"release-bot"}}}
			checkGolden(t, name, mustYAML(t, mustRender(t, selectorInput(target, p))))
		})
	}
}

// namespaceSelectorOf reads the namespace selector each target writes
// into a policy of a namespaceSelectors scope.
func namespaceSelectorOf(t *testing.T, p Policy) any {
	t.Helper()
	o := p.Objects[len(p.Objects)-1].Object
	var v any
	var found bool
	switch p.Target {
	case TargetKyverno:
		rules, _, _ := unstructured.NestedSlice(o, "spec", "rules")
		filters, _, _ := unstructured.NestedSlice(rules[0].(map[string]any), "match", "any")
		v, found, _ = unstructured.NestedFieldNoCopy(filters[0].(map[string]any), "resources", "namespaceSelector")
	case TargetKyvernoCEL:
		v, found, _ = unstructured.NestedFieldNoCopy(o, "spec", "matchConstraints", "namespaceSelector")
	case TargetVAP:
		v, found, _ = unstructured.NestedFieldNoCopy(o, "spec", "matchResources", "namespaceSelector")
	}
	if !found {
		t.Fatalf("%s %s: no namespace selector", p.Target, p.Name)
	}
	return v
}

func TestRender_NamespaceSelectors(t *testing.T) {
	leftOut := []any{"kube-node-lease", "kube-public", "kube-system", "legacy", "telark-system"}
	notIn := map[string]any{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": leftOut}
	kinds := map[Target][2]string{
		TargetKyverno: {"ClusterPolicy", "ClusterPolicy"}, TargetKyvernoCEL: {"ValidatingPolicy", "ValidatingPolicy"},
		TargetVAP: {"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"},
	}
	for _, target := range Targets() {
		t.Run(string(target), func(t *testing.T) {
			p := selectorPlan(plan.ModeEnforce, []metav1.LabelSelector{teamSelector("payments"), prodSelector}, tpl("delete"))
			res := mustRender(t, selectorInput(target, p))
			var names []string
			for _, pol := range res.Policies {
				names = append(names, pol.Name)
				if pol.Namespace != "" || pol.Objects[0].GetNamespace() != "" {
					t.Errorf("policies of a selector scope are cluster-wide: %s is in %q", pol.Name, pol.Namespace)
				}
				if got := [2]string{pol.Objects[0].GetKind(), pol.Objects[len(pol.Objects)-1].GetKind()}; got != kinds[target] {
					t.Errorf("%s is a %v, want %v", pol.Name, got, kinds[target])
				}
				if id, ok := Identify(pol.Objects[0]); !ok || id.Namespace != "" || id.Name != pol.Name || id.Template != pol.Template {
					t.Errorf("Identify(%s) = %+v, %v: a cluster-wide policy is identified with no namespace", pol.Name, id, ok)
				}
			}
			want := []string{"summer-freeze-delete-s0", "summer-freeze-delete-s1", "summer-freeze-namespace-labels"}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Fatalf("one policy per template and selector, and the relabel guard (-want +got):\n%s", diff)
			}
			// Each selector is the plan's, ANDed with the namespaces
			// always left out.
			first := map[string]any{"matchLabels": map[string]any{"team": "payments"}, "matchExpressions": []any{notIn}}
			second := map[string]any{"matchExpressions": []any{
				map[string]any{"key": "env", "operator": "In", "values": []any{"prod"}}, notIn}}
			if diff := cmp.Diff(first, namespaceSelectorOf(t, res.Policies[0])); diff != "" {
				t.Errorf("the first selector, with the namespaces always left out (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(second, namespaceSelectorOf(t, res.Policies[1])); diff != "" {
				t.Errorf("the second selector, with the namespaces always left out (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRender_NamespaceSelectorsRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		in   Input
		want string
	}{
		"a selector scope without the release namespace is refused": {
			in: Input{Plan: selectorPlan(plan.ModeEnforce, []metav1.LabelSelector{{}}, tpl("delete")), Now: now},
			want: "releaseNamespace: Required value: a namespaceSelectors scope always leaves the release namespace out; " +
				"the render needs its name",
		},
		"an invalid selector is refused, naming it": {
			in: selectorInput(TargetKyverno, selectorPlan(plan.ModeEnforce, []metav1.LabelSelector{{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "env", Operator: "Near", Values: []string{"prod"}}}}}, tpl("delete"))),
			want: `spec.scope.namespaceSelectors[0]: Invalid value: "<error>": "Near" is not a valid label selector operator`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Render(tc.in)
			var verr *plan.ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("err = %v, want a *plan.ValidationError", err)
			}
			if err.Error() != tc.want {
				t.Errorf("err = %q\nwant  %q", err.Error(), tc.want)
			}
		})
	}
}

func TestRender_OtherScopesHaveNoRelabelGuard(t *testing.T) {
	for _, target := range Targets() {
		res := mustRender(t, Input{Plan: namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("delete")), Now: now, Target: target})
		if slices.ContainsFunc(res.Policies, func(p Policy) bool { return p.Template == NamespaceLabelsTemplate }) {
			t.Errorf("%s: a namespaces scope rendered a %s policy", target, NamespaceLabelsTemplate)
		}
	}
}

func TestExplain_NamespaceSelectors(t *testing.T) {
	deleteIn := func(ns string, labels map[string]string) Request {
		return Request{Operation: OpDelete, Kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, Namespace: ns, Name: "web", NamespaceLabels: labels,
			UserInfo: UserInfo{Username: "alice"}}
	}
	sels := []metav1.LabelSelector{teamSelector("payments"), prodSelector}
	for name, tc := range map[string]struct {
		sels        []metav1.LabelSelector
		req         Request
		wantBlocked bool
		wantPolicy  string
		wantReason  map[Target]string
	}{
		"a delete in a namespace the first selector selects is refused by that selector's policy": {
			sels: sels, req: deleteIn("pay", map[string]string{"team": "payments"}), wantBlocked: true,
			wantPolicy: "summer-freeze-delete-s0",
			wantReason: map[Target]string{
				TargetKyverno:    "refused by rule delete of ClusterPolicy summer-freeze-delete-s0",
				TargetKyvernoCEL: "refused by rule delete of ValidatingPolicy summer-freeze-delete-s0",
				TargetVAP:        "refused by rule delete of ValidatingAdmissionPolicy summer-freeze-delete-s0",
			},
		},
		"selectors are ORed: the second selecting is enough": {
			sels: sels, req: deleteIn("web", map[string]string{"env": "prod"}), wantBlocked: true, wantPolicy: "summer-freeze-delete-s1",
		},
		"a namespace no selector selects is not in scope": {
			sels: sels, req: deleteIn("web", map[string]string{"env": "dev"}),
			wantReason: map[Target]string{TargetKyverno: `namespace "web" is not in the plan's scope`},
		},
		"the release namespace is not in scope whatever its labels": {
			sels: sels, req: deleteIn("telark-system", map[string]string{"team": "payments"}),
		},
		"the whole cluster covers a namespace without labels": {
			sels: []metav1.LabelSelector{{}}, req: deleteIn("bare", nil), wantBlocked: true, wantPolicy: "summer-freeze-delete-s0",
		},
		"the whole cluster leaves kube-system out": {
			sels: []metav1.LabelSelector{{}}, req: deleteIn("kube-system", nil),
		},
		"the whole cluster leaves an excluded namespace out": {
			sels: []metav1.LabelSelector{{}}, req: deleteIn("legacy", nil),
		},
	} {
		t.Run(name, func(t *testing.T) {
			for _, target := range Targets() {
				d, err := Explain(selectorInput(target, selectorPlan(plan.ModeEnforce, tc.sels, tpl("delete"))), tc.req)
				if err != nil {
					t.Fatal(err)
				}
				if d.Blocked != tc.wantBlocked || d.Policy != tc.wantPolicy {
					t.Errorf("%s: blocked %v by %q, want %v by %q (%s)", target, d.Blocked, d.Policy, tc.wantBlocked, tc.wantPolicy, d.Reason)
				}
				if want, ok := tc.wantReason[target]; ok && d.Reason != want {
					t.Errorf("%s: reason %q, want %q", target, d.Reason, want)
				}
				if d.Blocked && d.Namespace != tc.req.Namespace {
					t.Errorf("%s: decision namespace %q, want the request's %q", target, d.Namespace, tc.req.Namespace)
				}
				// The policy is cluster-wide: kubectl names it alone.
				if d.Blocked && d.PolicyRef(target) != d.Policy {
					t.Errorf("%s: policy named %q, want the cluster-wide policy's name %q", target, d.PolicyRef(target), d.Policy)
				}
			}
		})
	}
}

func TestExplain_NamespaceRelabel(t *testing.T) {
	nsUpdate := func(user string, old, new map[string]any) Request {
		return Request{Operation: OpUpdate, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, Name: "pay",
			OldObject: map[string]any{"metadata": map[string]any{"name": "pay", "labels": old}},
			Object:    map[string]any{"metadata": map[string]any{"name": "pay", "labels": new}},
			UserInfo:  UserInfo{Username: user}}
	}
	payments := map[string]any{"team": "payments"}
	for name, tc := range map[string]struct {
		req  Request
		want bool
	}{
		"removing the label that put a namespace in scope is refused": {nsUpdate("alice", payments, map[string]any{}), true},
		"changing it to a value no selector selects is refused":       {nsUpdate("alice", payments, map[string]any{"team": "web"}), true},
		"moving it to another selector keeps it in scope":             {nsUpdate("alice", payments, map[string]any{"env": "prod"}), false},
		"an unrelated label is admitted":                              {nsUpdate("alice", payments, map[string]any{"team": "payments", "x": "y"}), false},
		"labelling a namespace into scope is admitted":                {nsUpdate("alice", map[string]any{}, payments), false},
		"an exempt requester may relabel":                             {nsUpdate("release-bot", payments, map[string]any{}), false},
	} {
		t.Run(name, func(t *testing.T) {
			for _, target := range Targets() {
				p := selectorPlan(plan.ModeEnforce, []metav1.LabelSelector{teamSelector("payments"), prodSelector}, tpl("delete"))
				p.Spec.Requesters = &plan.Requesters{Exclude: plan.RequesterSet{Users: []string{"release-bot"}}}
				d, err := Explain(selectorInput(target, p), tc.req)
				if err != nil {
					t.Fatal(err)
				}
				if d.Blocked != tc.want {
					t.Errorf("%s: blocked %v, want %v (%s)", target, d.Blocked, tc.want, d.Reason)
				}
				if d.Blocked && (d.Policy != "summer-freeze-namespace-labels" || d.Template != NamespaceLabelsTemplate) {
					t.Errorf("%s: decided by %s/%s", target, d.Template, d.Policy)
				}
			}
		})
	}
}

func TestSmallRequest_NamespaceLabels(t *testing.T) {
	req, err := SmallRequest{Operation: "delete", Kind: "Deployment", Namespace: "pay", Name: "web", User: "alice",
		NamespaceLabels: map[string]string{"team": "payments"}}.Request()
	if err != nil {
		t.Fatal(err)
	}
	p := selectorPlan(plan.ModeEnforce, []metav1.LabelSelector{teamSelector("payments")}, tpl("delete"))
	d, err := Explain(selectorInput(TargetKyverno, p), req)
	if err != nil || !d.Blocked {
		t.Errorf("a small request with its namespace's labels is decided by the selector: %+v, %v", d, err)
	}
}
