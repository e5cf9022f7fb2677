package main

import (
	"context"
	"net/http"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/overview"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/violations"
)

func (s *Server) planViolations(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, err := s.readPlan(ctx, r.PathValue("id"))
	if err == nil {
		err = approval.Authorize(callerOf(r), approval.ActionViolations, p)
	}
	var q violations.Query
	if err == nil {
		q, err = violations.ParseQuery(r.URL.Query(), p.Name)
	}
	var v overview.Feed
	if err == nil {
		v, err = s.feed(ctx, p, q)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// feed pages the plan's ledger as of now.
func (s *Server) feed(ctx context.Context, p *plan.ProtectionPlan, q violations.Query) (overview.Feed, error) {
	ledger, stored, _, err := s.currentLedger(ctx, p)
	if err != nil {
		return overview.Feed{}, err
	}
	page, err := violations.Feed(ledger.Violations, q)
	if err != nil {
		return overview.Feed{}, err
	}
	return overview.FeedOf(page, stored), nil
}

// currentLedger is the plan's ledger as of now (reconcile.Current: the
// stored ledger and the events read now, merged as a checkpoint would),
// the stored ledger, and the plan's live policies.
func (s *Server) currentLedger(ctx context.Context, p *plan.ProtectionPlan) (cur, stored violations.Ledger, live []*unstructured.Unstructured, err error) {
	stored = violations.NewLedger(p.Name)
	if s.files != nil {
		if stored, err = s.files.LoadLedger(p.Name); err != nil {
			// A ledger the server cannot read is its own problem, not the
			// caller's: 500, with the details in the log.
			return cur, stored, nil, &internalError{err}
		}
	}
	if live, err = s.livePolicies(ctx, p.Name); err != nil {
		return cur, stored, nil, err
	}
	events, err := s.policyViolationEvents(ctx, live)
	if err != nil {
		return cur, stored, nil, err
	}
	cur, err = reconcile.Current(stored, live, events)
	if err != nil {
		s.Log.Warn("some PolicyViolation events could not be read", "plan", p.Name, "err", err)
	}
	return cur, stored, live, nil
}

// internalError hides a library error's own code where the fault is the
// server's (a file it wrote cannot be read): 500.
type internalError struct{ err error }

func (e *internalError) Error() string { return e.err.Error() }
func (e *internalError) HTTPCode() int { return http.StatusInternalServerError }

var _ plan.Coder = (*internalError)(nil)
