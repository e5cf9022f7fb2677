package plan

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const snapshotYAML = `# what validate --cluster reads
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

func TestClusterSnapshot_DecodesFromYAML(t *testing.T) {
	var snap ClusterSnapshot
	if err := Decode(strings.NewReader(snapshotYAML), &snap); err != nil {
		t.Fatal(err)
	}
	want := ClusterSnapshot{
		Namespaces:         []string{"shop", "payments", "telark-system"},
		ReleaseNamespace:   "telark-system",
		ExcludedNamespaces: []string{"kube-system"},
		Plans:              []PlanName{{ID: "xmas", Name: "Christmas freeze"}},
		Applications: []Application{{Name: "checkout", Namespaces: []string{"shop"},
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "checkout"}},
			Members:  []ResourceRef{{Kind: "Deployment", Name: "checkout", Namespace: "shop"}}}},
	}
	if diff := cmp.Diff(want, snap); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}
	err := Decode(strings.NewReader("namespace: [shop]\n"), &snap)
	if want := "invalid YAML body: namespace: unknown field"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestClusterSnapshot_Answers(t *testing.T) {
	snap := testSnapshot()
	if !snap.HasNamespace("shop") || snap.HasNamespace("ghost") {
		t.Error("HasNamespace")
	}
	if !snap.IsReleaseNamespace("telark-system") || snap.IsReleaseNamespace("shop") || (ClusterSnapshot{}).IsReleaseNamespace("") {
		t.Error("IsReleaseNamespace")
	}
	if ex, err := snap.IsExcludedNamespace("kube-system"); !ex || err != nil {
		t.Errorf("IsExcludedNamespace = %v, %v", ex, err)
	}
	snap.ExcludedUnreadable = true
	if _, err := snap.IsExcludedNamespace("shop"); !errors.Is(err, ErrExcludedUnreadable) {
		t.Errorf("an unreadable list answers %v", err)
	}
	if ids, _ := snap.PlansNamed(" CHRISTMAS freeze"); !cmp.Equal(ids, []string{"xmas"}) {
		t.Errorf("PlansNamed = %v", ids)
	}
	if _, err := snap.ResolveApplication("ghost"); !errors.Is(err, ErrApplicationNotFound) ||
		err.Error() != `application not found: "ghost"` {
		t.Errorf("ResolveApplication(ghost) = %v", err)
	}
}

func TestValidationError_CodeFollowsTheKindsOfProblem(t *testing.T) {
	cases := map[string]struct {
		change func(*ProtectionPlan, *ValidationEnv)
		code   int
	}{
		"a taken name alone is a conflict": {
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Name = "Christmas freeze" }, code: 409,
		},
		"a taken name with a bad namespace is a bad request": {
			change: func(p *ProtectionPlan, _ *ValidationEnv) {
				p.Spec.Name = "Christmas freeze"
				p.Spec.Scope.Namespaces = []string{"ghost"}
			}, code: 400,
		},
		"anything with an unreadable dependency is unavailable": {
			change: func(p *ProtectionPlan, env *ValidationEnv) {
				p.Spec.Name = "Christmas freeze"
				p.Spec.Scope.Namespaces = []string{"ghost"}
				snap := testSnapshot()
				snap.ExcludedUnreadable = true
				env.Cluster = snap
			}, code: 503,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p, env := holiday(), testEnv(at("Tue Dec 1 2026 10:00 UTC"))
			tc.change(p, &env)
			if got := CodeOf(Validate(p, env)); got != tc.code {
				t.Errorf("code = %d, want %d", got, tc.code)
			}
		})
	}
}
