// Package harness starts a throwaway Kubernetes control plane with a real
// Kyverno in front of it, for end-to-end tests of rendered protection plans.
//
// Why: the library renders admission policies, and only the real admission
// chain (kube-apiserver calling Kyverno's webhooks) says whether they refuse
// what they must and admit the rest. Unit tests and the Kyverno CLI do not
// see subresources such as /scale the way the API server sends them, and the
// CLI evaluates CEL policies on UPDATE with oldObject equal to object.
//
// What runs, all on 127.0.0.1 with ports picked at run time (two harnesses
// may run on one machine at once):
//
//   - etcd and kube-apiserver, started by controller-runtime's envtest (the
//     ecosystem's standard way to run a control plane without containers);
//   - Kyverno's admission controller ("kyverno") and, unless disabled,
//     Kyverno's reports controller, as subprocesses running out of cluster
//     against an admin kubeconfig (a mode Kyverno's DEVELOPMENT.md supports).
//
// There is no controller-manager and no kubelet: Deployments get no
// ReplicaSets or Pods, and namespace deletion never finishes. Admission tests
// do not need them.
//
// The binaries come from hack/e2e/build.sh, which builds them from the Go
// module proxy at pinned versions (etcd v3.6.16, Kubernetes v1.36.3, Kyverno
// v1.19.1) and caches them outside the repository. The caller says where
// they are with the environment variable PROTECTIONPLANS_E2E_ASSETS (the
// cache's bin/ directory); see [AssetsDir]. The harness never downloads or
// builds anything itself, so a test run cannot silently take 25 minutes:
//
//	cd examples && PROTECTIONPLANS_E2E_ASSETS=$(../hack/e2e/build.sh | tail -1)/bin \
//	    go test -tags e2e ./e2e/harness/ -v
//
// Tests that use the harness carry the build tag e2e; this package itself
// builds without a tag so that it is compiled and vetted with the rest.
package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// AssetsEnvVar names the environment variable holding the directory with
// the etcd, kube-apiserver, kubectl, kyverno and reports-controller binaries
// (the bin/ directory printed by hack/e2e/build.sh). The Kyverno CRDs and
// ConfigMaps are expected next to it, in ../kyverno/.
const AssetsEnvVar = "PROTECTIONPLANS_E2E_ASSETS"

// KeepLogsEnvVar, set to 1, keeps the Env's directory (logs, kubeconfig)
// after Stop even when the test passed.
const KeepLogsEnvVar = "PROTECTIONPLANS_E2E_KEEP_LOGS"

// Binaries the harness needs in the assets directory.
var requiredBinaries = []string{"etcd", "kube-apiserver", "kubectl", "kyverno", "reports-controller"}

// AssetsDir returns the directory named by PROTECTIONPLANS_E2E_ASSETS after
// checking that it holds every binary and the Kyverno assets the harness
// needs. The harness does not look anywhere else: the caller decides which
// build it tests against, and a missing variable is an error that says how
// to get one, not a silent download.
func AssetsDir() (string, error) {
	dir := os.Getenv(AssetsEnvVar)
	if dir == "" {
		return "", fmt.Errorf("%s is not set: build the binaries with hack/e2e/build.sh and set %s to the bin/ directory it prints, e.g. %s=$(hack/e2e/build.sh | tail -1)/bin", AssetsEnvVar, AssetsEnvVar, AssetsEnvVar)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%s=%q: %w", AssetsEnvVar, dir, err)
	}
	var missing []string
	for _, b := range requiredBinaries {
		st, err := os.Stat(filepath.Join(abs, b))
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			missing = append(missing, b)
		}
	}
	kyvernoDir := filepath.Join(abs, "..", "kyverno")
	for _, p := range []string{filepath.Join(kyvernoDir, "crds"), filepath.Join(kyvernoDir, "configmaps.yaml")} {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("%s=%q lacks %s: rerun hack/e2e/build.sh", AssetsEnvVar, dir, strings.Join(missing, ", "))
	}
	return abs, nil
}

// Option changes how Start sets up the Env.
type Option func(*options)

type options struct {
	assetsDir         string
	reportsController bool
	startTimeout      time.Duration
	stopGrace         time.Duration
	settleDelay       time.Duration
	kyvernoArgs       []string
	reportsArgs       []string
	keepDir           bool
	crLogger          *logr.Logger
}

func defaultOptions() options {
	return options{
		reportsController: true,
		startTimeout:      3 * time.Minute,
		stopGrace:         10 * time.Second,
		settleDelay:       3 * time.Second,
		keepDir:           os.Getenv(KeepLogsEnvVar) == "1",
	}
}

