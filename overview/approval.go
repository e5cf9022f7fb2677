package overview

import (
	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
)

// Approval is what a plan's approval looks like to a caller: the open
// request, the last decision, who proposed the current version, who may
// decide (for in-app notifications, R-A2) and whether the caller may, or
// why not. Lists are never nil.
type Approval struct {
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

// ApprovalOf is p's approval as caller sees it; candidates are the
// callers approval.Deciders picks from.
func ApprovalOf(p *plan.ProtectionPlan, caller approval.Caller, candidates []approval.Caller) Approval {
	v := Approval{
		Plan: p.Name, Generation: p.Generation, ApprovalMode: p.Spec.ApprovalMode,
		Request: p.Status.ApprovalRequest, LastDecision: p.Status.LastDecision,
		Proposers: p.Status.Proposers, Deciders: approval.Deciders(p, candidates),
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
