//go:build e2e

package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/examples/e2e/harness"
	"github.com/telark/protectionplans/examples/operator/operator"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/window"
)

// fault is what faultTransport does to one request instead of sending it.
type fault struct {
	// code and reason make the answer (a metav1.Status); code 0 sends the
	// request and loses the answer: the client sees its deadline expire
	// on a write the API server made.
	code   int
	reason metav1.StatusReason
	// retryAfter adds "Retry-After: 1", as the API server's priority and
	// fairness does with its 429s.
	retryAfter bool
}

func (f fault) String() string {
	switch {
	case f.code == 0:
		return "answer lost (write made)"
	case f.retryAfter:
		return fmt.Sprintf("%d %s, Retry-After 1", f.code, f.reason)
	}
	return fmt.Sprintf("%d %s", f.code, f.reason)
}

var (
	faultTooMany      = fault{code: http.StatusTooManyRequests, reason: metav1.StatusReasonTooManyRequests}
	faultTooManyRetry = fault{code: http.StatusTooManyRequests, reason: metav1.StatusReasonTooManyRequests, retryAfter: true}
	faultInternal     = fault{code: http.StatusInternalServerError, reason: metav1.StatusReasonInternalError}
	faultConflict     = fault{code: http.StatusConflict, reason: metav1.StatusReasonConflict}
	faultTimeout      = fault{code: http.StatusGatewayTimeout, reason: metav1.StatusReasonTimeout}
	faultLost         = fault{}
)

// faultTransport answers the operator's next writes of a kind ("apply",
// "patch", "delete" of the plan's policies, "status" of the plan) with the
// faults armed for that kind, in order, then lets them through.
type faultTransport struct {
	next http.RoundTripper
	plan string // the plan whose writes fail

	mu       sync.Mutex
	armed    map[string][]fault
	injected []string
}

// arm queues faults for the next writes of kind.
func (t *faultTransport) arm(kind string, fs ...fault) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.armed[kind] = append(t.armed[kind], fs...)
}

// pending counts the faults armed and not injected yet.
func (t *faultTransport) pending() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, fs := range t.armed {
		n += len(fs)
	}
	return n
}

// kindOf names a request of the operator for the plan, or "".
func (t *faultTransport) kindOf(req *http.Request) string {
	p := req.URL.Path
	switch {
	case strings.HasPrefix(p, "/apis/kyverno.io/v1/namespaces/") && strings.Contains(p, "/policies/"+t.plan+"-"):
		switch {
		case req.Method == http.MethodPatch && strings.HasPrefix(req.Header.Get("Content-Type"), "application/apply-patch"):
			return "apply"
		case req.Method == http.MethodPatch:
			return "patch"
		case req.Method == http.MethodDelete:
			return "delete"
		}
	case req.Method == http.MethodPut && strings.HasSuffix(p, "/protectionplans/"+t.plan+"/status"):
		return "status"
	}
	return ""
}

func (t *faultTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	kind := t.kindOf(req)
	t.mu.Lock()
	var f *fault
	if q := t.armed[kind]; kind != "" && len(q) > 0 {
		f, t.armed[kind] = &q[0], q[1:]
		t.injected = append(t.injected, fmt.Sprintf("%s %s %s: %s", time.Now().Format("15:04:05.000"), kind, req.URL.Path, f))
	}
	t.mu.Unlock()
	if f == nil {
		return t.next.RoundTrip(req)
	}
	if f.code == 0 {
		resp, err := t.next.RoundTrip(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
		return nil, fmt.Errorf("the answer was lost: %w", context.DeadlineExceeded)
	}
	if req.Body != nil {
		_ = req.Body.Close()
	}
	body, _ := json.Marshal(metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: int32(f.code), Reason: f.reason,
		Message: "injected by the faults test: " + f.String(),
	})
	h := http.Header{"Content-Type": []string{"application/json"}}
	if f.retryAfter {
		h.Set("Retry-After", "1")
	}
	return &http.Response{
		StatusCode: f.code, Status: fmt.Sprintf("%d %s", f.code, http.StatusText(f.code)),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: req,
	}, nil
}

