package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/plan"
)

// The cluster is the database: plans are ProtectionPlan objects, read and
// written through the client. Every write carries the resourceVersion of
// the read it is based on, so a write that lost a race gets Conflict from
// the API server and answers 409; nothing is ever retried by overwriting.

// readPlan reads a plan, or answers 404.
func (s *Server) readPlan(ctx context.Context, id string) (*plan.ProtectionPlan, error) {
	var p plan.ProtectionPlan
	if err := s.Client.Get(ctx, types.NamespacedName{Name: id}, &p); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, errorf(http.StatusNotFound, "plan %q not found", id)
		}
		return nil, err
	}
	setTypeMeta(&p)
	return &p, nil
}

// listPlans lists every plan.
func (s *Server) allPlans(ctx context.Context) ([]plan.ProtectionPlan, error) {
	var list plan.ProtectionPlanList
	if err := s.Client.List(ctx, &list); err != nil {
		return nil, unavailable("cannot list the plans", err)
	}
	for i := range list.Items {
		setTypeMeta(&list.Items[i])
	}
	return list.Items, nil
}

// updateStatus writes p's status with p's resourceVersion (the one read).
func (s *Server) updateStatus(ctx context.Context, p *plan.ProtectionPlan) error {
	if err := s.Client.Status().Update(ctx, p); err != nil {
		return planWriteError(p.Name, err)
	}
	setTypeMeta(p)
	return nil
}

// planWriteError names the plan in the 404 and 409 of a write.
func planWriteError(id string, err error) error {
	switch {
	case apierrors.IsConflict(err):
		return conflictError("plan", id)
	case apierrors.IsNotFound(err):
		return errorf(http.StatusNotFound, "plan %q not found (it was deleted)", id)
	}
	return err
}

// ifMatch is the resourceVersion of the client's If-Match header ("" when
// none): the ETag of a read, quoted. The library's pipelines compare it
// with the plan's (reconcile.CheckVersion).
func ifMatch(r *http.Request) string {
	return strings.Trim(r.Header.Get("If-Match"), `" `)
}

// decodeBody reads a request body strictly with the library's decoder:
// a Content-Type other than JSON or YAML is 415 (plan.FormatOfMediaType),
// over 1 MiB 413, an unknown field 400 with its path.
func decodeBody(r *http.Request, into any) error {
	f, err := plan.FormatOfMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return err
	}
	return plan.Decode(r.Body, into, plan.WithFormat(f))
}

func setTypeMeta(p *plan.ProtectionPlan) {
	p.APIVersion, p.Kind = plan.GroupVersion.String(), plan.Kind
}

// writePlan answers a plan with its resourceVersion as ETag.
func writePlan(w http.ResponseWriter, code int, p *plan.ProtectionPlan) {
	setTypeMeta(p)
	w.Header().Set("ETag", fmt.Sprintf("%q", p.ResourceVersion))
	writeJSON(w, code, p)
}

var _ client.Object = (*plan.ProtectionPlan)(nil)
