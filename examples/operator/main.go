// Command operator runs the protection plans lifecycle against a cluster:
// it installs the ProtectionPlan CRD, and on the leader moves every plan
// across its window edges, puts its policies in place with server-side
// apply (Kyverno policies or native ValidatingAdmissionPolicies, by
// --target), repairs drift, checkpoints violations and writes final
// reports. See README.md and package operator.
//
//	go run ./operator --kubeconfig ~/.kube/config --reports-dir /var/lib/protectionplans/reports
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
	_ "time/tzdata" // windows are computed in the plans' zones whatever the image holds

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client/config"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/examples/internal/buildinfo"
	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/examples/operator/operator"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

// options are the command line.
type options struct {
	kubeconfig              string
	target                  string
	reportsDir              string
	leaderElect             bool
	leaderElectionNamespace string
	metricsBindAddress      string
	healthProbeBindAddress  string
	metricsSecure           bool
	version                 bool
	zap                     zap.Options
	installCRD              bool
	compact                 bool
	clock                   bool
	lead                    time.Duration
	warnings                bool
	facts                   kube.Facts
	enforcementCheck, probe bool
	kyvernoNamespace        string
	edgeExecutor            string
	edgeMaxParticipants     int
	edgeMaxJournalBytes     int
}

// parseFlags reads the command line. Unsupported targets are refused here,
// before anything connects to the cluster.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("operator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file; empty: $KUBECONFIG, the in-cluster configuration, then ~/.kube/config")
	fs.StringVar(&o.target, "target", string(render.TargetAuto), "policy target: auto (at start: kyverno-cel where Kyverno serves NamespacedValidatingPolicy, vap where no Kyverno runs, kyverno where it is all there is), kyverno (kyverno.io/v1 Policy), kyverno-cel (policies.kyverno.io/v1 NamespacedValidatingPolicy) or vap (ValidatingAdmissionPolicy and binding)")
	fs.BoolVar(&o.clock, "clock", true, "on kyverno and kyverno-cel, policies that read the clock: put in place up to --lead before a window's start, refusing only from its start instant to its end instant, even while the operator is down (issue 20); vap ignores it (its edges stay the pass's); --clock=false puts policies in place only at the start, as the pass sees it")
	fs.DurationVar(&o.lead, "lead", 0, "with --clock, how long before a window's start its policies are put in place, and with --warnings when the warnings begin; a plan's spec.warnings.lead wins (0: render.DefaultLead, 1h)")
	fs.BoolVar(&o.warnings, "warnings", true, "advance warnings on writes in scope: before a window's start (within --lead), during it, and before its end (within --lead); they never refuse and record nothing (issue 20); a plan opts out with spec.warnings.disabled, --warnings=false turns them off for every plan (one policy less per namespace in scope, from the lead before the start to the end)")
	fs.BoolVar(&o.compact, "compact", true, "compact layout (the default, issue 25): one policy per namespace holding every template of a plan, so a write in scope crosses one policy (kyverno-cel: one webhook) instead of one per template. "+
		"With all nine templates a write in scope costs 1.06x / 1.04x / 1.16x one hand-written policy (kyverno / kyverno-cel / vap), per template 1.24x / 1.85x / 2.39x: each more policy costs kyverno-cel about 0.27 ms (a webhook call) and vap 0.18 ms, so one per template cannot come within 1.2x. "+
		"Health, hashes and messages still name each template; a repair applies the whole namespace's policy. "+
		"--compact=false: one policy per template and namespace, the layout the product documentation describes and the library's default")
	fs.StringVar(&o.reportsDir, "reports-dir", "reports", "directory of the plans' ledgers and final reports")
	fs.BoolVar(&o.leaderElect, "leader-elect", true, "elect a leader with a Lease: only the leader moves plans")
	fs.StringVar(&o.leaderElectionNamespace, "leader-election-namespace", "", "namespace of the leader election Lease (default: the pod's namespace)")
	fs.StringVar(&o.metricsBindAddress, "metrics-bind-address", "127.0.0.1:8080", "address of the Prometheus metrics endpoint (0 disables it)")
	fs.StringVar(&o.healthProbeBindAddress, "health-probe-bind-address", "127.0.0.1:8081", "address of /healthz and /readyz (0 disables them)")
	fs.BoolVar(&o.metricsSecure, "metrics-secure", false, "serve metrics over HTTPS, only to callers the API server authenticates and authorizes (TokenReview, SubjectAccessReview: get on the non-resource URL /metrics)")
	fs.BoolVar(&o.installCRD, "install-crd", true, "server-side apply the ProtectionPlan CRD at start")
	fs.BoolVar(&o.enforcementCheck, "enforcement-check", true, "read the enforcer each pass (Kyverno's webhooks, PolicyExceptions and ConfigMap, the guard) into the EnforcementVerified condition")
	fs.BoolVar(&o.probe, "probe", true, "send each pass the server-side dry-runs the plans' policies must refuse (with --enforcement-check)")
	fs.StringVar(&o.kyvernoNamespace, "kyverno-namespace", kube.DefaultKyvernoNamespace, "namespace of Kyverno's ConfigMap kyverno")
	fs.StringVar(&o.edgeExecutor, "edge-executor", "", "service account (namespace:name) the operator impersonates, with the user-info extra "+render.EdgeExtraKey+" naming the plan, to carry out plans' edge actions; each plan's own freeze exempts exactly these writes (empty: edge actions are not carried out, condition EdgeActions NoExecutor). Needs --release-namespace, where the journals' Secrets live")
	fs.IntVar(&o.edgeMaxParticipants, "edge-max-participants", 0, "most participants of one plan's edge actions (0: 256)")
	fs.IntVar(&o.edgeMaxJournalBytes, "edge-max-journal-bytes", 0, "largest journal of one plan's edge actions, in bytes (0: 512 KiB)")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	o.zap.BindFlags(fs)       // --zap-devel, --zap-encoder, --zap-log-level, ...: JSON logs by default
	o.facts.RegisterFlags(fs) // the API server's flags: plans applied with kubectl are validated against them
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.version {
		return o, nil
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if err := operator.CheckTarget(render.Target(o.target)); o.target != string(render.TargetAuto) && err != nil {
		return o, fmt.Errorf("--target: %w", err)
	}
	if o.reportsDir == "" {
		return o, errors.New("--reports-dir: required")
	}
	return o, nil
}

func restConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig != "" {
		return clientcmd.BuildConfigFromFlags("", kubeconfig)
	}
	return config.GetConfig()
}

func run(ctx context.Context, args []string) error {
	o, err := parseFlags(args, os.Stderr)
	if err != nil {
		return err
	}
	if o.version {
		fmt.Println("operator", buildinfo.Read())
		return nil
	}
	timing, err := reconcile.LoadTiming(os.LookupEnv)
	if err != nil {
		return err
	}
	// A fault-injection hook of the crash tests (examples/e2e/faults);
	// never set in production.
	crashAt, err := operator.ParseCrashPoint(os.Getenv(operator.CrashEnvVar))
	if err != nil {
		return err
	}
	log := zap.New(zap.UseFlagOptions(&o.zap))
	ctrllog.SetLogger(log)
	log.Info("starting", "version", buildinfo.Read().String())
	if crashAt != "" {
		log.Info("FAULT INJECTION: the process will kill itself with SIGKILL at this point of a final pass", "point", crashAt, "variable", operator.CrashEnvVar)
	}
	cfg, err := restConfig(o.kubeconfig)
	if err != nil {
		return err
	}
	mgr, err := operator.NewManager(cfg, operator.ManagerOptions{
		LeaderElection:          o.leaderElect,
		LeaderElectionNamespace: o.leaderElectionNamespace,
		MetricsBindAddress:      o.metricsBindAddress,
		HealthProbeBindAddress:  o.healthProbeBindAddress,
		SecureMetrics:           o.metricsSecure,
	})
	if err != nil {
		return err
	}
	op, err := operator.New(operator.Config{
		Target:        render.Target(o.target),
		Compact:       o.compact,
		ClockPolicies: o.clock,
		Lead:          o.lead,
		Warnings:      o.warnings,
		ReportsDir:    o.reportsDir,
		Timing:        timing,
		InstallCRD:    o.installCRD,
		Log:           log.WithName("protectionplans"),
		CrashAt:       crashAt,
		Facts:         o.facts,

		NoEnforcementCheck: !o.enforcementCheck,
		NoProbe:            !o.probe,
		KyvernoNamespace:   o.kyvernoNamespace,

		EdgeExecutor: o.edgeExecutor,
		EdgeLimits:   edge.Limits{MaxParticipants: o.edgeMaxParticipants, MaxJournalBytes: o.edgeMaxJournalBytes},
	}, mgr)
	if err != nil {
		return err
	}
	return op.Run(ctx)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "operator:", err)
		os.Exit(1)
	}
}
