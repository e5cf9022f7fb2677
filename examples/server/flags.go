package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
	_ "time/tzdata" // windows are computed in the plans' zones whatever the image holds

	"github.com/go-logr/logr"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/client/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/examples/internal/buildinfo"
	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// run parses the flags, builds the server and serves until SIGINT or
// SIGTERM. It returns the exit status: 0 after a clean stop, 1 when the
// server could not start or stopped on an error, 2 on bad flags.
func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("protectionplans-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:8080", "address to listen on: host:port, or unix:/path/to.sock")
	identity := fs.String("identity", string(TrustedListener), "when to believe X-Remote-User/X-Remote-Group: trusted-listener (the listener is only reachable by the proxy: a unix socket or a loopback address) or shared-secret (only with a valid X-Proxy-Secret)")
	secretFile := fs.String("proxy-secret-file", "", "file holding the shared secret (--identity=shared-secret)")
	rolesFile := fs.String("roles", "", "roles file: custom roles and bindings of users and groups (required)")
	var facts kube.Facts
	facts.RegisterFlags(fs)
	reportsDir := fs.String("reports-dir", "", "the reports directory shared with the operator (ledgers and reports); empty: no reports")
	defaultApproval := fs.String("default-approval", "automatic", "approval mode of plans outside Production when the client asks for none: automatic or required")
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)")
	target := fs.String("target", string(render.TargetAuto), "the render target the operator runs with: auto (chosen at start from what the cluster serves, as the operator chooses), kyverno, kyverno-cel or vap (health refresh renders for it)")
	compact := fs.Bool("compact", true, "the operator runs with --compact (its default): health refresh renders the compact layout for a plan whose status does not record its layout; --compact=false when the operator runs with --compact=false")
	origins := fs.String("trusted-origins", "", "origins allowed to send cross-origin writes, comma-separated (e.g. https://portal.example.com when the proxy does not forward Sec-Fetch-Site)")
	version := fs.Bool("version", false, "print the version and exit")
	zapOpts := zap.Options{DestWriter: stderr}
	zapOpts.BindFlags(fs) // --zap-devel, --zap-encoder, --zap-log-level, ...: JSON logs by default, as the operator's
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *version {
		fmt.Fprintln(os.Stdout, "protectionplans-server", buildinfo.Read())
		return 0
	}
	log := slog.New(logr.ToSlogHandler(zap.New(zap.UseFlagOptions(&zapOpts))))
	fail := func(err error) int { fmt.Fprintln(stderr, "protectionplans-server:", err); return 1 }

	cfg := Config{ReleaseNamespace: facts.ReleaseNamespace, ReportsDir: *reportsDir, Log: log,
		Identity: Identity{Mode: IdentityMode(*identity)},
		Approval: approval.Config{DefaultMode: plan.ApprovalMode(*defaultApproval)},
		Excluded: facts.Excluded, TrustedOrigins: splitList(*origins)}
	cfg.Target = render.Target(*target)
	if !render.Supported(cfg.Target) && cfg.Target != render.TargetAuto {
		fmt.Fprintf(stderr, "protectionplans-server: --target %q: not a render target (auto, kyverno, kyverno-cel, vap)\n", *target)
		return 2
	}
	cfg.Compact = *compact
	if *rolesFile == "" {
		fmt.Fprintln(stderr, "protectionplans-server: --roles is required")
		return 2
	}
	var err error
	if cfg.Roles, err = LoadRoles(*rolesFile); err != nil {
		return fail(err)
	}
	if *secretFile != "" {
		b, err := os.ReadFile(*secretFile)
		if err != nil {
			return fail(err)
		}
		cfg.Identity.Secret = []byte(strings.TrimSpace(string(b)))
	}
	restCfg, err := restConfig(*kubeconfig)
	if err != nil {
		return fail(err)
	}
	if cfg.Client, err = NewClient(restCfg); err != nil {
		return fail(err)
	}
	network, addr := "tcp", *listen
	if p, ok := strings.CutPrefix(addr, "unix:"); ok {
		network, addr = "unix", p
	}
	if err := cfg.Identity.checkListener(network, addr); err != nil {
		return fail(err)
	}
	srv, err := New(cfg)
	if err != nil {
		return fail(err)
	}
	ln, err := net.Listen(network, addr)
	if err != nil {
		return fail(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	log.Info("serving", "version", buildinfo.Read().String(), "network", network, "address", ln.Addr().String(), "identity", cfg.Identity.Mode)
	if err := Serve(ctx, ln, srv); err != nil {
		return fail(err)
	}
	return 0
}

// Serve serves h on ln until ctx ends, then shuts down gracefully.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// NewClient returns a controller-runtime client that knows the plans and
// the built-in kinds; Kyverno's policies are read as unstructured objects.
func NewClient(cfg *rest.Config) (client.Client, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := plan.AddToScheme(s); err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: s})
}

func restConfig(path string) (*rest.Config, error) {
	if path != "" {
		return clientcmd.BuildConfigFromFlags("", path)
	}
	return ctrlconfig.GetConfig()
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
