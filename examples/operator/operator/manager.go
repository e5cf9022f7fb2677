package operator

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

// FieldManager is the field manager of every write the operator makes:
// the server-side applies of rendered policies (forcing ownership), the
// failure-action patches, the CRD and the plans' status.
const FieldManager = "protectionplans-operator"

// LeaderElectionID names the Lease the replicas compete for.
const LeaderElectionID = "protectionplans-operator.telark.io"

// Config is what the operator needs besides a manager.
type Config struct {
	// Target is the kind of policy plans render to (one of Targets), or
	// render.TargetAuto: chosen at New from what the cluster serves
	// (render.ChooseTarget). Empty means render.TargetKyverno, the
	// default of R-R5; the command's --target defaults to auto.
	Target render.Target
	// Compact renders the compact layout (render.Input.Compact): one
	// policy per namespace for all of a plan's templates.
	Compact bool
	// ClockPolicies and Lead are reconcile.Settings.Clock and Lead: on a target
	// with a clock, policies that keep time themselves, put in place up
	// to Lead before a window's start (issue 20).
	ClockPolicies bool
	Lead          time.Duration
	// Warnings is reconcile.Settings.Warnings: the plans' advance
	// warnings (issue 20), from Lead before a window's start; a plan's
	// spec.warnings overrides the lead or opts out.
	Warnings bool
	// ReportsDir holds one directory per plan (named by the plan ID):
	// ledger.json, health.json, observed.json and the final reports.
	// Required.
	ReportsDir string
	// Timing is the tick and checkpoint periods, as reconcile.LoadTiming reads
	// them from the environment. Zero fields take the defaults.
	Timing reconcile.Timing
	// Approval derives spec.approvalMode of plans created without one
	// (kubectl apply). The zero value is the documented default.
	Approval approval.Config
	// Facts are the release namespace, the excluded namespaces and the
	// categories, the same settings as the API server's: plans applied
	// with kubectl are validated against them.
	Facts kube.Facts
	// InstallCRD server-side applies the ProtectionPlan CRD in Run, before
	// the manager starts.
	InstallCRD bool
	// Clock is the operator's clock; nil means the real one. Unit tests
	// pass a fake.
	Clock clock.WithTicker
	// Log is the operator's logger; the zero value discards.
	Log logr.Logger
	// NoEnforcementCheck turns off reading the enforcer (webhooks,
	// exceptions, Kyverno's ConfigMap, the guard) and the
	// EnforcementVerified condition; NoProbe only the active probe.
	// Both are on by default.
	NoEnforcementCheck, NoProbe bool
	// KyvernoNamespace is where Kyverno's ConfigMap kyverno is read;
	// empty is kube.DefaultKyvernoNamespace.
	KyvernoNamespace string
	// ProbeTimeout bounds one probe; zero is DefaultProbeTimeout.
	ProbeTimeout time.Duration
	// ReconciledEvery is how old a plan's status.lastReconciled may grow
	// before a steady pass stamps it (reconcile.Settings.ReconciledEvery):
	// zero is reconcile.DefaultReconciledEvery, negative stamps nothing
	// (a steady-state measurement longer than the interval).
	ReconciledEvery time.Duration
	// EdgeExecutor is the service account (namespace:name) the operator
	// impersonates to carry out plans' edge actions, with the user-info
	// extra render.EdgeExtraKey naming the plan: what each plan's own
	// freeze exempts (reconcile.Settings.EdgeExecutor). Empty carries
	// none out (condition EdgeActions NoExecutor). It needs
	// Facts.ReleaseNamespace, where the journals' Secrets live.
	EdgeExecutor string
	// EdgeLimits bound a plan's edge actions; zero fields take edge's
	// defaults (256 participants, a 512 KiB journal).
	EdgeLimits edge.Limits
	// OnCrash, when set, is called at CrashAt instead of killing the
	// process, and the pass stops there (in-process fault tests).
	OnCrash func(CrashPoint)
	// CrashAt is a fault-injection hook for the crash tests: the process
	// kills itself with SIGKILL when a pass reaches this point (see
	// CrashEnvVar). Empty, the default, never crashes.
	CrashAt CrashPoint
}

// withDefaults checks cfg and fills in its defaults.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Target == "" {
		cfg.Target = render.TargetKyverno
	}
	if err := CheckTarget(cfg.Target); err != nil {
		return cfg, err
	}
	if cfg.ReportsDir == "" {
		return cfg, errors.New("operator: a reports directory is required")
	}
	abs, err := filepath.Abs(cfg.ReportsDir)
	if err != nil {
		return cfg, fmt.Errorf("operator: reports directory %q: %w", cfg.ReportsDir, err)
	}
	cfg.ReportsDir = abs
	if cfg.Timing.TickInterval <= 0 {
		cfg.Timing.TickInterval = reconcile.DefaultTickInterval
	}
	if cfg.Timing.ReportCheckpoint <= 0 {
		cfg.Timing.ReportCheckpoint = reconcile.DefaultReportCheckpoint
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Log.GetSink() == nil {
		cfg.Log = logr.Discard()
	}
	if _, err := ParseCrashPoint(string(cfg.CrashAt)); err != nil {
		return cfg, err
	}
	if cfg.EdgeExecutor != "" && cfg.Facts.ReleaseNamespace == "" {
		return cfg, fmt.Errorf("edge executor %q: the release namespace, where the edge journals live, is not set", cfg.EdgeExecutor)
	}
	return cfg, nil
}

