package approval

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telark/protectionplans/plan"
)

// memStore is the smallest store with optimistic concurrency: every write
// names the resourceVersion it read, and fails with a conflict when the
// stored version moved on (as the Kubernetes API does).
type memStore struct {
	mu        sync.Mutex
	plan      *plan.ProtectionPlan
	rv        int64
	conflicts int // refused writes, to show the race was exercised
}

// conflictError is the store's 409, as a Kubernetes client returns it.
type conflictError struct{ read, stored int64 }

func (e *conflictError) Error() string {
	return fmt.Sprintf("conflict: the plan was modified (read version %d, stored %d)", e.read, e.stored)
}
func (e *conflictError) HTTPCode() int { return http.StatusConflict }

func (s *memStore) get() (*plan.ProtectionPlan, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.plan.DeepCopy(), s.rv
}

func (s *memStore) update(p *plan.ProtectionPlan, rv int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rv != s.rv {
		s.conflicts++
		return &conflictError{read: rv, stored: s.rv}
	}
	s.plan, s.rv = p.DeepCopy(), s.rv+1
	return nil
}

// decideAndStore is what an embedder's approve/reject handler does: read,
// decide on the request the approver saw, write with the version read;
// on a store conflict, read again and decide again.
func decideAndStore(s *memStore, v Verdict, by Caller, now time.Time) error {
	for {
		p, rv := s.get()
		res, err := Decide(p, v, by, now)
		if err != nil {
			return err
		}
		err = s.update(res.Plan, rv)
		var conflict *conflictError
		if !errors.As(err, &conflict) {
			return err
		}
	}
}

func TestConcurrentDecisions(t *testing.T) {
	pending := createRequired(t, carol)
	type approver struct {
		caller  Caller
		verdict Verdict
	}
	cases := map[string][2]approver{
		"two approvers approve the same request at once": {
			{olivia, approved(r1)},
			{oscar, approved(r1)},
		},
		"one approver approves while another rejects": {
			{olivia, approved(r1)},
			{oscar, Verdict{RequestID: r1, Decision: plan.DecisionRejected, Comment: "not now"}},
		},
	}
	for name, approvers := range cases {
		t.Run(name, func(t *testing.T) {
			conflicts := 0
			for i := 0; i < 200; i++ {
				s := &memStore{plan: pending.DeepCopy(), rv: 1}
				var errs [2]error
				var wg sync.WaitGroup
				start := make(chan struct{})
				for j, a := range approvers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						errs[j] = decideAndStore(s, a.verdict, a.caller, beforeWin)
					}()
				}
				close(start)
				wg.Wait()

				winners := 0
				for j, err := range errs {
					if err == nil {
						winners++
						final, rv := s.get()
						assert.Equal(t, int64(2), rv, "exactly one write is stored")
						assert.Equal(t, approvers[j].caller.Username, final.Status.LastDecision.DecidedBy)
						continue
					}
					require.Equal(t, 409, plan.CodeOf(err), "iteration %d: %v", i, err)
					var stale *StaleRequestError
					require.True(t, errors.As(err, &stale), "the loser is told the request was decided: %v", err)
					require.NotNil(t, stale.Decided)
				}
				require.Equal(t, 1, winners, "iteration %d: exactly one decision wins (errors %v)", i, errs)
				final, _ := s.get()
				decisions := 0
				for _, ev := range final.Status.Timeline {
					if ev.Type == plan.EventApproved || ev.Type == plan.EventRejected {
						decisions++
					}
				}
				assert.Equal(t, 1, decisions, "one decision event in the timeline")
				conflicts += s.conflicts
			}
			t.Logf("200 races; %d ended in a store conflict and a stale retry, the others in a stale decision", conflicts)
		})
	}
}

// TestConcurrentDecisionInterleaved plays the interleaving the race test
// may or may not hit, step by step: both approvers read the same version.
func TestConcurrentDecisionInterleaved(t *testing.T) {
	s := &memStore{plan: createRequired(t, carol), rv: 1}

	pOlivia, rvOlivia := s.get()
	pOscar, rvOscar := s.get()

	resOlivia, err := Approve(pOlivia, r1, olivia, beforeWin)
	require.NoError(t, err)
	resOscar, err := Approve(pOscar, r1, oscar, beforeWin)
	require.NoError(t, err, "both decisions are valid against the version each read")

	require.NoError(t, s.update(resOlivia.Plan, rvOlivia))
	err = s.update(resOscar.Plan, rvOscar)
	assert.Equal(t, 409, plan.CodeOf(err), "the store refuses the second write")

	// Oscar re-reads and decides again: the request was cleared.
	p, _ := s.get()
	_, err = Approve(p, r1, oscar, beforeWin)
	assert.EqualError(t, err, `stale decision: request "holiday-r1-20261201T100000Z" was already approved by olivia at 2026-12-03T09:00:00Z`)
	assert.Equal(t, 409, plan.CodeOf(err))
}
