package harness

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Names Kyverno expects, as in its Helm chart and install manifests.
const (
	// KyvernoNamespace is the namespace Kyverno runs "in" (its ConfigMaps,
	// service accounts, certificate secrets and leases live there).
	KyvernoNamespace = "kyverno"

	// ValidatingWebhookName is the ValidatingWebhookConfiguration Kyverno
	// registers for resource validation; its existence is part of "ready".
	ValidatingWebhookName = "kyverno-resource-validating-webhook-cfg"

	admissionSA  = "kyverno-admission-controller"
	reportsSA    = "kyverno-reports-controller"
	backgroundSA = "kyverno-background-controller"
)

// installKyvernoPrerequisites creates what Kyverno reads at start: its
// namespace, its two ConfigMaps (resource filters, webhook namespace
// selector, metrics settings) and its service accounts. Kyverno checks that
// the reports and background service accounts may read what a policy
// touches (a NamespacedValidatingPolicy stays not ready with
// RBACPermissionsGranted=False otherwise), so all three are bound to
// cluster-admin: fine in a throwaway cluster.
func (e *Env) installKyvernoPrerequisites(ctx context.Context) error {
	c := e.Client
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: KyvernoNamespace}}
	if err := ignoreExists(c.Create(ctx, ns)); err != nil {
		return fmt.Errorf("namespace %s: %w", KyvernoNamespace, err)
	}

	cmPath := filepath.Join(e.AssetsDir, "..", "kyverno", "configmaps.yaml")
	data, err := os.ReadFile(cmPath)
	if err != nil {
		return err
	}
	docs, err := splitYAML(data)
	if err != nil {
		return fmt.Errorf("%s: %w", cmPath, err)
	}
	n := 0
	for _, doc := range docs {
		var cm corev1.ConfigMap
		if err := yaml.Unmarshal(doc, &cm); err != nil {
			return fmt.Errorf("%s: %w", cmPath, err)
		}
		if cm.Kind != "ConfigMap" {
			continue
		}
		cm.Namespace = KyvernoNamespace
		if err := ignoreExists(c.Create(ctx, &cm)); err != nil {
			return fmt.Errorf("ConfigMap %s: %w", cm.Name, err)
		}
		n++
	}
	if n < 2 {
		return fmt.Errorf("%s: expected the kyverno and kyverno-metrics ConfigMaps, found %d ConfigMaps", cmPath, n)
	}

	for _, sa := range []string{admissionSA, reportsSA, backgroundSA} {
		obj := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa, Namespace: KyvernoNamespace}}
		if err := ignoreExists(c.Create(ctx, obj)); err != nil {
			return fmt.Errorf("ServiceAccount %s: %w", sa, err)
		}
		crb := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "e2e:" + sa},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: KyvernoNamespace}},
		}
		if err := ignoreExists(c.Create(ctx, crb)); err != nil {
			return fmt.Errorf("ClusterRoleBinding %s: %w", crb.Name, err)
		}
	}
	return nil
}

func ignoreExists(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// splitYAML splits a multi-document YAML stream into its documents.
func splitYAML(data []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		d, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(d)) > 0 {
			docs = append(docs, d)
		}
	}
}

// kyvernoEnv is the environment of both Kyverno processes: the caller's
// environment (PATH, HOME, proxies...) without KUBECONFIG, plus what
// Kyverno reads instead of its Deployment's downward API.
func kyvernoEnv(serviceAccount, podName string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "KUBECONFIG=") || strings.HasPrefix(kv, "KYVERNO_") ||
			strings.HasPrefix(kv, "INIT_CONFIG=") || strings.HasPrefix(kv, "METRICS_CONFIG=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"KYVERNO_NAMESPACE="+KyvernoNamespace,
		"KYVERNO_SERVICEACCOUNT_NAME="+serviceAccount,
		"KYVERNO_DEPLOYMENT=dummy",
		"KYVERNO_POD_NAME="+podName,
		"INIT_CONFIG=kyverno",
		"METRICS_CONFIG=kyverno-metrics",
	)
}

