package operator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/window"
)

// EdgeSender sends one edge patch as the executor, in the name of the
// plan whose UID it carries. The operator's is impersonating (New); unit
// tests pass a fake.
type EdgeSender interface {
	Send(ctx context.Context, planUID types.UID, p edge.Patch) error
}

// impersonator sends edge patches impersonating the executor service
// account with the user-info extra render.EdgeExtraKey naming the plan:
// what the plan's own policies exempt, and nothing else does. One client
// per plan, since the extra is part of the transport.
type impersonator struct {
	base *rest.Config
	user string

	mu      sync.Mutex
	clients map[types.UID]*dynamic.DynamicClient
}

var _ EdgeSender = (*impersonator)(nil)

// newImpersonator impersonates executor (namespace:name) over base.
func newImpersonator(base *rest.Config, executor string) (*impersonator, error) {
	ns, name, ok := strings.Cut(executor, ":")
	if !ok || ns == "" || name == "" {
		return nil, fmt.Errorf("edge executor %q: want namespace:name of a service account", executor)
	}
	return &impersonator{base: base, user: "system:serviceaccount:" + ns + ":" + name, clients: map[types.UID]*dynamic.DynamicClient{}}, nil
}

func (m *impersonator) client(planUID types.UID) (*dynamic.DynamicClient, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.clients[planUID]; ok {
		return c, nil
	}
	cfg := rest.CopyConfig(m.base)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: m.user, Extra: map[string][]string{render.EdgeExtraKey: {string(planUID)}}}
	c, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	m.clients[planUID] = c
	return c, nil
}

// Send server-side applies p's body to its target (or its /scale), under
// p's field manager, forced only when p says so (edge.Action.Force): an
// ownership conflict is an error the library records (edge.ResultOf).
func (m *impersonator) Send(ctx context.Context, planUID types.UID, p edge.Patch) error {
	gv, err := schema.ParseGroupVersion(p.Target.APIVersion)
	if err != nil {
		return err
	}
	touch, ok := edge.TouchOf(gv.WithKind(p.Target.Kind).GroupKind())
	if !ok {
		return fmt.Errorf("%s: no edge action writes this kind", p.Target)
	}
	c, err := m.client(planUID)
	if err != nil {
		return err
	}
	var sub []string
	if p.Subresource != "" {
		sub = []string{p.Subresource}
	}
	opts := metav1.PatchOptions{FieldManager: p.FieldManager}
	if p.Force {
		opts.Force = &p.Force
	}
	_, err = c.Resource(gv.WithResource(touch.Resource)).Namespace(p.Target.Namespace).
		Patch(ctx, p.Target.Name, types.ApplyPatchType, p.Body, opts, sub...)
	return err
}

// edgePass carries out a plan's edge actions after its pass stored the
// status (p is the plan as stored; cals the calendars its window names,
// as the pass read them): read the journal and the objects the
// actions and the journal name, let reconcile.DecideEdge decide, then in
// this order add the finalizer, persist the journal, send the patches as
// the executor, record their results in the journal, and when every
// restore is done keep the finished journal in the plan's edge history
// (the final report's, store.EdgeFile), delete the journal and remove the
// finalizer. A step that fails stops the pass: the next pass decides
// again from what is stored.
func (r *reconciler) edgePass(ctx context.Context, p *plan.ProtectionPlan, apps []plan.Application, cals map[window.ConfigMapKeyRef][]byte, now time.Time) {
	secret, err := r.kube.EdgeJournal(ctx, edge.SecretName(reconcile.PlanRef(p)))
	if err != nil {
		r.fail("edge", err, "reading the edge journal", "plan", p.Name)
		return
	}
	in := reconcile.EdgeInput{Plan: p, Applications: apps, Limits: r.cfg.EdgeLimits, Executor: r.cfg.EdgeExecutor, Calendars: cals, Now: now}
	in.Journal, in.JournalErr = edge.JournalOf(secret)
	// At most three rounds: decide and send; decide over the results (a
	// restore done deletes the journal in the same pass).
	for round := 0; round < 3; round++ {
		in.Live, err = r.kube.EdgeObjects(ctx, edge.ListKinds(p.Spec.EdgeActions, in.Journal))
		if err != nil {
			r.fail("edge", err, "listing the edge actions' objects", "plan", p.Name)
			return
		}
		out := reconcile.DecideEdge(in)
		if out.Err != nil {
			r.log.Info("edge actions decided nothing", "plan", p.Name, "reason", out.Err.Error())
		}
		if err := r.edgeMetadata(ctx, p, out.AddFinalizer, false, false); err != nil {
			r.fail("edge", err, "adding the edge finalizer", "plan", p.Name)
			return
		}
		in.Plan = p
		d := out.Decision
		if d.Journal != nil {
			if secret, err = r.saveJournal(ctx, secret, *d.Journal); err != nil {
				r.fail("edge", err, "persisting the edge journal; nothing is patched", "plan", p.Name)
				r.edgeStatus(ctx, p, out, now)
				return
			}
			in.Journal = d.Journal
			if r.crashAt(CrashEdgeAfterJournal) {
				return
			}
		}
		if len(d.Patches) > 0 {
			results := make([]edge.Result, len(d.Patches))
			for i, pt := range d.Patches {
				err := errNoExecutor
				if r.edge != nil {
					err = r.edge.Send(ctx, p.UID, pt)
				}
				results[i] = edge.ResultOf(pt.Entry, err)
				r.log.V(1).Info("edge patch", "plan", p.Name, "target", pt.Target.String(), "restore", pt.Restore, "outcome", results[i].Outcome, "message", results[i].Message)
			}
			j := edge.Record(*in.Journal, results)
			if secret, err = r.saveJournal(ctx, secret, j); err != nil {
				r.fail("edge", err, "recording the edge patches' results", "plan", p.Name)
				return
			}
			in.Journal = &j
			continue
		}
		if d.Finished != nil {
			// Kept before the Secret goes: a crash in between keeps it
			// twice, which Keep makes once.
			if err := r.keepFinished(p, *d.Finished); err != nil {
				r.fail("report", err, "keeping the finished edge journal for the final report; the journal is kept", "plan", p.Name)
				return
			}
		}
		if d.DeleteJournal && secret != nil {
			if err := r.c.Delete(ctx, secret, client.Preconditions{UID: &secret.UID, ResourceVersion: &secret.ResourceVersion}); client.IgnoreNotFound(err) != nil {
				r.fail("edge", err, "deleting the finished edge journal", "plan", p.Name)
				return
			}
			secret = nil
		}
		// The abandon annotation is cleared once the journal it gave up
		// is gone: cleared earlier, a failed delete would bring the
		// failed restores back without it.
		if out.RemoveFinalizer || out.ClearAbandon {
			if err := r.edgeMetadata(ctx, p, false, out.RemoveFinalizer, out.ClearAbandon); err != nil {
				r.fail("edge", err, "removing the edge finalizer", "plan", p.Name)
				return
			}
		}
		r.edgeStatus(ctx, p, out, now)
		return
	}
}

