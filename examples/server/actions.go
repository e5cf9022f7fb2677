package main

import (
	"context"
	"net/http"
	"time"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// lifecycleFunc is a status-only lifecycle step of the library.
type lifecycleFunc func(p *plan.ProtectionPlan, actor string, now time.Time) (plan.Result, error)

// transition reads the plan, checks If-Match and the action's permission
// with the plan, runs the library's step and writes the status with the
// resourceVersion read (409 if it changed meanwhile).
func (s *Server) transition(ctx context.Context, r *http.Request, action approval.Action, step lifecycleFunc) (*plan.ProtectionPlan, error) {
	caller := callerOf(r)
	p, err := s.readPlan(ctx, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	if err := checkIfMatch(r, p); err != nil {
		return nil, err
	}
	if err := approval.Authorize(caller, action, p); err != nil {
		return nil, err
	}
	res, err := step(p, caller.Username, s.now())
	if err != nil {
		return nil, err
	}
	next := res.Plan
	if err := s.updateStatus(ctx, next); err != nil {
		return nil, err
	}
	return next, nil
}

func (s *Server) cancelPlan(w http.ResponseWriter, r *http.Request) {
	s.answerTransition(w, r, approval.ActionCancel, plan.Cancel)
}

func (s *Server) reactivatePlan(w http.ResponseWriter, r *http.Request) {
	s.answerTransition(w, r, approval.ActionReactivate, plan.Reactivate)
}

func (s *Server) answerTransition(w http.ResponseWriter, r *http.Request, action approval.Action, step lifecycleFunc) {
	p, err := s.transition(r.Context(), r, action, step)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writePlan(w, http.StatusOK, p)
}

// duplicateRequest is the body of POST /api/v1/plans/{id}/duplicate. All
// fields are optional: the copy gets a fresh ID, the name "Copy of
// <name>", the approval mode derived as on create, and the source's
// window unless another is given (a terminated plan's window has ended,
// so its copy needs a new one).
type duplicateRequest struct {
	ID           string            `json:"id,omitempty"`
	Name         string            `json:"name,omitempty"`
	ApprovalMode plan.ApprovalMode `json:"approvalMode,omitempty"`
	Window       *window.Spec      `json:"window,omitempty"`
}

func (s *Server) duplicatePlan(w http.ResponseWriter, r *http.Request) {
	ctx, caller := r.Context(), callerOf(r)
	var body duplicateRequest
	if r.ContentLength != 0 {
		if err := decodeBody(r, &body); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	src, err := s.readPlan(ctx, r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if body.ID == "" {
		body.ID = newPlanID(src.Name)
	}
	var opts []plan.DuplicateOption
	if body.Name != "" {
		opts = append(opts, plan.WithDisplayName(body.Name))
	}
	cp, err := plan.Duplicate(src, body.ID, opts...)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	cp.Spec.ApprovalMode = body.ApprovalMode
	if body.Window != nil {
		cp.Spec.Window = *body.Window
	}
	s.createAndAnswer(w, r, caller, approval.ActionDuplicate, cp)
}
