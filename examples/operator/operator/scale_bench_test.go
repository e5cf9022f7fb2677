package operator

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/internal/cputime"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// scaleTemplates are the template pairs the scale plans take in turn (as
// the end-to-end TestOperatorAtScale's).
var scaleTemplates = [][2]string{{"delete", "scaling"}, {"create", "image-change"}, {"configmap-edits", "rollout-restart"}, {"secret-edits", "storage"}}

// scaleCluster is n plans of two templates over five namespaces each (ten
// policies a plan), every tenth over the namespaces of a label group, and
// the n/2 namespaces they share: the end-to-end TestOperatorAtScale's
// cluster, on the fake client.
func scaleCluster(n int) []client.Object {
	pool := max(10, n/2)
	var objs []client.Object
	for i := range pool {
		objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("scale-%04d", i),
			Labels: map[string]string{"scale-group": fmt.Sprintf("g%d", i%10)}}})
	}
	for i := range n {
		tpl := scaleTemplates[i%len(scaleTemplates)]
		p := kubectlPlan(fmt.Sprintf("scale-%04d", i), plan.ModeEnforce, nil, tpl[0], tpl[1])
		if i%10 == 9 {
			p.Spec.Scope.NamespaceSelectors = []metav1.LabelSelector{{MatchLabels: map[string]string{"scale-group": fmt.Sprintf("g%d", i%10)}}}
		} else {
			for j := range 5 {
				p.Spec.Scope.Namespaces = append(p.Spec.Scope.Namespaces, fmt.Sprintf("scale-%04d", (i*5+j)%pool))
			}
		}
		objs = append(objs, p)
	}
	return objs
}

// steadyFixture is a fixture over scaleCluster(n) whose plans are all put
// in place: the next pass is a steady-state one.
func steadyFixture(tb testing.TB, n int, opts ...fixtureOption) *fixture {
	f := newFixture(tb, scaleCluster(n), opts...)
	f.r.recorder = nil // the fake recorder's channel would fill up and block
	f.pass()           // created, put in place
	// An API server gives every object a uid (health.Verified remembers
	// objects by it); the fake client gives none.
	for _, gvk := range targetKinds(tb, f.target) {
		for _, u := range f.list(gvk, "") {
			u.SetUID(types.UID("uid-" + u.GetNamespace() + "-" + u.GetName()))
			if err := f.c.Update(context.Background(), &u); err != nil {
				tb.Fatal(err)
			}
		}
	}
	f.pass() // health recorded after the first deployment
	if w := f.pass(); len(w) != 0 {
		tb.Fatalf("a steady pass over %d plans wrote %d times, first %q", n, len(w), w[0])
	}
	return f
}

// BenchmarkSteadyPass is one steady-state pass of the operator over 100
// and 1,000 plans (1,000 and 10,000 policies) on the fake client: what a
// pass costs once nothing changes (issue 25, item 5), with the policies
// held between passes (held: kube.Reader.HoldPolicies, the operator's)
// and, as the baseline on the same fixture in the same run, listed in
// full every pass (listed), in turn, steadyRounds times each. The fake
// client's own lists are in the figure (its metadata list still converts
// whole objects, where an API server sends metadata alone): the held
// figure is an upper bound. cpu-ms/pass is the process's CPU time, the
// garbage collector's included, the machine's load excluded; profile
// with -cpuprofile.
func BenchmarkSteadyPass(b *testing.B) {
	const steadyRounds = 5
	for _, target := range []render.Target{render.TargetVAP, render.TargetKyverno} {
		for _, n := range []int{100, 1000} {
			key := fmt.Sprintf("%s/%dplans", target, n)
			// Built once, on the first sub-benchmark that runs: 1,000
			// plans' policies take minutes to create on the fake client.
			// Its reports directory is the outer benchmark's, which
			// outlives the rounds.
			var f *fixture
			for range steadyRounds {
				for _, held := range []bool{false, true} {
					name := key + "/listed"
					if held {
						name = key + "/held"
					}
					b.Run(name, func(sb *testing.B) {
						if f == nil {
							f = steadyFixture(b, n, withTarget(target))
						}
						f.t = sb
						kr := kube.New(f.c, f.r.cfg.Facts)
						if held {
							kr.HoldPolicies()
						}
						f.r.kube = kr
						f.pass() // held: the first pass lists in full
						sb.ReportAllocs()
						cpu0, passes := cputime.Used(), 0
						for sb.Loop() {
							if w := f.pass(); len(w) != 0 {
								sb.Fatalf("a steady pass wrote %q", w)
							}
							passes++
						}
						sb.ReportMetric(float64((cputime.Used()-cpu0).Milliseconds())/float64(passes), "cpu-ms/pass")
					})
				}
			}
		}
	}
}
