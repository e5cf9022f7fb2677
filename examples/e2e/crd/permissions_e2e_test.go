//go:build e2e

package crd

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/examples/e2e/harness"
	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/examples/operator/operator"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

// grant is one verb on one resource of a role.
type grant struct{ group, resource, verb string }

func (g grant) String() string {
	if g.group == "" {
		return g.verb + " " + g.resource
	}
	return g.verb + " " + g.resource + "." + g.group
}

// notExercised are the operator's permissions a first pass of a new
// kyverno-cel plan does not use, and why they stay.
var notExercised = map[string]string{
	"delete namespacedvalidatingpolicies.policies.kyverno.io": "withdrawing and sweeping policies (a plan ending or deleted)",
	"patch events":                                                          "a repeated event is a patch of its series",
	"patch events.events.k8s.io":                                            "a repeated event is a patch of its series",
	"list protectionplans.telark.io":                                        "client-go lists through a watch (streaming list) where the API server supports it, as 1.36 does; list is the fallback of API servers before 1.34",
	"create leases.coordination.k8s.io":                                     "the first start in a namespace: the Lease exists by now",
	"create policies.kyverno.io":                                            "target kyverno",
	"list policies.kyverno.io":                                              "target kyverno",
	"patch policies.kyverno.io":                                             "target kyverno",
	"delete policies.kyverno.io":                                            "target kyverno",
	"list clusterpolicies.kyverno.io":                                       "target kyverno",
	"create clusterpolicies.kyverno.io":                                     "target kyverno, a namespaceSelectors plan",
	"patch clusterpolicies.kyverno.io":                                      "target kyverno, a namespaceSelectors plan",
	"delete clusterpolicies.kyverno.io":                                     "target kyverno, a namespaceSelectors plan",
	"create validatingpolicies.policies.kyverno.io":                         "a namespaceSelectors plan (this run's is application-scoped)",
	"patch validatingpolicies.policies.kyverno.io":                          "a namespaceSelectors plan (this run's is application-scoped)",
	"delete validatingpolicies.policies.kyverno.io":                         "a namespaceSelectors plan withdrawn",
	"create validatingadmissionpolicies.admissionregistration.k8s.io":       "target vap",
	"list validatingadmissionpolicies.admissionregistration.k8s.io":         "target vap",
	"patch validatingadmissionpolicies.admissionregistration.k8s.io":        "target vap",
	"delete validatingadmissionpolicies.admissionregistration.k8s.io":       "target vap",
	"create validatingadmissionpolicybindings.admissionregistration.k8s.io": "target vap",
	"list validatingadmissionpolicybindings.admissionregistration.k8s.io":   "target vap",
	"patch validatingadmissionpolicybindings.admissionregistration.k8s.io":  "target vap",
	"delete validatingadmissionpolicybindings.admissionregistration.k8s.io": "target vap",
	"patch protectionplans.telark.io":                                       "edge actions: the restore finalizer and the abandon annotation (this run's plan has none, and no --edge-executor)",
	"list horizontalpodautoscalers.autoscaling":                             "edge actions: scale-to reads the HPAs (this run's plan has none)",
	"list applications.argoproj.io":                                         "edge actions: pause-argocd-sync (this run's plan has none)",
	"list kustomizations.kustomize.toolkit.fluxcd.io":                       "edge actions: suspend-flux (this run's plan has none)",
	"list helmreleases.helm.toolkit.fluxcd.io":                              "edge actions: suspend-flux (this run's plan has none)",
	"get secrets":                 "edge actions: the journals in the release namespace (this run's plan has none)",
	"create secrets":              "edge actions: a journal written at a start (the Role); the active probe of a namespaces-scoped plan whose policy does not refuse ConfigMaps, a dry-run create (the ClusterRole); this run's plan has neither",
	"update secrets":              "edge actions: a journal's results recorded (this run's plan has none)",
	"delete secrets":              "edge actions: a journal deleted once restored (this run's plan has none)",
	"impersonate serviceaccounts": "edge actions: the patches sent as --edge-executor (this run has none)",
	"impersonate userextras/protectionplans.telark.io/plan.authentication.k8s.io": "edge actions: the extra naming the plan on the executor's patches (this run has none)",
	// The active probe's dry-run creates (health.Probes): only for a
	// namespaces-scoped enforcing plan (this run's is application-scoped);
	// ../faults TestEnforcementVerified needs them (ProbeRefusedOtherwise
	// without).
	"create configmaps":       "the active probe of a namespaces-scoped plan (a dry-run create)",
	"create serviceaccounts":  "the active probe of a namespaces-scoped plan whose policy refuses neither ConfigMaps nor Secrets (a dry-run create)",
	"create deployments.apps": "the active probe of a namespaces-scoped plan whose policy refuses only workloads (a dry-run create)",
}

