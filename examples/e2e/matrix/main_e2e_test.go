//go:build e2e

package matrix

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/telark/protectionplans/examples/e2e/harness"
	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/examples/operator/operator"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

// tick is the operator's tick in these tests (PROTECTION_PLAN_TICK_INTERVAL_SEC).
const tick = 2 * time.Second

// checkpointEvery is its checkpoint period (PROTECTION_PLAN_REPORT_CHECKPOINT_SEC;
// 10 s is the smallest reconcile.LoadTiming accepts).
const checkpointEvery = 10 * time.Second

// leaseNamespace holds the operator's leader election Lease: the release
// namespace config/rbac grants it Leases in.
const leaseNamespace = harness.ReleaseNamespace

// suite is what every test of the package shares: one control plane with
// Kyverno and one admin client. The operator runs per target (runTarget):
// run is the current one.
type suite struct {
	env *harness.Env
	// c is an admin client that knows ProtectionPlan. The warnings the API
	// server returns to its requests go to the collector in the request's
	// context (withWarnings), if any.
	c client.Client
	// run is the operator of the target being tested, nil between targets.
	run     *opRun
	started time.Time
}

// opRun is one operator, with one target, running in this process.
type opRun struct {
	target render.Target
	// op is the operator, mgr its manager; writes counts every write
	// request the operator's process sends (all its clients share one
	// rest.Config, wrapped).
	op     *operator.Operator
	mgr    manager.Manager
	writes *writeCounter
	// reportsDir is the operator's --reports-dir.
	reportsDir string
	// metricsAddr serves the operator's metrics.
	metricsAddr string
	// started is when the run started (events older than it are an
	// earlier run's).
	started time.Time
	stop    func() error
}

var s *suite

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) (code int) {
	start := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	startCtx, startCancel := context.WithTimeout(ctx, 4*time.Minute)
	defer startCancel()
	env, err := harness.Start(startCtx, nil, harness.WithKeepDir())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code = 1
	defer func() { code = env.Finish(code) }()
	fmt.Printf("control plane + Kyverno ready in %s (dir %s)\n", time.Since(start).Round(time.Millisecond), env.Dir)

	st, err := newSuite(ctx, env)
	if err != nil {
		fmt.Fprintln(os.Stderr, "setting up:", err)
		return 1
	}
	s = st
	code = m.Run()
	fmt.Printf("e2e run: %s in all\n", time.Since(start).Round(time.Second))
	return code
}

// newSuite installs the CRD and the generated RBAC (the operator runs as
// its ServiceAccount) and makes the admin client.
func newSuite(ctx context.Context, env *harness.Env) (*suite, error) {
	if err := env.InstallGenerated(ctx); err != nil {
		return nil, err
	}
	scheme, err := operator.Scheme()
	if err != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandlerWithContext = warningCollector{}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	return &suite{env: env, c: c, started: time.Now()}, nil
}

// warnings collects the warnings of the requests made with its context.
type warnings struct {
	mu   sync.Mutex
	list []string
}

type warningsKey struct{}

// withWarnings returns a context whose requests' warnings go to w.
func withWarnings(ctx context.Context, w *warnings) context.Context {
	return context.WithValue(ctx, warningsKey{}, w)
}

func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.list)
}

func (w *warnings) add(text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

// warningCollector is the admin client's warning handler.
type warningCollector struct{}

func (warningCollector) HandleWarningHeaderWithContext(ctx context.Context, code int, _ string, text string) {
	if w, ok := ctx.Value(warningsKey{}).(*warnings); ok && code == 299 {
		w.add(text)
	}
}

// startOperator starts the operator in this process with the --target
// flag (render.TargetAuto: none given) and checks it runs with target:
// leader election on, a 2 s tick, metrics and probes on loopback ports
// chosen now. It becomes s.run until stopOperator.
func startOperator(ctx context.Context, flag, target render.Target, dir string) (*opRun, error) {
	r := &opRun{target: target, reportsDir: filepath.Join(dir, "reports"), writes: &writeCounter{}, started: time.Now()}
	mgr, op, err := newOperator(s.env, flag, r.reportsDir, r.writes, filepath.Join(dir, "operator.log"), &r.metricsAddr)
	if err != nil {
		return nil, err
	}
	if op.Target() != target {
		return nil, fmt.Errorf("the operator with --target=%s runs with %s, want %s", flag, op.Target(), target)
	}
	r.op, r.mgr = op, mgr
	opCtx, opCancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- op.Run(opCtx) }()
	r.stop = func() error {
		opCancel()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			return fmt.Errorf("the operator did not stop within 30 s")
		}
	}
	deadline := time.After(2 * time.Minute)
	select {
	case <-mgr.Elected():
	case err := <-done:
		return nil, fmt.Errorf("the operator stopped: %v", err)
	case <-deadline:
		_ = r.stop()
		return nil, fmt.Errorf("the operator was not elected within 2 minutes")
	}
	for op.Passes() == 0 {
		select {
		case err := <-done:
			return nil, fmt.Errorf("the operator stopped: %v", err)
		case <-deadline:
			_ = r.stop()
			return nil, fmt.Errorf("the operator made no pass within 2 minutes")
		case <-time.After(100 * time.Millisecond):
		}
	}
	return r, nil
}