// startKyverno starts the admission controller (and the reports
// controller), then waits until Kyverno is ready: its readiness endpoint
// answers 200 and its resource validating webhook configuration exists.
//
// Every listener is pinned to 127.0.0.1 on a port chosen now: without
// --metricsHost Kyverno listens on 0.0.0.0:8000, and without
// --controllerRuntimeMetricsAddress=0 on :8080. --serverIP makes Kyverno
// register URL webhooks (https://127.0.0.1:PORT/...) and put that IP in the
// serving certificate it generates, so there is no TLS to set up.
func (e *Env) startKyverno(ctx context.Context) error {
	webhookPort, err := freePort()
	if err != nil {
		return err
	}
	metricsPort, err := freePort()
	if err != nil {
		return err
	}
	e.WebhookPort = webhookPort
	podName := fmt.Sprintf("kyverno-e2e-%d", os.Getpid())

	args := []string{
		"--kubeconfig=" + e.KubeconfigPath,
		"--serverIP=127.0.0.1:" + strconv.Itoa(webhookPort),
		"--webhookServerHost=127.0.0.1",
		"--webhookServerPort=" + strconv.Itoa(webhookPort),
		"--caSecretName=kyverno-svc.kyverno.svc.kyverno-tls-ca",
		"--tlsSecretName=kyverno-svc.kyverno.svc.kyverno-tls-pair",
		"--backgroundServiceAccountName=system:serviceaccount:kyverno:" + backgroundSA,
		"--reportsServiceAccountName=system:serviceaccount:kyverno:" + reportsSA,
		"--disableMetrics=true",
		"--metricsHost=127.0.0.1",
		"--metricsPort=" + strconv.Itoa(metricsPort),
		"--controllerRuntimeMetricsAddress=0",
		"--leaderElectionRetryPeriod=1s",
		"--disableLogColor=true",
	}
	args = append(args, e.opts.kyvernoArgs...)
	klog, err := e.openLog("kyverno.log")
	if err != nil {
		return err
	}
	kp, err := startProcess("kyverno", filepath.Join(e.AssetsDir, "kyverno"), args,
		kyvernoEnv(admissionSA, podName+"-admission"), klog, e.Dir)
	if err != nil {
		return err
	}
	e.procs = append(e.procs, kp)

	if e.opts.reportsController {
		reportsMetricsPort, err := freePort()
		if err != nil {
			return err
		}
		rargs := []string{
			"--kubeconfig=" + e.KubeconfigPath,
			"--disableMetrics=true",
			"--metricsHost=127.0.0.1",
			"--metricsPort=" + strconv.Itoa(reportsMetricsPort),
			"--backgroundScan=false",
			"--leaderElectionRetryPeriod=1s",
			"--disableLogColor=true",
		}
		rargs = append(rargs, e.opts.reportsArgs...)
		rlog, err := e.openLog("reports-controller.log")
		if err != nil {
			return err
		}
		rp, err := startProcess("reports-controller", filepath.Join(e.AssetsDir, "reports-controller"), rargs,
			kyvernoEnv(reportsSA, podName+"-reports"), rlog, e.Dir)
		if err != nil {
			return err
		}
		e.procs = append(e.procs, rp)
	}

	return e.waitKyvernoReady(ctx)
}

// waitKyvernoReady polls until Kyverno's readiness endpoint answers 200 and
// ValidatingWebhookName exists, failing early if a Kyverno process exits.
func (e *Env) waitKyvernoReady(ctx context.Context) error {
	// The serving certificate is Kyverno's self-signed one, made at start;
	// this probe only asks "is it up" on loopback, so it does not verify it.
	httpc := &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // loopback readiness probe
	}
	defer httpc.CloseIdleConnections()
	url := fmt.Sprintf("https://127.0.0.1:%d/health/readiness", e.WebhookPort)
	start := time.Now()
	var last string
	for {
		for _, p := range e.procs {
			if done, werr := p.exited(); done {
				return fmt.Errorf("%s exited before Kyverno was ready (%v); log: %s", p.name, werr, p.logPath)
			}
		}
		ready, why := e.kyvernoReadyOnce(ctx, httpc, url)
		if ready {
			return nil
		}
		last = why
		select {
		case <-ctx.Done():
			return fmt.Errorf("Kyverno not ready after %s (last check: %s): %w; log: %s",
				time.Since(start).Round(time.Second), last, ctx.Err(), e.LogPath("kyverno"))
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func (e *Env) kyvernoReadyOnce(ctx context.Context, httpc *http.Client, url string) (bool, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, err.Error()
	}
	resp, err := httpc.Do(req)
	if err != nil {
		return false, "readiness endpoint: " + err.Error()
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, "readiness endpoint: " + resp.Status
	}
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	if err := e.Client.Get(ctx, types.NamespacedName{Name: ValidatingWebhookName}, &vwc); err != nil {
		if apierrors.IsNotFound(err) {
			return false, "ValidatingWebhookConfiguration " + ValidatingWebhookName + " not created yet"
		}
		return false, err.Error()
	}
	return true, ""
}

// StopKyverno stops Kyverno's admission controller: the process Start
// started, by its PID only (SIGTERM, then SIGKILL after the stop grace,
// WithStopGrace). Its webhook configurations stay registered with the API
// server, so requests they match fail or pass by their failure policy
// while it is down. StartKyverno starts it again.
func (e *Env) StopKyverno() error {
	e.startMu.Lock()
	defer e.startMu.Unlock()
	p := e.process("kyverno")
	if p == nil {
		return errors.New("harness: Kyverno's admission controller was not started")
	}
	return p.stop(e.opts.stopGrace)
}

// StartKyverno starts Kyverno's admission controller again after
// StopKyverno, with the same flags, environment and ports (its webhooks
// keep their URLs; its certificates are in the kyverno namespace's
// Secrets), its output appended to the same log, and waits until it is
// ready (see Start).
func (e *Env) StartKyverno(ctx context.Context) error {
	e.startMu.Lock()
	defer e.startMu.Unlock()
	p := e.process("kyverno")
	if p == nil {
		return errors.New("harness: Kyverno's admission controller was not started")
	}
	if done, _ := p.exited(); !done {
		return errors.New("harness: Kyverno's admission controller is running; stop it first")
	}
	log, err := e.openLog("kyverno.log")
	if err != nil {
		return err
	}
	np, err := startProcess(p.name, p.cmd.Path, p.cmd.Args[1:], p.cmd.Env, log, e.Dir)
	if err != nil {
		return err
	}
	for i := range e.procs {
		if e.procs[i] == p {
			e.procs[i] = np
		}
	}
	return e.waitKyvernoReady(ctx)
}

// process returns the process Start started under name, nil if none.
func (e *Env) process(name string) *process {
	for _, p := range e.procs {
		if p.name == name {
			return p
		}
	}
	return nil
}
