package main

import (
	"context"
	"net/http"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
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

// decide is the approval's compare-and-set (approval package docs): read
// the plan and its resourceVersion, decide the request the approver named
// (a stale ID is 409), write the status with that resourceVersion (a
// concurrent write is 409). It is not retried: the approver re-reads the
// plan and decides what is open now.
func (s *Server) decide(ctx context.Context, caller approval.Caller, id string, d plan.Decision, body decisionRequest) (*plan.ProtectionPlan, error) {
	p, err := s.readPlan(ctx, id)
	if err != nil {
		return nil, err
	}
	if body.Generation != 0 && body.Generation != p.Generation {
		return nil, errorf(http.StatusConflict,
			"plan %q was edited since you read it (generation %d, now %d); re-read it before deciding", id, body.Generation, p.Generation)
	}
	v := approval.Verdict{RequestID: body.RequestID, Decision: d, Comment: body.Comment}
	res, err := approval.Decide(p, v, caller, s.now())
	if err != nil {
		return nil, err
	}
	if err := s.updateStatus(ctx, res.Plan); err != nil {
		return nil, err
	}
	return res.Plan, nil
}

// approvalView is the answer of GET /api/v1/plans/{id}/approval: the open
// request, the last decision, who may decide (for in-app notifications,
// R-A2) and whether the caller may.
type approvalView struct {
	Plan         string                 `json:"plan"`
	Generation   int64                  `json:"generation"`
	ApprovalMode plan.ApprovalMode      `json:"approvalMode"`
	Request      *plan.ApprovalRequest  `json:"request"`
	LastDecision *plan.ApprovalDecision `json:"lastDecision"`
	Proposers    []string               `json:"proposers"`
	Deciders     []string               `json:"deciders"`
	MayDecide    bool                   `json:"mayDecide"`
	Reason       string                 `json:"reason,omitempty"`
}

func (s *Server) approvalOf(p *plan.ProtectionPlan, caller approval.Caller) approvalView {
	v := approvalView{
		Plan: p.Name, Generation: p.Generation, ApprovalMode: p.Spec.ApprovalMode,
		Request: p.Status.ApprovalRequest, LastDecision: p.Status.LastDecision,
		Proposers: p.Status.Proposers, Deciders: approval.Deciders(p, s.Roles.Candidates()),
	}
	if v.Proposers == nil {
		v.Proposers = []string{}
	}
	if v.Deciders == nil {
		v.Deciders = []string{}
	}
	if err := approval.MayDecide(p, caller); err != nil {
		v.Reason = err.Error()
	} else {
		v.MayDecide = true
	}
	return v
}

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
	writeJSON(w, http.StatusOK, s.approvalOf(p, caller))
}
