package operator

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/window"
)

const testExecutor = "telark-system:edge-executor"

// fakeSender carries out edge patches on the fake cluster as server-side
// apply would for our single field: the value at the action's pointer is
// set, or removed when the configuration leaves it out; the uid in the
// body is a precondition. It records every patch it was sent.
type fakeSender struct {
	f    *fixture
	sent []string
}

func (s *fakeSender) Send(ctx context.Context, planUID types.UID, p edge.Patch) error {
	gv, _ := schema.ParseGroupVersion(p.Target.APIVersion)
	touch, ok := edge.TouchOf(gv.WithKind(p.Target.Kind).GroupKind())
	if !ok {
		return fmt.Errorf("no touch for %s", p.Target)
	}
	var body map[string]any
	if err := json.Unmarshal(p.Body, &body); err != nil {
		return err
	}
	s.sent = append(s.sent, fmt.Sprintf("%s %s restore=%v plan=%s manager=%s", p.Target, p.Subresource, p.Restore, planUID, p.FieldManager))
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gv.WithKind(p.Target.Kind))
	if err := s.f.c.Get(ctx, client.ObjectKey{Namespace: p.Target.Namespace, Name: p.Target.Name}, u); err != nil {
		return err
	}
	if uid, _, _ := unstructured.NestedString(body, "metadata", "uid"); uid != string(u.GetUID()) {
		return apierrors.NewConflict(schema.GroupResource{Group: gv.Group, Resource: touch.Resource}, p.Target.Name, fmt.Errorf("uid %s is not %s", uid, u.GetUID()))
	}
	path := strings.Split(strings.TrimPrefix(touch.Pointer, "/"), "/")
	if v, found, _ := unstructured.NestedFieldNoCopy(body, path...); found {
		_ = unstructured.SetNestedField(u.Object, v, path...)
	} else {
		unstructured.RemoveNestedField(u.Object, path...)
	}
	return s.f.c.Update(ctx, u)
}

// edgeFixture is a fixture whose operator carries out edge actions through
// a fakeSender, over CronJobs and a Deployment in shop, with the plan
// "xmas" whose window holds from an hour before t0 to an hour after.
func edgeFixture(t *testing.T, actions []edge.Action, objs ...client.Object) (*fixture, *fakeSender) {
	t.Helper()
	p := kubectlPlan("xmas", plan.ModeEnforce, []string{"shop"}, "scaling")
	p.Spec.Window = window.Spec{Type: window.TimeRange, StartAt: &metav1.Time{Time: t0.Add(-time.Hour)}, EndAt: &metav1.Time{Time: t0.Add(time.Hour)}}
	p.Spec.EdgeActions = actions
	f := newFixture(t, append([]client.Object{namespace("shop"), namespace("telark-system"), p}, objs...))
	f.r.cfg.EdgeExecutor, f.r.cfg.Facts.ReleaseNamespace = testExecutor, "telark-system"
	s := &fakeSender{f: f}
	f.r.kube = kube.New(f.c, f.r.cfg.Facts)
	f.r.edge = s
	f.r.log = testr.New(t)
	return f, s
}

func cron(name string, suspend *bool) *batchv1.CronJob {
	return &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID("uid-" + name)},
		Spec: batchv1.CronJobSpec{Schedule: "@hourly", Suspend: suspend}}
}

func (f *fixture) suspended(name string) *bool {
	f.t.Helper()
	c := &batchv1.CronJob{}
	if err := f.c.Get(context.Background(), client.ObjectKey{Namespace: "shop", Name: name}, c); err != nil {
		f.t.Fatal(err)
	}
	return c.Spec.Suspend
}

func (f *fixture) journal(p *plan.ProtectionPlan) *edge.Journal {
	f.t.Helper()
	s := &corev1.Secret{}
	err := f.c.Get(context.Background(), client.ObjectKey{Namespace: "telark-system", Name: edge.SecretName(reconcile.PlanRef(p))}, s)
	if apierrors.IsNotFound(err) {
		return nil
	}
	j, err := edge.JournalOf(s)
	if err != nil {
		f.t.Fatal(err)
	}
	return j
}

func show(b *bool) string {
	if b == nil {
		return "absent"
	}
	return fmt.Sprint(*b)
}

