package main

import (
	"net/http"
	"time"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
)

// pipeline is one of the library's actions on a stored plan
// (reconcile.Cancel, reconcile.Reactivate).
type pipeline func(reconcile.ActionInput) (plan.Result, error)

// transition reads the plan, runs the library's pipeline (If-Match, the
// permission with the plan, the lifecycle step) and writes the status
// with the resourceVersion read (409 if it changed meanwhile).
func (s *Server) transition(r *http.Request, step pipeline) (*plan.ProtectionPlan, error) {
	p, err := s.readPlan(r.Context(), r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	res, err := step(s.actionInput(r, p))
	if err != nil {
		return nil, err
	}
	if err := s.updateStatus(r.Context(), res.Plan); err != nil {
		return nil, err
	}
	return res.Plan, nil
}

func (s *Server) cancelPlan(w http.ResponseWriter, r *http.Request) {
	s.answerTransition(w, r, reconcile.Cancel)
}

func (s *Server) reactivatePlan(w http.ResponseWriter, r *http.Request) {
	s.answerTransition(w, r, reconcile.Reactivate)
}

func (s *Server) answerTransition(w http.ResponseWriter, r *http.Request, step pipeline) {
	p, err := s.transition(r, step)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writePlan(w, http.StatusOK, p)
}

// duplicatePlan copies a plan (body: reconcile.DuplicateRequest, all
// fields optional) through reconcile.Duplicate and creates the copy.
func (s *Server) duplicatePlan(w http.ResponseWriter, r *http.Request) {
	var body reconcile.DuplicateRequest
	if r.ContentLength != 0 {
		if err := decodeBody(r, &body); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	src, err := s.readPlan(r.Context(), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.createAndAnswer(w, r, func(env plan.ValidationEnv, now time.Time) (reconcile.Admitted, error) {
		return reconcile.Duplicate(reconcile.DuplicateInput{Source: src, Request: body, Entropy: entropy(),
			Caller: callerOf(r), Env: env, Approval: s.Approval, Now: now})
	})
}