// Targets are the render targets the operator runs with: those its
// end-to-end tests (examples/e2e/matrix) prove against a real API server
// and Kyverno, every one of render.Targets:
//
//   - kyverno: kyverno.io/v1 Policies, one per template and namespace;
//   - kyverno-cel: policies.kyverno.io/v1 NamespacedValidatingPolicies,
//     one per template and namespace;
//   - vap: admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies
//     and their bindings, cluster-scoped, one pair per template and
//     namespace (render.VAPName), listed cluster-wide by label like the
//     others. Violations: see the package documentation.
var Targets = []render.Target{render.TargetKyverno, render.TargetKyvernoCEL, render.TargetVAP}

// CheckTarget says whether the operator can run with target t: one of
// render.Targets, rendered by package render, and in Targets.
func CheckTarget(t render.Target) error {
	known := false
	for _, k := range render.Targets() {
		known = known || k == t
	}
	switch {
	case !known:
		return fmt.Errorf("unknown target %q: want one of %v", t, render.Targets())
	case !render.Supported(t):
		return fmt.Errorf("target %q is not supported yet: package render cannot render it", t)
	case !slices.Contains(Targets, t):
		return fmt.Errorf("target %q is not supported yet by the operator: it runs only with %v, the targets its end-to-end tests prove", t, Targets)
	}
	return nil
}

// ManagerOptions are the process-level settings of NewManager.
type ManagerOptions struct {
	// LeaderElection makes only the holder of the Lease move plans.
	LeaderElection bool
	// LeaderElectionNamespace is where the Lease lives.
	LeaderElectionNamespace string
	// MetricsBindAddress serves Prometheus metrics ("0" disables them).
	MetricsBindAddress string
	// HealthProbeBindAddress serves /healthz and /readyz ("0" or "" disables).
	HealthProbeBindAddress string
	// SecureMetrics serves metrics over HTTPS (a self-signed certificate
	// unless the embedder adds one) to callers the API server
	// authenticates and authorizes (controller-runtime's
	// filters.WithAuthenticationAndAuthorization: a TokenReview and a
	// SubjectAccessReview per request, so the operator needs create on
	// both; see config/rbac/metrics_auth_role.yaml).
	SecureMetrics bool
}

// Scheme returns the scheme the operator's clients use: client-go's types
// and ProtectionPlan.
func Scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := plan.AddToScheme(s); err != nil {
		return nil, err
	}
	return s, nil
}

// NewManager builds the controller-runtime manager the operator runs in.
func NewManager(cfg *rest.Config, o ManagerOptions) (manager.Manager, error) {
	s, err := Scheme()
	if err != nil {
		return nil, err
	}
	if o.HealthProbeBindAddress == "" {
		o.HealthProbeBindAddress = "0"
	}
	// The API server answers every write of a kyverno.io/v1 Policy with
	// the same deprecation warning: the plans' writes collect theirs for
	// package reconcile to show once (warnings.go).
	cfg = withWarningHandler(cfg)
	return manager.New(cfg, manager.Options{
		Scheme:                        s,
		LeaderElection:                o.LeaderElection,
		LeaderElectionID:              LeaderElectionID,
		LeaderElectionNamespace:       o.LeaderElectionNamespace,
		LeaderElectionReleaseOnCancel: true,
		Metrics:                       metricsOptions(o),
		HealthProbeBindAddress:        o.HealthProbeBindAddress,
	})
}

// metricsOptions serves metrics on o.MetricsBindAddress, behind the
// authentication and authorization filter when o.SecureMetrics.
func metricsOptions(o ManagerOptions) metricsserver.Options {
	m := metricsserver.Options{BindAddress: o.MetricsBindAddress}
	if o.SecureMetrics {
		m.SecureServing = true
		m.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	return m
}

// Operator runs the plans' lifecycle in a manager: New adds it, Run starts
// the manager.
type Operator struct {
	cfg  Config
	mgr  manager.Manager
	r    *reconciler
	loop *loop
}

// New adds the operator to mgr: a leader-only runnable that reconciles every
// plan on the tick, at the next window edge and soon after a plan changes;
// and the health checks.
func New(cfg Config, mgr manager.Manager) (*Operator, error) {
	cfg, err := resolveAuto(cfg, mgr)
	if err != nil {
		return nil, err
	}
	cfg, err = cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	registerMetrics()
	registerActivationMetric()
	registerLivenessMetrics(cfg.Timing)
	r := newReconciler(cfg, mgr.GetClient(), mgr.GetAPIReader(), mgr.GetEventRecorder(FieldManager))
	if cfg.EdgeExecutor != "" {
		if r.edge, err = newImpersonator(mgr.GetConfig(), cfg.EdgeExecutor); err != nil {
			return nil, err
		}
	}
	l := newLoop(r, mgr.GetCache())
	if err := mgr.Add(l); err != nil {
		return nil, err
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	return &Operator{cfg: cfg, mgr: mgr, r: r, loop: l}, nil
}

// Run installs the CRD when asked, then runs the manager until ctx ends.
func (o *Operator) Run(ctx context.Context) error {
	if o.cfg.InstallCRD {
		if err := InstallCRD(ctx, o.mgr.GetClient(), o.mgr.GetAPIReader(), FieldManager); err != nil {
			return err
		}
	}
	return o.mgr.Start(ctx)
}

// Passes returns how many reconcile passes the operator has completed (for
// tests and logs).
func (o *Operator) Passes() int64 { return o.loop.passes.Load() }