var errNoExecutor = errors.New("no edge executor is configured")

// keepFinished adds a finished journal to the plan's edge history, for
// its final report (reconcile.EdgeHistory.Keep decides what is kept).
func (r *reconciler) keepFinished(p *plan.ProtectionPlan, j edge.Journal) error {
	h, err := r.store.LoadEdgeHistory(p.Name)
	if err != nil {
		return err
	}
	return r.store.SaveEdgeHistory(p.Name, h.Keep(p, j))
}

// finalEdge gathers what the final report needs of the plan's edge
// actions: the journal its Secret holds now, if any (read again: the
// edge pass may have finished and deleted it; only for a plan
// reconcile.EdgeInvolved says may have one, so that an operator without
// --release-namespace, where journals live, still writes its reports),
// and the finished journals kept. An error is a read that failed; a journal that cannot be decoded
// is JournalErr, which reconcile weighs.
func (r *reconciler) finalEdge(ctx context.Context, p *plan.ProtectionPlan) (reconcile.FinalEdge, error) {
	var fe reconcile.FinalEdge
	if reconcile.EdgeInvolved(p) {
		secret, err := r.kube.EdgeJournal(ctx, edge.SecretName(reconcile.PlanRef(p)))
		if err != nil {
			return fe, err
		}
		fe.Journal, fe.JournalErr = edge.JournalOf(secret)
	}
	var err error
	fe.History, err = r.store.LoadEdgeHistory(p.Name)
	return fe, err
}

// saveJournal creates or updates the journal's Secret (optimistic
// concurrency on the one read), returning it as stored.
func (r *reconciler) saveJournal(ctx context.Context, cur *corev1.Secret, j edge.Journal) (*corev1.Secret, error) {
	s, err := edge.JournalSecret(r.cfg.Facts.ReleaseNamespace, j, r.cfg.EdgeLimits)
	if err != nil {
		return cur, err
	}
	if cur == nil {
		err = r.c.Create(ctx, s, client.FieldOwner(FieldManager))
		return s, err
	}
	next := cur.DeepCopy()
	next.Data, next.Labels, next.Type = s.Data, s.Labels, s.Type
	if err := r.c.Update(ctx, next, client.FieldOwner(FieldManager)); err != nil {
		return cur, err
	}
	return next, nil
}

// edgeMetadata adds or removes the edge finalizer and clears the abandon
// annotation, as one merge patch guarded by p's resourceVersion; p is
// updated in place.
func (r *reconciler) edgeMetadata(ctx context.Context, p *plan.ProtectionPlan, add, remove, clearAbandon bool) error {
	base := p.DeepCopy()
	changed := false
	if add && !slices.Contains(p.Finalizers, edge.Finalizer) {
		p.Finalizers, changed = append(p.Finalizers, edge.Finalizer), true
	}
	if remove && slices.Contains(p.Finalizers, edge.Finalizer) {
		p.Finalizers, changed = slices.DeleteFunc(slices.Clone(p.Finalizers), func(f string) bool { return f == edge.Finalizer }), true
	}
	if _, ok := p.Annotations[reconcile.AnnotationEdgeAbandon]; clearAbandon && ok {
		p.Annotations = maps2(p.Annotations, reconcile.AnnotationEdgeAbandon)
		changed = true
	}
	if !changed {
		return nil
	}
	return r.c.Patch(ctx, p, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldManager))
}

// maps2 is m without key, a copy.
func maps2(m map[string]string, key string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

// edgeStatus stores the EdgeActions condition when it changed and records
// the events DecideEdge decided, and logs the records of a finished
// journal.
func (r *reconciler) edgeStatus(ctx context.Context, p *plan.ProtectionPlan, out reconcile.EdgeOutput, now time.Time) {
	if out.Decision.Finished != nil {
		for _, rec := range out.Records {
			r.log.Info("edge action finished", "plan", p.Name, "action", rec.Action, "target", rec.Target.String(), "state", rec.State, "reason", rec.Reason)
		}
	}
	if out.Condition == nil || p.DeletionTimestamp != nil && !slices.Contains(p.Finalizers, edge.Finalizer) {
		r.events(p, out.Events)
		return
	}
	if plan.SetCondition(p, *out.Condition, now) {
		if err := r.c.Status().Update(ctx, p); err != nil && !errors.Is(err, context.Canceled) {
			r.fail("status", err, "storing the EdgeActions condition; the next pass does", "plan", p.Name)
		}
	}
	r.events(p, out.Events)
}