// WithAssetsDir uses dir instead of PROTECTIONPLANS_E2E_ASSETS.
func WithAssetsDir(dir string) Option { return func(o *options) { o.assetsDir = dir } }

// WithoutReportsController does not start Kyverno's reports controller. It
// saves a process and ~100 MB when a test needs no PolicyReports (PolicyViolation
// events come from the admission controller alone).
func WithoutReportsController() Option { return func(o *options) { o.reportsController = false } }

// WithStartTimeout bounds how long Start waits for Kyverno to become ready
// (default 3 minutes; it usually takes ~20 s).
func WithStartTimeout(d time.Duration) Option { return func(o *options) { o.startTimeout = d } }

// WithStopGrace sets how long Stop waits after SIGTERM before SIGKILL
// (default 10 s).
func WithStopGrace(d time.Duration) Option { return func(o *options) { o.stopGrace = d } }

// WithSettleDelay sets the pause WaitPolicyReady adds once a policy reports
// ready (default 3 s): Kyverno updates its webhook configurations
// asynchronously, after the policy's status says ready.
func WithSettleDelay(d time.Duration) Option { return func(o *options) { o.settleDelay = d } }

// WithKyvernoArgs appends flags to the admission controller's command line
// (e.g. "--v=4"). Flags given here come after the harness's own.
func WithKyvernoArgs(args ...string) Option {
	return func(o *options) { o.kyvernoArgs = append(o.kyvernoArgs, args...) }
}

// WithReportsControllerArgs appends flags to the reports controller's
// command line.
func WithReportsControllerArgs(args ...string) Option {
	return func(o *options) { o.reportsArgs = append(o.reportsArgs, args...) }
}

// WithKeepDir keeps the Env's directory (logs, kubeconfig) after Stop.
func WithKeepDir() Option { return func(o *options) { o.keepDir = true } }

// WithControllerRuntimeLogger gives controller-runtime (used by envtest and
// the client) this logger. By default Start installs a discarding logger
// once, so that controller-runtime does not print its "SetLogger was never
// called" stack trace 30 s into the test.
func WithControllerRuntimeLogger(l logr.Logger) Option {
	return func(o *options) { o.crLogger = &l }
}

var crLoggerOnce sync.Once

// Env is a running control plane with Kyverno. Create it with Start; stop it
// with Stop (registered with t.Cleanup when Start is given a testing.TB).
type Env struct {
	// Config reaches the API server as an admin (group system:masters).
	Config *rest.Config
	// KubeconfigPath is a kubeconfig file for the same admin user, used by
	// Kubectl and by the Kyverno processes.
	KubeconfigPath string
	// Client is a controller-runtime client with Scheme.
	Client client.Client
	// Scheme holds client-go's built-in types (core, apps, batch, rbac,
	// admissionregistration, ...). Kyverno's types are not in it: use
	// unstructured objects for them.
	Scheme *runtime.Scheme
	// Dir is the Env's private directory: the kubeconfig and one log file per
	// process (etcd.log, kube-apiserver.log, kyverno.log,
	// reports-controller.log). It is removed by Stop unless the test failed,
	// WithKeepDir was given or PROTECTIONPLANS_E2E_KEEP_LOGS=1.
	Dir string
	// AssetsDir is the directory the binaries were taken from.
	AssetsDir string
	// WebhookPort is the port Kyverno's webhook server listens on (127.0.0.1).
	WebhookPort int

	opts     options
	testEnv  *envtest.Environment
	logFiles []*os.File
	procs    []*process // in start order
	tb       testing.TB

	tailsShown bool // the start error already carried the log tails

	startMu  sync.Mutex
	stopOnce sync.Once
	stopErr  error
}

