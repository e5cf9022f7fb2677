package harness

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// How the end-to-end suites run the operator and the API server: with only
// the permissions config/rbac generates from their +kubebuilder:rbac
// markers, as the ServiceAccounts config/default creates, never as the
// harness's admin. InstallGenerated puts the CRD, the ServiceAccounts, the
// roles and their bindings in place; ConfigAs and KubeconfigAs give a
// client configuration that impersonates a ServiceAccount, so the API
// server authorizes every request of the in-process operator (or of the
// operator command) against those roles alone. A permission the suite
// needs and the markers lack fails the suite: the fix is the marker.

// ReleaseNamespace is the namespace config/default installs into: the
// ServiceAccounts, the operator's Lease and the server's ConfigMaps.
const ReleaseNamespace = "telark-system"

// The users the API server sees for the two ServiceAccounts of
// config/rbac.
const (
	OperatorServiceAccount = "system:serviceaccount:" + ReleaseNamespace + ":protectionplans-operator"
	ServerServiceAccount   = "system:serviceaccount:" + ReleaseNamespace + ":protectionplans-server"
)

// ConfigDir is the repository's config/ directory, found from this source
// file (the harness is only used by tests, which run in the repository).
func ConfigDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "config")
}

// InstallGenerated applies, as `kubectl apply -k` would, config/crd (the
// ProtectionPlan CRD) and config/rbac (the operator's and server's
// ServiceAccounts, their generated ClusterRoles and Roles, the bindings),
// in ReleaseNamespace, and waits until the CRD is served. It can run more
// than once.
func (e *Env) InstallGenerated(ctx context.Context) error {
	ns := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + ReleaseNamespace + "\n"
	if _, stderr, err := e.KubectlInput(ctx, ns, "apply", "-f", "-"); err != nil {
		return fmt.Errorf("creating namespace %s: %v: %s", ReleaseNamespace, err, stderr)
	}
	for _, dir := range []string{"crd", "rbac"} {
		// Server-side: the CRD is too large for the last-applied annotation.
		args := []string{"apply", "--server-side", "--force-conflicts", "--field-manager=e2e-install", "-k", filepath.Join(ConfigDir(), dir)}
		if _, stderr, err := e.Kubectl(ctx, args...); err != nil {
			return fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err, stderr)
		}
	}
	if _, stderr, err := e.Kubectl(ctx, "wait", "--for=condition=Established", "--timeout=60s", "crd/protectionplans.telark.io"); err != nil {
		return fmt.Errorf("waiting for the ProtectionPlan CRD: %v: %s", err, stderr)
	}
	return nil
}

// ConfigAs returns a copy of Config that impersonates user (e.g.
// OperatorServiceAccount): the harness's admin only authenticates, and
// every request is authorized as user alone.
func (e *Env) ConfigAs(user string) *rest.Config {
	cfg := rest.CopyConfig(e.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	return cfg
}

// KubeconfigAs writes, next to KubeconfigPath, a kubeconfig that
// impersonates user (the "as" of its user entry, as kubectl --as), for a
// command started as a process, and returns its path.
func (e *Env) KubeconfigAs(user string) (string, error) {
	kc, err := clientcmd.LoadFromFile(e.KubeconfigPath)
	if err != nil {
		return "", err
	}
	for _, ai := range kc.AuthInfos {
		ai.Impersonate = user
	}
	name := strings.NewReplacer(":", "-").Replace(user)
	path := filepath.Join(e.Dir, "kubeconfig-as-"+name)
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return "", err
	}
	return path, nil
}