// forbidden records the requests the API server refused with 403.
type forbidden struct {
	mu   sync.Mutex
	list []string
	next http.RoundTripper
}

func (f *forbidden) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := f.next.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusForbidden {
		f.mu.Lock()
		f.list = append(f.list, r.Method+" "+r.URL.Path)
		f.mu.Unlock()
	}
	return resp, err
}

func (f *forbidden) naming(resources ...string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, e := range f.list {
		if slices.ContainsFunc(resources, func(r string) bool { return strings.Contains(e, "/"+r) }) {
			out = append(out, e)
		}
	}
	return out
}

// without returns rules with verb g.verb on g.resource taken out.
func without(rules []rbacv1.PolicyRule, g grant) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, r := range rules {
		if !slices.Contains(r.APIGroups, g.group) || !slices.Contains(r.Resources, g.resource) || !slices.Contains(r.Verbs, g.verb) {
			out = append(out, r)
			continue
		}
		if others := slices.DeleteFunc(slices.Clone(r.Resources), func(s string) bool { return s == g.resource }); len(others) > 0 {
			rest := *r.DeepCopy()
			rest.Resources = others
			out = append(out, rest)
		}
		if verbs := slices.DeleteFunc(slices.Clone(r.Verbs), func(s string) bool { return s == g.verb }); len(verbs) > 0 {
			one := *r.DeepCopy()
			one.Resources, one.Verbs = []string{g.resource}, verbs
			out = append(out, one)
		}
	}
	return out
}