// Start starts etcd, kube-apiserver, installs Kyverno's CRDs and
// configuration, starts Kyverno's admission controller (and reports
// controller) and waits until Kyverno serves its webhooks.
//
// tb may be nil. When it is not, Stop is registered with tb.Cleanup, and on
// a failed test the tails of the logs are printed and the Env's directory is
// kept. When Start fails, it stops whatever it had started before
// returning, keeps the directory and puts the log tails in the error.
//
// ctx bounds the start only; the processes outlive it until Stop.
func Start(ctx context.Context, tb testing.TB, opts ...Option) (*Env, error) {
	if tb != nil {
		tb.Helper()
	}
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if o.crLogger != nil {
		ctrllog.SetLogger(*o.crLogger)
	} else {
		crLoggerOnce.Do(func() { ctrllog.SetLogger(logr.Discard()) })
	}

	assets := o.assetsDir
	if assets == "" {
		var err error
		if assets, err = AssetsDir(); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", "protectionplans-e2e-")
	if err != nil {
		return nil, fmt.Errorf("creating the env directory: %w", err)
	}
	e := &Env{Dir: dir, AssetsDir: assets, opts: o, tb: tb}
	if tb != nil {
		tb.Cleanup(func() { e.cleanup() })
	}
	// Hold startMu while starting: a Stop from t.Cleanup (the test failed
	// or ended while Start ran in another goroutine) waits for the start to
	// give up (tb.Context() is canceled before cleanups run) instead of
	// racing it and leaving processes started after the stop.
	e.startMu.Lock()
	err = e.start(ctx)
	if err != nil {
		err = fmt.Errorf("harness: %w%s\n(logs kept in %s)", err, e.logTails(40), e.Dir)
		e.tailsShown = true
		e.opts.keepDir = true // the error points at the logs
	}
	e.startMu.Unlock()
	if err != nil {
		_ = e.Stop() // whatever did start
		return nil, err
	}
	return e, nil
}

// MustStart is Start for tests: it fails the test at once when the
// environment cannot start.
func MustStart(tb testing.TB, opts ...Option) *Env {
	tb.Helper()
	ctx := tb.Context()
	e, err := Start(ctx, tb, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

func (e *Env) start(ctx context.Context) error {
	o := e.opts
	etcdLog, err := e.openLog("etcd.log")
	if err != nil {
		return err
	}
	apiLog, err := e.openLog("kube-apiserver.log")
	if err != nil {
		return err
	}

	kdir := filepath.Join(e.AssetsDir, "..", "kyverno", "crds")
	var crdDirs []string
	for _, d := range []string{"kyverno", "policies.kyverno.io", "policyreport", "reports"} {
		crdDirs = append(crdDirs, filepath.Join(kdir, d))
	}

	e.Scheme = runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(e.Scheme); err != nil {
		return err
	}

	te := &envtest.Environment{Scheme: e.Scheme}
	// Explicit paths win over KUBEBUILDER_ASSETS and any download logic.
	te.ControlPlane.Etcd = &envtest.Etcd{Path: filepath.Join(e.AssetsDir, "etcd"), Out: etcdLog, Err: etcdLog}
	te.ControlPlane.APIServer = &envtest.APIServer{Path: filepath.Join(e.AssetsDir, "kube-apiserver"), Out: apiLog, Err: apiLog}
	te.ControlPlane.KubectlPath = filepath.Join(e.AssetsDir, "kubectl")
	te.ControlPlaneStartTimeout = time.Minute
	te.ControlPlaneStopTimeout = 30 * time.Second
	e.testEnv = te

	if _, err := te.Start(); err != nil {
		return fmt.Errorf("starting etcd + kube-apiserver (envtest): %w", err)
	}

	// A user of our own, in system:masters, with a kubeconfig on disk: for
	// kubectl and for the Kyverno processes.
	admin, err := te.ControlPlane.AddUser(envtest.User{Name: "e2e-admin", Groups: []string{"system:masters"}},
		&rest.Config{QPS: 200, Burst: 400})
	if err != nil {
		return fmt.Errorf("adding the admin user: %w", err)
	}
	e.Config = admin.Config()
	kubeconfig, err := admin.KubeConfig()
	if err != nil {
		return fmt.Errorf("building the admin kubeconfig: %w", err)
	}
	e.KubeconfigPath = filepath.Join(e.Dir, "kubeconfig")
	if err := os.WriteFile(e.KubeconfigPath, kubeconfig, 0o600); err != nil {
		return err
	}
	if e.Client, err = client.New(e.Config, client.Options{Scheme: e.Scheme}); err != nil {
		return fmt.Errorf("creating the client: %w", err)
	}

	startCtx, cancel := context.WithTimeout(ctx, o.startTimeout)
	defer cancel()
	if err := installCRDs(startCtx, e.Config, crdDirs); err != nil {
		return err
	}
	if err := e.installKyvernoPrerequisites(startCtx); err != nil {
		return fmt.Errorf("installing Kyverno's namespace, ConfigMaps and RBAC: %w", err)
	}
	if err := e.startKyverno(startCtx); err != nil {
		return err
	}
	return nil
}

// installCRDs creates Kyverno's CRDs with envtest's installer: plain
// creates (no client-side apply, so no last-applied annotation, which would
// be too large for Kyverno's biggest CRDs), then a wait until every one is
// served. The installer is idempotent (existing CRDs are updated), so it is
// retried: on a loaded 2-core machine (three control planes at once and
// builds next door) kube-apiserver once answered a CRD create with
// "Timeout: request did not complete within requested timeout".
func installCRDs(ctx context.Context, cfg *rest.Config, dirs []string) error {
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		_, err = envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{
			Paths:              dirs,
			ErrorIfPathMissing: true,
			MaxTime:            2 * time.Minute,
		})
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
		}
	}
	return fmt.Errorf("installing Kyverno's CRDs: %w", err)
}