func TestEdge_CronJobsSuspendedAtTheStartAndRestoredAtTheEnd(t *testing.T) {
	f, s := edgeFixture(t, []edge.Action{{Name: edge.SuspendCronJobs}}, cron("report", nil), cron("cleanup", ptrTo(true)), cron("sync", ptrTo(false)))

	f.pass()
	p := f.plan("xmas")
	if p.Status.Phase != plan.PhaseActive {
		t.Fatalf("phase %s", p.Status.Phase)
	}
	if got := show(f.suspended("report")) + " " + show(f.suspended("cleanup")) + " " + show(f.suspended("sync")); got != "true true true" {
		t.Errorf("during the window: report, cleanup, sync suspended = %s, want true true true", got)
	}
	if !slices.Contains(p.Finalizers, edge.Finalizer) {
		t.Errorf("finalizers %v, want %s while restores are pending", p.Finalizers, edge.Finalizer)
	}
	if c := condition(p, reconcile.ConditionEdgeActions); c.Reason != reconcile.EdgeStarted {
		t.Errorf("EdgeActions %s %q, want Started", c.Reason, c.Message)
	}
	j := f.journal(p)
	if j == nil || j.Phase != edge.Started || len(j.Entries) != 3 {
		t.Fatalf("journal %+v", j)
	}
	want := []string{
		"CronJob shop/report  restore=false plan=uid-xmas manager=protectionplans-edge",
		"CronJob shop/sync  restore=false plan=uid-xmas manager=protectionplans-edge",
	}
	if !slices.Equal(s.sent, want) {
		t.Errorf("sent %q, want %q (the already suspended cleanup untouched)", s.sent, want)
	}

	s.sent = nil
	f.tick(time.Minute)
	if len(s.sent) != 0 {
		t.Errorf("a pass in the same window sent %q, want nothing", s.sent)
	}

	f.tick(2 * time.Hour) // the window ends
	p = f.plan("xmas")
	if got := show(f.suspended("report")) + " " + show(f.suspended("cleanup")) + " " + show(f.suspended("sync")); got != "absent true false" {
		t.Errorf("after the window: report, cleanup, sync suspended = %s, want absent true false (each as it was)", got)
	}
	if f.journal(p) != nil || slices.Contains(p.Finalizers, edge.Finalizer) {
		t.Errorf("journal %+v, finalizers %v: want both gone once restored", f.journal(p), p.Finalizers)
	}
	if c := condition(p, reconcile.ConditionEdgeActions); c.Reason != reconcile.EdgeRestored {
		t.Errorf("EdgeActions %s %q, want Restored", c.Reason, c.Message)
	}
	if evs := strings.Join(f.drainEvents(), "\n"); !strings.Contains(evs, "EdgeActionsStarted") || !strings.Contains(evs, "EdgeActionsRestored") {
		t.Errorf("events:\n%s\nwant EdgeActionsStarted and EdgeActionsRestored", evs)
	}
}

func TestEdge_ACrashBetweenTheJournalAndThePatchFinishesTheStartOnce(t *testing.T) {
	f, s := edgeFixture(t, []edge.Action{{Name: edge.SuspendCronJobs}}, cron("report", nil))
	f.r.cfg.CrashAt = CrashEdgeAfterJournal
	crashes := 0
	f.r.crash = func(CrashPoint) { crashes++ }

	f.pass()
	p := f.plan("xmas")
	if j := f.journal(p); crashes != 1 || j == nil || j.Phase != edge.Starting || len(s.sent) != 0 || f.suspended("report") != nil {
		t.Fatalf("after the crash: %d crashes, journal %+v, sent %q, suspend %s; want the journal Starting and nothing sent", crashes, j, s.sent, show(f.suspended("report")))
	}
	f.r.cfg.CrashAt, f.r.crash = "", nil // restarted

	f.tick(time.Minute)
	j := f.journal(p)
	if len(s.sent) != 1 || show(f.suspended("report")) != "true" || j == nil || j.Phase != edge.Started || j.Entries[0].Captured.Present {
		t.Fatalf("after the restart: sent %q, suspend %s, journal %+v; want one patch, the captured value the original (absent)", s.sent, show(f.suspended("report")), j)
	}
	f.tick(2 * time.Hour)
	if show(f.suspended("report")) != "absent" {
		t.Errorf("after the window: suspend %s, want absent as before", show(f.suspended("report")))
	}
}

