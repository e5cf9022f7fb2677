package kube_test

import (
	"context"
	"flag"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// A binary registers the shared flags, then reads the facts from its
// client: here, what plan.Validate needs.
func Example() {
	fs := flag.NewFlagSet("operator", flag.ContinueOnError)
	var facts kube.Facts
	facts.RegisterFlags(fs)
	_ = fs.Parse([]string{"--excluded-namespaces=kube-system,monitoring"})

	c := fake.NewClientBuilder().WithObjects(
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "telark-system"}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cart",
			Labels: map[string]string{plan.InstanceLabel: "webshop"}}},
	).Build()
	r := kube.New(c, facts)
	ctx := context.Background()

	view, err := r.ClusterView(ctx)
	if err != nil {
		panic(err)
	}
	var _ plan.ClusterView = view
	excluded, _ := view.IsExcludedNamespace("monitoring")
	fmt.Println("namespaces:", view.Namespaces)
	fmt.Println("release namespace telark-system:", view.IsReleaseNamespace("telark-system"))
	fmt.Println("monitoring excluded:", excluded)

	app, err := r.Applications(ctx).ResolveApplication("webshop")
	fmt.Println("webshop:", app.Namespaces, err)

	_, err = r.Policies(ctx, render.TargetKyverno, kube.AllPlans)
	if kube.IsNotServed(err) {
		fmt.Println("Kyverno is not installed")
	}
	// Output:
	// namespaces: [shop telark-system]
	// release namespace telark-system: true
	// monitoring excluded: true
	// webshop: [shop] <nil>
}