// TestAPIErrors runs the operator in this process with its requests going
// through a faultTransport, and a plan through its window: the writes
// that put it in place, that restore a failure action changed by hand,
// and that withdraw it at the end fail first (429, 500, 409, 504, an
// answer lost), and every stage converges within a few ticks, with nothing
// left after the window.
func TestAPIErrors(t *testing.T) {
	ctx := t.Context()
	id, ns := "api-errors", "api-errors"
	createNamespace(t, ns)
	dir := t.TempDir()
	ft := &faultTransport{plan: id, armed: map[string][]fault{}}
	op, stop := startInProcess(t, dir, ft)
	defer stop()

	policies := []string{id + "-image-change", id + "-scaling"}
	inPlace := func() (string, bool) {
		pols := planPolicies(t, id)
		if len(pols) != 2 {
			return fmt.Sprintf("%d policies", len(pols)), false
		}
		for _, u := range pols {
			if mode, _ := render.FailureAction(&u); mode != plan.ModeEnforce {
				return u.GetName() + " fails with " + string(mode), false
			}
		}
		p := getPlan(t, id)
		h := conditionOf(p, plan.ConditionPoliciesHealthy)
		return string(p.Status.Phase) + " " + h, p.Status.Phase == plan.PhaseActive && h == "True/InPlace"
	}
	type stage struct {
		name   string
		passes int64
		took   time.Duration
	}
	var stages []stage
	measure := func(name string, from time.Time, passes int64, timeout time.Duration, done func() (string, bool)) {
		t.Helper()
		waitFor(t, timeout, name, done)
		stages = append(stages, stage{name, op.Passes() - passes, time.Since(from)})
	}

	// The window opens: the applies and the status write fail first.
	ft.arm("apply", faultInternal, faultTooMany, faultTooManyRetry)
	ft.arm("status", faultConflict)
	start := time.Now().Truncate(time.Second)
	end := start.Add(15 * time.Second)
	p := newPlan(id, ns, plan.ModeEnforce, window.Spec{Type: window.TimeRange,
		StartAt: &metav1.Time{Time: start}, EndAt: &metav1.Time{Time: end}})
	p.Spec.Templates = []plan.TemplateRef{{Name: "scaling"}, {Name: "image-change"}}
	passes := op.Passes()
	if err := c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	measure("in place (applies: 500, 429, 429 with Retry-After; status: 409)", start, passes, 20*time.Second, inPlace)

	// A failure action changed by hand: the patches fail first.
	ft.arm("patch", faultConflict, faultTimeout)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(harness.PolicyGVK)
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: policies[0]}, u); err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(u.Object, "Audit", "spec", "validationFailureAction")
	drifted, passes := time.Now(), op.Passes()
	if err := c.Update(ctx, u); err != nil {
		t.Fatal(err)
	}
	measure("repaired (patches: 409, 504)", drifted, passes, 20*time.Second, inPlace)
	if time.Until(end) < 2*tick {
		t.Fatalf("the first stages took too long: the window ends in %s", time.Until(end))
	}

	// The window ends: the deletes and the status write fail first.
	ft.arm("delete", faultInternal, faultLost)
	ft.arm("status", faultTimeout, faultLost)
	time.Sleep(time.Until(end))
	reports := func() []string {
		files, _ := filepath.Glob(filepath.Join(dir, "reports", id, id+"-end-*"))
		return files
	}
	passes = op.Passes()
	measure("withdrawn (deletes: 500, answer lost; status: 504, answer lost)", end, passes, 30*time.Second, func() (string, bool) {
		p := getPlan(t, id)
		n := len(planPolicies(t, id))
		return fmt.Sprintf("%d policies, phase %s, %d report files", n, p.Status.Phase, len(reports())),
			n == 0 && p.Status.Phase == plan.PhaseTerminated && len(reports()) == len(report.Formats())
	})
	time.Sleep(tick + tick/4)
	if files := reports(); len(files) != len(report.Formats()) {
		t.Errorf("final report files %q, want one per format", files)
	}
	if n := ft.pending(); n > 0 {
		t.Errorf("%d armed faults were never injected", n)
	}
	for _, s := range ft.injected {
		t.Logf("injected: %s", s)
	}
	for _, s := range stages {
		t.Logf("%s: converged in %s, %d passes", s.name, s.took.Round(time.Millisecond), s.passes)
	}
}

// startInProcess starts the operator in this process with its requests
// going through ft (wrapping the harness's transport), without the
// enforcement check (the enforcer's reads would take the faults armed per
// kind). It returns the operator and a function that stops it.
func startInProcess(t *testing.T, dir string, ft *faultTransport) (*operator.Operator, func()) {
	t.Helper()
	return startWith(t, dir, func(rt http.RoundTripper) http.RoundTripper { ft.next = rt; return ft },
		operator.Config{NoEnforcementCheck: true})
}

// startWith starts the operator in this process as the operator's
// ServiceAccount (only the generated RBAC, as every operator here), its
// requests through wrap, on base's target (kyverno when it names none)
// with no leader election, no listener, a 2 s tick and one checkpoint per
// process, and base's other settings. It returns the operator and a
// function that stops it.
func startWith(t *testing.T, dir string, wrap func(http.RoundTripper) http.RoundTripper, base operator.Config) (*operator.Operator, func()) {
	t.Helper()
	cfg := env.ConfigAs(harness.OperatorServiceAccount)
	cfg.Wrap(wrap)
	timing, err := reconcile.LoadTiming(func(k string) (string, bool) {
		v, ok := map[string]string{reconcile.EnvTickInterval: "2", reconcile.EnvReportCheckpoint: "3300"}[k]
		return v, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := operator.NewManager(cfg, operator.ManagerOptions{MetricsBindAddress: "0", HealthProbeBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "operator.log")
	log, closeLog, err := harness.FileLogger(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if base.Target == "" {
		base.Target = render.TargetKyverno
	}
	base.ReportsDir, base.Timing, base.Log = filepath.Join(dir, "reports"), timing, log
	op, err := operator.New(base, mgr)
	if err != nil {
		t.Fatal(err)
	}
	return op, runInProcess(t, op, logPath, closeLog)
}

// runInProcess runs op in this process until the returned stop, after
// its first pass; its log (logPath) is shown when the test fails.
func runInProcess(t *testing.T, op *operator.Operator, logPath string, closeLog func() error) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- op.Run(ctx) }()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("operator log: %s\n%s", logPath, tailFile(logPath, 40))
		}
	})
	waitFor(t, time.Minute, "the operator's first pass", func() (string, bool) { return "", op.Passes() > 0 })
	return func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the operator: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("the operator did not stop within 30 s")
		}
		_ = closeLog()
	}
}