func TestEdge_ScaleToThroughScaleRestoresTheCapturedReplicas(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "uid-web"},
		Spec: appsv1.DeploymentSpec{Replicas: ptrTo(int32(3)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	f, s := edgeFixture(t, []edge.Action{{Name: edge.ScaleTo, Replicas: ptrTo(int32(0))}}, d)
	replicas := func() int32 {
		got := &appsv1.Deployment{}
		if err := f.c.Get(context.Background(), client.ObjectKey{Namespace: "shop", Name: "web"}, got); err != nil {
			t.Fatal(err)
		}
		return *got.Spec.Replicas
	}
	f.pass()
	if replicas() != 0 || len(s.sent) != 1 || !strings.Contains(s.sent[0], " scale ") {
		t.Fatalf("during: replicas %d, sent %q; want 0 through /scale", replicas(), s.sent)
	}
	f.tick(2 * time.Hour)
	if replicas() != 3 {
		t.Errorf("after: replicas %d, want the captured 3", replicas())
	}
}

func TestEdge_WithoutAnExecutorNothingIsWrittenAndTheConditionSaysWhy(t *testing.T) {
	f, s := edgeFixture(t, []edge.Action{{Name: edge.SuspendCronJobs}}, cron("report", nil))
	f.r.cfg.EdgeExecutor, f.r.edge = "", nil
	f.pass()
	p := f.plan("xmas")
	if c := condition(p, reconcile.ConditionEdgeActions); c.Reason != reconcile.EdgeNoExecutor || c.Status != metav1.ConditionFalse {
		t.Errorf("EdgeActions %s %s %q, want False NoExecutor", c.Status, c.Reason, c.Message)
	}
	if f.suspended("report") != nil || len(s.sent) != 0 || f.journal(p) != nil || slices.Contains(p.Finalizers, edge.Finalizer) {
		t.Errorf("something was written: suspend %s, sent %q, journal %+v, finalizers %v", show(f.suspended("report")), s.sent, f.journal(p), p.Finalizers)
	}
}

func ptrTo[T any](v T) *T { return &v }

// conflictingSender refuses every restore with an apply conflict on the
// field, owned by another manager; starts go through s.
type conflictingSender struct{ *fakeSender }

func (c conflictingSender) Send(ctx context.Context, planUID types.UID, p edge.Patch) error {
	if !p.Restore {
		return c.fakeSender.Send(ctx, planUID, p)
	}
	c.sent = append(c.sent, "refused restore of "+p.Target.String())
	return apierrors.NewApplyConflict([]metav1.StatusCause{{Type: metav1.CauseTypeFieldManagerConflict, Field: ".spec.suspend", Message: `conflict with "kubectl-edit" using batch/v1`}},
		`Apply failed with 1 conflict: conflict with "kubectl-edit" using batch/v1: .spec.suspend`)
}

func TestEdge_AFailedRestoreBlocksUntilAbandonedByTheAnnotation(t *testing.T) {
	f, s := edgeFixture(t, []edge.Action{{Name: edge.SuspendCronJobs}}, cron("report", nil))
	f.r.edge = conflictingSender{s}
	f.pass()
	f.tick(2 * time.Hour) // the window ends; the restore meets a conflict
	p := f.plan("xmas")
	if c := condition(p, reconcile.ConditionEdgeActions); c.Reason != reconcile.EdgeRestoreFailed || !strings.Contains(c.Message, "kubectl-edit") {
		t.Errorf("EdgeActions %s %q, want RestoreFailed naming the manager", c.Reason, c.Message)
	}
	if j := f.journal(p); j == nil || j.Entries[0].State != edge.Failed || !slices.Contains(p.Finalizers, edge.Finalizer) {
		t.Fatalf("journal %+v, finalizers %v: want the journal kept with the entry Failed, and the finalizer", j, p.Finalizers)
	}

	p.Annotations = map[string]string{reconcile.AnnotationEdgeAbandon: "alice, INC-4711"}
	if err := f.c.Update(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	f.tick(time.Minute)
	p = f.plan("xmas")
	if j := f.journal(p); j != nil || slices.Contains(p.Finalizers, edge.Finalizer) {
		t.Errorf("journal %+v, finalizers %v: want both gone once abandoned", j, p.Finalizers)
	}
	if _, ok := p.Annotations[reconcile.AnnotationEdgeAbandon]; ok {
		t.Errorf("annotations %v: want the abandon annotation cleared", p.Annotations)
	}
	if show(f.suspended("report")) != "true" {
		t.Errorf("suspend %s: an abandoned restore writes nothing", show(f.suspended("report")))
	}
}
