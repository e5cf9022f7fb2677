package main

import (
	"context"
	"net/http"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/violations"
)

// feedView is one page of a plan's violations feed (R-V2): the plan's
// ledger (the operator's checkpoints, which outlive Kubernetes' one-hour
// events) merged with the PolicyViolation events read now, newest first.
type feedView struct {
	Items      []violations.Violation `json:"items"`
	NextCursor string                 `json:"nextCursor,omitempty"`
	// Ledger says what the checkpointed part holds.
	Ledger ledgerView `json:"ledger"`
}

type ledgerView struct {
	Violations int   `json:"violations"`
	Truncated  bool  `json:"truncated"`
	Dropped    int64 `json:"dropped"`
}

var results = []violations.Result{violations.ResultPass, violations.ResultFail, violations.ResultWarn,
	violations.ResultError, violations.ResultSkip}

// parseFeedQuery reads ?limit= (1 or more; 50 by default, lowered to
// 200), ?cursor= and ?result= (repeatable).
func parseFeedQuery(r *http.Request, planID string) (violations.Query, error) {
	q := r.URL.Query()
	fq := violations.Query{Plan: planID, Cursor: q.Get("cursor")}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			return fq, fieldError("limit", "FieldValueInvalid", "%q is not a page size: give a whole number from 1 (at most %d are returned)", l, violations.MaxLimit)
		}
		fq.Limit = n
	}
	for _, res := range q["result"] {
		if !slices.Contains(results, violations.Result(res)) {
			return fq, fieldError("result", "FieldValueNotSupported", "unknown result %q (known: pass, fail, warn, error, skip)", res)
		}
		fq.Results = append(fq.Results, violations.Result(res))
	}
	return fq, nil
}

func (s *Server) planViolations(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, err := s.readPlan(ctx, r.PathValue("id"))
	if err == nil {
		err = approval.Authorize(callerOf(r), approval.ActionViolations, p)
	}
	var q violations.Query
	if err == nil {
		q, err = parseFeedQuery(r, p.Name)
	}
	var v feedView
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
func (s *Server) feed(ctx context.Context, p *plan.ProtectionPlan, q violations.Query) (feedView, error) {
	ledger, stored, _, err := s.currentLedger(ctx, p)
	if err != nil {
		return feedView{}, err
	}
	page, err := violations.Feed(ledger.Violations, q)
	if err != nil {
		return feedView{}, err
	}
	if page.Items == nil {
		page.Items = []violations.Violation{}
	}
	return feedView{Items: page.Items, NextCursor: page.NextCursor,
		Ledger: ledgerView{Violations: len(stored.Violations), Truncated: stored.Truncated, Dropped: stored.Dropped}}, nil
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