func (e *Env) openLog(name string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(e.Dir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	e.logFiles = append(e.logFiles, f)
	return f, nil
}

// LogPath returns the path of a process's log file in Dir: "etcd",
// "kube-apiserver", "kyverno" or "reports-controller".
func (e *Env) LogPath(process string) string { return filepath.Join(e.Dir, process+".log") }

// LogTail returns the last n lines of a process's log ("kyverno", ...).
func (e *Env) LogTail(process string, n int) string { return tailFile(e.LogPath(process), n) }

// logTails formats the tail of every log that exists, for error messages.
func (e *Env) logTails(n int) string {
	var b strings.Builder
	for _, p := range []string{"kyverno", "reports-controller", "kube-apiserver", "etcd"} {
		if _, err := os.Stat(e.LogPath(p)); err != nil {
			continue
		}
		t := e.LogTail(p, n)
		if t == "" {
			continue
		}
		fmt.Fprintf(&b, "\n--- last %d lines of %s ---\n%s", n, e.LogPath(p), t)
	}
	return b.String()
}

// Kubectl runs the cached kubectl against the Env with the admin
// kubeconfig, in the current directory (so relative -f paths work). err is
// non-nil when kubectl exits non-zero; stderr then holds
// the API server's (or Kyverno's) message.
func (e *Env) Kubectl(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	return e.KubectlInput(ctx, "", args...)
}

// KubectlInput is Kubectl with stdin, e.g. KubectlInput(ctx, manifest,
// "apply", "-f", "-").
func (e *Env) KubectlInput(ctx context.Context, stdin string, args ...string) (stdout, stderr string, err error) {
	full := append([]string{"--kubeconfig=" + e.KubeconfigPath}, args...)
	return runCommand(ctx, filepath.Join(e.AssetsDir, "kubectl"), full, "", stdin)
}

// Stop stops the processes Start started, and only those, by PID: Kyverno's
// processes first (SIGTERM, then SIGKILL after the grace period), then
// envtest's kube-apiserver and etcd. It is safe to call more than once; later
// calls return the first call's result.
// FileLogger returns a logger, at verbosity 1, that appends one line per
// entry, with its time, to the file at path (an operator's log in a test),
// and the function that closes the file.
func FileLogger(path string) (logr.Logger, func() error, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return logr.Logger{}, nil, err
	}
	var mu sync.Mutex
	log := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(f, time.Now().Format("15:04:05.000"), prefix, args)
	}, funcr.Options{Verbosity: 1})
	return log, f.Close, nil
}

// Finish is the end of a TestMain that started its Env with WithKeepDir:
// it stops the Env, and removes its directory when the run passed (code 0)
// and KeepLogsEnvVar is not set, or says where the logs are kept. It
// returns the exit code: code, or 1 when stopping failed.
func (e *Env) Finish(code int) int {
	if err := e.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the harness:", err)
		code = 1
	}
	if code == 0 && os.Getenv(KeepLogsEnvVar) != "1" {
		_ = os.RemoveAll(e.Dir)
	} else {
		fmt.Fprintf(os.Stderr, "logs kept in %s\n", e.Dir)
	}
	return code
}

func (e *Env) Stop() error {
	e.startMu.Lock()
	defer e.startMu.Unlock()
	e.stopOnce.Do(func() { e.stopErr = e.stop() })
	return e.stopErr
}

func (e *Env) stop() error {
	var errs []error
	for i := len(e.procs) - 1; i >= 0; i-- {
		if err := e.procs[i].stop(e.opts.stopGrace); err != nil {
			errs = append(errs, err)
		}
	}
	if e.testEnv != nil {
		if err := e.testEnv.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("stopping envtest: %w", err))
		}
	}
	for _, f := range e.logFiles {
		_ = f.Close()
	}
	keep := e.opts.keepDir || (e.tb != nil && e.tb.Failed())
	if !keep && e.Dir != "" {
		if err := os.RemoveAll(e.Dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// cleanup is what t.Cleanup runs: on failure, show where the logs are and
// their tails, then Stop.
func (e *Env) cleanup() {
	e.startMu.Lock()
	shown := e.tailsShown
	e.startMu.Unlock()
	if e.tb.Failed() {
		tails := ""
		if !shown {
			tails = e.logTails(30)
		}
		e.tb.Logf("harness: logs kept in %s%s", e.Dir, tails)
	}
	if err := e.Stop(); err != nil {
		e.tb.Errorf("harness: stop: %v", err)
	}
}
