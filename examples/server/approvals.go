package main

import (
	"context"
	"net/http"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/overview"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
)

// decisionRequest is the body of approve and reject. RequestID is the
// open request the approver saw (status.approvalRequest.id): deciding is
// a compare-and-set on it (R-A5). Generation, when given, is the
// metadata.generation of the plan the approver read: a plan whose spec
// changed since is refused (409), so an approver approves what they saw
// (the dashboard always sends it).
type decisionRequest struct {
	RequestID  string `json:"requestID"`
	Comment    string `json:"comment,omitempty"`
	Generation int64  `json:"generation,omitempty"`
}

func (s *Server) approvePlan(w http.ResponseWriter, r *http.Request) {
	s.answerDecision(w, r, plan.DecisionApproved)
}

func (s *Server) rejectPlan(w http.ResponseWriter, r *http.Request) {
	s.answerDecision(w, r, plan.DecisionRejected)
}

func (s *Server) answerDecision(w http.ResponseWriter, r *http.Request, d plan.Decision) {
	var body decisionRequest
	if err := decodeBody(r, &body); err != nil {
		s.writeError(w, r, err)
		return
	}
	p, err := s.decide(r.Context(), callerOf(r), r.PathValue("id"), d, body)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writePlan(w, http.StatusOK, p)
}

// decide reads the plan, runs the library's approve and reject pipeline
// (reconcile.ApplyVerdict: the generation the approver read, the
// permission, the compare-and-set on the request ID) and writes the
// status with the resourceVersion read (a concurrent write is 409). It is
// not retried: the approver re-reads the plan and decides what is open.
func (s *Server) decide(ctx context.Context, caller approval.Caller, id string, d plan.Decision, body decisionRequest) (*plan.ProtectionPlan, error) {
	p, err := s.readPlan(ctx, id)
	if err != nil {
		return nil, err
	}
	res, err := reconcile.ApplyVerdict(reconcile.VerdictInput{Plan: p, Generation: body.Generation, Caller: caller, Now: s.now(),
		Calendars: s.calendars(ctx, p.Spec.Window),
		Verdict:   approval.Verdict{RequestID: body.RequestID, Decision: d, Comment: body.Comment}})
	if err != nil {
		return nil, err
	}
	if err := s.updateStatus(ctx, res.Plan); err != nil {
		return nil, err
	}
	return res.Plan, nil
}

// getApproval answers the open request, the last decision and who may
// decide (overview.ApprovalOf).
func (s *Server) getApproval(w http.ResponseWriter, r *http.Request) {
	caller := callerOf(r)
	p, err := s.readPlan(r.Context(), r.PathValue("id"))
	if err == nil {
		err = approval.Authorize(caller, approval.ActionGet, p)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, overview.ApprovalOf(p, caller, s.Roles.Candidates()))
}
