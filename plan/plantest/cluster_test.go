package plantest_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/plan/plantest"
)

const snapshotYAML = `# what protectctl validate --cluster reads
namespaces: [shop, payments, telark-system]
releaseNamespace: telark-system
excludedNamespaces: [kube-system]
plans:
- {id: xmas, name: Christmas freeze}
applications:
- name: checkout
  namespaces: [shop]
  selector: {matchLabels: {app: checkout}}
  members:
  - {kind: Deployment, name: checkout, namespace: shop}
`

func snapshot() plantest.Cluster {
	return plantest.Cluster{
		Namespaces:         []string{"shop", "payments", "telark-system"},
		ReleaseNamespace:   "telark-system",
		ExcludedNamespaces: []string{"kube-system"},
		Plans:              []plantest.PlanName{{ID: "xmas", Name: "Christmas freeze"}},
		Applications: []plan.Application{{Name: "checkout", Namespaces: []string{"shop"},
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "checkout"}},
			Members:  []plan.ResourceRef{{Kind: "Deployment", Name: "checkout", Namespace: "shop"}}}},
	}
}

func TestCluster_DecodesFromYAML(t *testing.T) {
	var snap plantest.Cluster
	if err := plan.Decode(strings.NewReader(snapshotYAML), &snap); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(snapshot(), snap); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}
	err := plan.Decode(strings.NewReader("namespace: [shop]\n"), &snap)
	if want := "invalid YAML body: namespace: unknown field"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestCluster_Answers(t *testing.T) {
	unreadable := snapshot()
	unreadable.ExcludedUnreadable = true
	cases := map[string]struct {
		ask  func() any
		want any
	}{
		"a namespace listed exists":                      {func() any { return snapshot().HasNamespace("shop") }, true},
		"a namespace not listed does not":                {func() any { return snapshot().HasNamespace("ghost") }, false},
		"the release namespace is the release namespace": {func() any { return snapshot().IsReleaseNamespace("telark-system") }, true},
		"another namespace is not":                       {func() any { return snapshot().IsReleaseNamespace("shop") }, false},
		"no release namespace matches the empty name":    {func() any { return plantest.Cluster{}.IsReleaseNamespace("") }, false},
		"an excluded namespace is excluded":              {func() any { ex, err := snapshot().IsExcludedNamespace("kube-system"); return fmt.Sprint(ex, err) }, "true <nil>"},
		"an unreadable excluded list says so": {func() any {
			_, err := unreadable.IsExcludedNamespace("shop")
			return errors.Is(err, plantest.ErrExcludedUnreadable)
		}, true},
		"a display name is found ignoring case and spaces": {func() any { ids, _ := snapshot().PlansNamed(" CHRISTMAS freeze"); return fmt.Sprint(ids) }, "[xmas]"},
		"an application listed resolves":                   {func() any { a, err := snapshot().ResolveApplication("checkout"); return a.Name + " " + fmt.Sprint(err) }, "checkout <nil>"},
		"an application not listed is not found, by its type": {func() any {
			_, err := snapshot().ResolveApplication("ghost")
			return errors.Is(err, plan.ErrApplicationNotFound)
		}, true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := c.ask(); got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

func ExampleCluster() {
	snap := plantest.Cluster{
		Namespaces:       []string{"shop", "telark-system"},
		ReleaseNamespace: "telark-system",
		Plans:            []plantest.PlanName{{ID: "xmas", Name: "Holiday freeze"}},
	}
	env := plan.ValidationEnv{Cluster: snap, Names: snap, Applications: snap}
	p := &plan.ProtectionPlan{Spec: plan.Spec{Name: "holiday FREEZE", Scope: plan.Scope{Namespaces: []string{"shop", "telark-system", "ghost"}}}}
	for _, pr := range plan.ProblemsOf(plan.Validate(p, env)) {
		if strings.HasPrefix(pr.Field, "spec.name") || strings.HasPrefix(pr.Field, "spec.scope") {
			fmt.Println(pr.Field, pr.Code)
		}
	}
	// Output:
	// spec.name 409
	// spec.scope.namespaces[1] 400
	// spec.scope.namespaces[2] 400
}