// testEachPermissionIsNeeded takes each verb of the operator's generated
// roles out in turn, starts the operator as its ServiceAccount on a new
// application-scoped kyverno-cel plan, and expects a request on that
// resource to be refused (403); or the permission is in notExercised with
// the reason it stays. The permissions notExercised lists are taken out
// all at once, in one run that must refuse none of them: a run without
// each alone could only refuse less (a run stopped early by one refusal
// reports that refusal), and one run instead of one each saves CI about
// five minutes.
func testEachPermissionIsNeeded(t *testing.T, env *harness.Env) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	admin, err := client.New(env.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var cr rbacv1.ClusterRole
	var r rbacv1.Role
	if err := admin.Get(ctx, client.ObjectKey{Name: "protectionplans-operator"}, &cr); err != nil {
		t.Fatal(err)
	}
	if err := admin.Get(ctx, client.ObjectKey{Namespace: "telark-system", Name: "protectionplans-operator"}, &r); err != nil {
		t.Fatal(err)
	}
	type role struct {
		obj      client.Object
		rules    *[]rbacv1.PolicyRule
		original []rbacv1.PolicyRule
	}
	roles := []*role{{&cr, &cr.Rules, slices.Clone(cr.Rules)}, {&r, &r.Rules, slices.Clone(r.Rules)}}
	// withoutGrants stores the roles without gs; the originals are put
	// back when t ends.
	withoutGrants := func(t *testing.T, gs []grant) {
		t.Helper()
		for _, ro := range roles {
			*ro.rules = ro.original
			for _, g := range gs {
				*ro.rules = without(*ro.rules, g)
			}
			if err := admin.Update(ctx, ro.obj); err != nil {
				t.Fatal(err)
			}
		}
		t.Cleanup(func() {
			for _, ro := range roles {
				*ro.rules = ro.original
				if err := admin.Update(ctx, ro.obj); err != nil {
					t.Error(err)
				}
			}
		})
		time.Sleep(time.Second) // the authorizer's informer
	}
	n := 0
	var listed []grant
	seen := map[string]bool{}
	for _, ro := range roles {
		for _, rule := range ro.original {
			for _, res := range rule.Resources {
				for _, verb := range rule.Verbs {
					g := grant{rule.APIGroups[0], res, verb}
					seen[g.String()] = true
					if _, ok := notExercised[g.String()]; ok {
						listed = append(listed, g)
						continue
					}
					n++
					t.Run(g.String(), func(t *testing.T) {
						withoutGrants(t, []grant{g})
						refused := runOnce(t, ctx, env, fmt.Sprintf("perm-%d", n), strings.TrimSuffix(res, "/status"))
						if len(refused) == 0 {
							t.Errorf("without %s nothing was refused: drop the permission, or say in notExercised why it stays", g)
							return
						}
						t.Logf("without %s: refused %v", g, refused)
					})
				}
			}
		}
	}
	for k := range notExercised {
		if !seen[k] {
			t.Errorf("notExercised lists %q, which the generated roles do not grant: drop the line", k)
		}
	}
	t.Run("the permissions not exercised here, all taken out at once", func(t *testing.T) {
		withoutGrants(t, listed)
		var resources []string
		for _, g := range listed {
			resources = append(resources, strings.TrimSuffix(g.resource, "/status"))
		}
		refused := runOnce(t, ctx, env, "perm-unexercised", resources...)
		if len(refused) > 0 {
			t.Errorf("without the %d permissions notExercised lists, refused %v: take them out of notExercised", len(listed), refused)
		}
		for _, g := range listed {
			t.Logf("without %s: not exercised here (%s)", g, notExercised[g.String()])
		}
	})
}

// runOnce starts the operator as its ServiceAccount on a new plan and
// returns the refused requests on resources, once one is seen or after
// 8 s.
func runOnce(t *testing.T, ctx context.Context, env *harness.Env, name string, resources ...string) []string {
	t.Helper()
	manifest := `apiVersion: telark.io/v1alpha1
kind: ProtectionPlan
metadata:
  name: ` + name + `
  annotations: {telark.io/created-by: e2e-admin}
spec:
  name: ` + name + `
  scope: {applications: [rbac-app]}
  templates: [{name: image-change}]
  window: {type: permanent}
  mode: enforce
`
	if _, stderr, err := env.KubectlInput(ctx, manifest, "apply", "-f", "-"); err != nil {
		t.Fatalf("creating the plan: %v\n%s", err, stderr)
	}
	fb := &forbidden{}
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: operatorSA}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { fb.next = rt; return fb })
	mgr, err := operator.NewManager(cfg, operator.ManagerOptions{LeaderElection: true, LeaderElectionNamespace: "telark-system",
		MetricsBindAddress: "0", HealthProbeBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	log, closeLog, err := harness.FileLogger(filepath.Join(env.Dir, "operator-permissions.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer closeLog()
	op, err := operator.New(operator.Config{Target: render.TargetKyvernoCEL, ReportsDir: t.TempDir(), Log: log,
		Facts:  kube.Facts{ReleaseNamespace: "telark-system"}, // as config/manager passes it: the categories ConfigMap is read
		Timing: reconcile.Timing{TickInterval: 2 * time.Second, ReportCheckpoint: 10 * time.Second}}, mgr)
	if err != nil {
		t.Fatal(err)
	}
	opCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- op.Run(opCtx) }()
	deadline := time.After(8 * time.Second)
	for len(fb.naming(resources...)) == 0 {
		select {
		case <-deadline:
		case <-time.After(200 * time.Millisecond):
			continue
		}
		break
	}
	stop()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the operator did not stop within 30 s")
	}
	return fb.naming(resources...)
}
