package kube

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

// Pass is what one pass reads of the cluster: reconcile.Cluster, and the
// policies of every plan.
type Pass struct {
	Cluster *reconcile.Cluster
	// Live are every plan's policies of the target.
	Live []*unstructured.Unstructured
}

// Cluster reads the cluster facts reconcile.Decide takes for a pass over
// plans: the namespaces, the release and excluded namespaces, the
// categories, the application members when some plan needs them
// (reconcile.NeedsApplications), and every plan's policies of target (a
// kind that is not served is the Cluster's PolicyAPI, not an error). An
// excluded list or categories that cannot be read are the Cluster's
// ExcludedErr and CategoriesErr: only the plans that need them wait. Any
// other failed read is an error: the pass is skipped.
func (r *Reader) Cluster(ctx context.Context, target render.Target, plans []*plan.ProtectionPlan) (Pass, error) {
	c := &reconcile.Cluster{Namespaces: map[string]bool{}, ReleaseNamespace: r.facts.ReleaseNamespace, Plans: plans}
	live, err := r.Policies(ctx, target, AllPlans)
	switch {
	case IsNotServed(err):
		c.PolicyAPI = err
	case err != nil:
		return Pass{}, err
	}
	ns, labels, err := r.NamespacesAndLabels(ctx)
	if err != nil {
		return Pass{}, err
	}
	c.NamespaceLabels = labels
	for _, n := range ns {
		c.Namespaces[n] = true
	}
	c.Excluded, c.ExcludedErr = r.Excluded(ctx)
	if reconcile.NeedsKinds(plans) {
		if c.Kinds, err = r.ServedKinds(ctx); err != nil {
			return Pass{}, err
		}
	}
	c.Categories, _, c.CategoriesErr = r.Categories(ctx)
	if reconcile.NeedsApplications(plans) {
		objs, err := r.Members(ctx)
		if err != nil {
			return Pass{}, err
		}
		c.Applications = plan.InstanceLabelResolver{Objects: objs}
	}
	return Pass{Cluster: c, Live: live}, nil
}
