package edge

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestResultOf(t *testing.T) {
	cronjobs := schema.GroupResource{Group: "batch", Resource: "cronjobs"}
	tests := []struct {
		name                   string
		err                    error
		outcome                Outcome
		field, manager, prefix string
	}{{
		name:    "no error is a success",
		outcome: Succeeded,
	}, {
		name:    "an object gone is NotFound",
		err:     apierrors.NewNotFound(cronjobs, "report"),
		outcome: NotFound,
	}, {
		name:    "a uid precondition that failed is a Conflict",
		err:     apierrors.NewConflict(cronjobs, "report", errors.New("Precondition failed: UID in precondition: u1, UID in object meta: u2")),
		outcome: Conflict,
	}, {
		name: "an apply conflict names the field and the manager that owns it",
		err: apierrors.NewApplyConflict([]metav1.StatusCause{{Type: metav1.CauseTypeFieldManagerConflict, Field: ".spec.suspend", Message: `conflict with "kubectl-edit" using batch/v1`}},
			`Apply failed with 1 conflict: conflict with "kubectl-edit" using batch/v1: .spec.suspend`),
		outcome: OwnershipConflict, field: ".spec.suspend", manager: "kubectl-edit",
	}, {
		name: "an apply conflict on a subresource names the manager without the subresource",
		err: apierrors.NewApplyConflict([]metav1.StatusCause{{Type: metav1.CauseTypeFieldManagerConflict, Field: ".spec.replicas", Message: `conflict with "hpa" with subresource "scale"`}},
			"Apply failed with 1 conflict"),
		outcome: OwnershipConflict, field: ".spec.replicas", manager: "hpa",
	}, {
		name:    "a webhook's denial (403) is Refused",
		err:     apierrors.NewForbidden(cronjobs, "report", errors.New("admission webhook denied the request")),
		outcome: Refused,
	}, {
		name:    "a policy's denial (422) is Refused",
		err:     apierrors.NewInvalid(schema.GroupKind{Group: "batch", Kind: "CronJob"}, "report", nil),
		outcome: Refused,
	}, {
		name:    "a timeout is Errored, to retry",
		err:     apierrors.NewTimeoutError("slow", 1),
		outcome: Errored,
	}, {
		name:    "a transport error is Errored, to retry",
		err:     errors.New("dial tcp 127.0.0.1:6443: connect: connection refused"),
		outcome: Errored,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ResultOf(3, tt.err)
			assert.Equal(t, 3, r.Entry)
			assert.Equal(t, tt.outcome, r.Outcome)
			assert.Equal(t, tt.field, r.Field)
			assert.Equal(t, tt.manager, r.Manager)
			if tt.err != nil {
				assert.Equal(t, tt.err.Error(), r.Message)
			}
		})
	}
}

func TestListKinds(t *testing.T) {
	tests := []struct {
		name    string
		actions []Action
		journal *Journal
		want    []schema.GroupVersionKind
	}{{
		name:    "scale-to lists the workloads it scales and the HPAs it reads",
		actions: []Action{{Name: ScaleTo, Replicas: ptr(int32(0))}},
		want:    []schema.GroupVersionKind{Deployment, StatefulSet, HPA},
	}, {
		name:    "a journal's kinds are listed even when the actions no longer name them",
		actions: []Action{{Name: SuspendCronJobs}},
		journal: &Journal{Entries: []Entry{{Target: ObjectRef{APIVersion: "kustomize.toolkit.fluxcd.io/v1", Kind: "Kustomization"}}, {Target: ObjectRef{APIVersion: "batch/v1", Kind: "CronJob"}}}},
		want:    []schema.GroupVersionKind{CronJob, Kustomization},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ListKinds(tt.actions, tt.journal))
		})
	}
}

func TestTouchOf(t *testing.T) {
	tests := []struct {
		name string
		gk   schema.GroupKind
		want Touch
		ok   bool
	}{{
		name: "a Deployment is written through deployments/scale",
		gk:   Deployment.GroupKind(),
		want: Touch{GVK: Deployment, Resource: "deployments", Subresource: "scale", Pointer: "/spec/replicas"},
		ok:   true,
	}, {
		name: "a HelmRelease is written as helmreleases",
		gk:   HelmRelease.GroupKind(),
		want: Touch{GVK: HelmRelease, Resource: "helmreleases", Pointer: "/spec/suspend"},
		ok:   true,
	}, {
		name: "an HPA, only read, is not a kind any action writes",
		gk:   HPA.GroupKind(),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := TouchOf(tt.gk)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDecide_Force(t *testing.T) {
	tests := []struct {
		name  string
		force bool
	}{
		{name: "a start is not forced by default: another manager's field is an ownership conflict", force: false},
		{name: "a start of an action that says force takes the field over", force: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Plan: planRef, Scope: scope, Active: active, Now: t0.Add(time.Minute),
				Actions: []Action{{Name: SuspendCronJobs, Force: tt.force}},
				Live:    []*unstructured.Unstructured{cronJob(t, "shop", "report", "u1", "5", ptr(false))}}
			d, err := Decide(in)
			if err != nil || len(d.Patches) != 1 {
				t.Fatalf("Decide: %v, %d patches", err, len(d.Patches))
			}
			assert.Equal(t, tt.force, d.Patches[0].Force)
			// The restore is forced the same way.
			j := Record(*d.Journal, []Result{{Entry: 0, Outcome: Succeeded}})
			in.Active, in.Journal, in.Now = nil, &j, t1.Add(time.Minute)
			in.Live = []*unstructured.Unstructured{cronJob(t, "shop", "report", "u1", "6", ptr(true))}
			r, err := Decide(in)
			if err != nil || len(r.Patches) != 1 || !r.Patches[0].Restore {
				t.Fatalf("restore: %v, %+v", err, r.Patches)
			}
			assert.Equal(t, tt.force, r.Patches[0].Force)
		})
	}
}