// newOperator builds an operator as cmd/operator does as config/default
// deploys it (its ServiceAccount, impersonated: only the generated RBAC;
// the CRD installed by config/, not by the operator), with
// reconcile.LoadTiming reading the test's environment: tick 2 s,
// checkpoints every 10 s. target is its --target (render.TargetAuto: the
// default). Every request of its clients goes through w.
func newOperator(env *harness.Env, target render.Target, reportsDir string, w *writeCounter, logPath string, metricsAddr *string) (manager.Manager, *operator.Operator, error) {
	cfg := env.ConfigAs(harness.OperatorServiceAccount)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &countingTransport{next: rt, w: w} })
	timing, err := reconcile.LoadTiming(func(k string) (string, bool) {
		v, ok := map[string]string{
			reconcile.EnvTickInterval:     strconv.Itoa(int(tick / time.Second)),
			reconcile.EnvReportCheckpoint: strconv.Itoa(int(checkpointEvery / time.Second)),
		}[k]
		return v, ok
	})
	if err != nil {
		return nil, nil, err
	}
	mport, err := freePort()
	if err != nil {
		return nil, nil, err
	}
	hport, err := freePort()
	if err != nil {
		return nil, nil, err
	}
	*metricsAddr = "127.0.0.1:" + strconv.Itoa(mport)
	mgr, err := operator.NewManager(cfg, operator.ManagerOptions{
		LeaderElection:          true,
		LeaderElectionNamespace: leaseNamespace,
		MetricsBindAddress:      *metricsAddr,
		HealthProbeBindAddress:  "127.0.0.1:" + strconv.Itoa(hport),
	})
	if err != nil {
		return nil, nil, err
	}
	log, _, err := harness.FileLogger(logPath)
	if err != nil {
		return nil, nil, err
	}
	op, err := operator.New(operator.Config{
		Target:     target,
		ReportsDir: reportsDir,
		Timing:     timing,
		Log:        log,
		// The enforcement check and its probes (dry-run creates, and a
		// condition that settles as Kyverno loads the policies) are
		// proven in ../faults (TestEnforcementVerified); here they would
		// blur the steady state's write count.
		NoEnforcementCheck: true,
		// Where the operator runs (its Lease): a namespaceSelectors plan
		// always leaves it out, and needs to know it.
		Facts: kube.Facts{ReleaseNamespace: leaseNamespace},
		// Zero: status.lastReconciled every ten minutes, as deployed;
		// TestOperatorAtScale, which runs longer, turns the stamp off.
		ReconciledEvery: reconciledEvery,
	}, mgr)
	return mgr, op, err
}

// reconciledEvery is the next operator's Config.ReconciledEvery.
var reconciledEvery time.Duration

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// writeCounter records every write request (POST, PUT, PATCH, DELETE) an
// operator sends to the API server.
type writeCounter struct {
	mu      sync.Mutex
	entries []writeEntry
	// requests counts every request, reads too (TestOperatorAtScale).
	requests atomic.Int64
}

type writeEntry struct {
	at           time.Time
	method, path string
}

func (w *writeCounter) add(method, path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.entries = append(w.entries, writeEntry{time.Now(), method, path})
}

// since returns the writes after t, leader election renewals left out
// (the Lease is the one write a leader must make to stay leader).
func (w *writeCounter) since(t time.Time) []writeEntry {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []writeEntry
	for _, e := range w.entries {
		if e.at.After(t) && !strings.Contains(e.path, "/leases/") {
			out = append(out, e)
		}
	}
	return out
}

// leaseWrites counts the Lease writes after t.
func (w *writeCounter) leaseWrites(t time.Time) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, e := range w.entries {
		if e.at.After(t) && strings.Contains(e.path, "/leases/") {
			n++
		}
	}
	return n
}

type countingTransport struct {
	next http.RoundTripper
	w    *writeCounter
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.w.requests.Add(1)
	switch req.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		t.w.add(req.Method, req.URL.Path)
	}
	return t.next.RoundTrip(req)
}
