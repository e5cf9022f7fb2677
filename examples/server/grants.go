package main

import (
	"fmt"
	"net/http"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
)

// Break-glass grants: the routes read the plan, run the library's
// pipeline (reconcile.RequestGrant, ApproveGrant, RevokeGrant: If-Match,
// the permission, the grant's rules) and write the status with the
// resourceVersion read, so that of a concurrent grant and revoke one wins
// and the other is 409. Each answers the grant, with the plan's new
// resourceVersion as ETag.

// grantBody is a grant request: the users (the caller when empty), the
// reason and the duration (e.g. "30m"; the plan's default when empty).
type grantBody struct {
	Users    []string        `json:"users,omitempty"`
	Reason   string          `json:"reason"`
	Duration metav1.Duration `json:"duration,omitempty"`
}

// grantList is a plan's grants, oldest first, each with its state now.
type grantList struct {
	Items []grantView `json:"items"`
}

type grantView struct {
	plan.Grant `json:",inline"`
	State      plan.GrantState `json:"state"`
}

func (s *Server) listGrants(w http.ResponseWriter, r *http.Request) {
	p, err := s.readPlan(r.Context(), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	now := s.now()
	list := grantList{Items: []grantView{}}
	for _, g := range p.Status.Grants {
		list.Items = append(list.Items, grantView{Grant: g, State: g.State(now)})
	}
	w.Header().Set("ETag", fmt.Sprintf("%q", p.ResourceVersion))
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) requestGrant(w http.ResponseWriter, r *http.Request) {
	var body grantBody
	if err := decodeBody(r, &body); err != nil {
		s.writeError(w, r, err)
		return
	}
	p, err := s.readPlan(r.Context(), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := reconcile.RequestGrant(reconcile.GrantRequest{
		ActionInput: s.actionInput(r, p),
		Users:       body.Users, Reason: body.Reason, Duration: body.Duration.Duration,
	})
	s.answerGrant(w, r, res, err, "", http.StatusCreated)
}

func (s *Server) approveGrant(w http.ResponseWriter, r *http.Request) {
	s.decideGrant(w, r, reconcile.ApproveGrant)
}

func (s *Server) revokeGrant(w http.ResponseWriter, r *http.Request) {
	s.decideGrant(w, r, reconcile.RevokeGrant)
}

func (s *Server) decideGrant(w http.ResponseWriter, r *http.Request, step func(reconcile.GrantDecision) (plan.Result, error)) {
	p, err := s.readPlan(r.Context(), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	id := r.PathValue("grant")
	res, err := step(reconcile.GrantDecision{
		ActionInput: s.actionInput(r, p), Grant: id})
	s.answerGrant(w, r, res, err, id, http.StatusOK)
}

// answerGrant writes the status and answers the grant id (the last one
// for a new request).
func (s *Server) answerGrant(w http.ResponseWriter, r *http.Request, res plan.Result, err error, id string, code int) {
	if err == nil {
		err = s.updateStatus(r.Context(), res.Plan)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	gs := res.Plan.Status.Grants
	i := len(gs) - 1
	if id != "" {
		i = slices.IndexFunc(gs, func(g plan.Grant) bool { return g.ID == id })
	}
	w.Header().Set("ETag", fmt.Sprintf("%q", res.Plan.ResourceVersion))
	writeJSON(w, code, grantView{Grant: gs[i], State: gs[i].State(s.now())})
}
