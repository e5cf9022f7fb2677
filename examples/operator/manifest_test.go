package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// TestManifestArgs: the operator Deployment of config/manager passes flags
// this binary reads, binds metrics and probes where a pod can be reached
// (not loopback), serves metrics behind the authentication filter and
// leaves the CRD to kustomize (its ServiceAccount has no CRD permission).
func TestManifestArgs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "config", "manager", "operator.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict(b, &d); err != nil {
		t.Fatal(err)
	}
	c := d.Spec.Template.Spec.Containers[0]
	o, err := parseFlags(c.Args, io.Discard)
	if err != nil {
		t.Fatalf("the manifest's args %q: %v", c.Args, err)
	}
	if o.metricsBindAddress != ":8443" || o.healthProbeBindAddress != ":8081" || !o.metricsSecure {
		t.Errorf("metrics %q (secure %v), probes %q: want :8443 secure and :8081", o.metricsBindAddress, o.metricsSecure, o.healthProbeBindAddress)
	}
	if o.installCRD || !o.leaderElect {
		t.Errorf("install-crd %v, leader-elect %v: want false, true", o.installCRD, o.leaderElect)
	}
	if *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("replicas %d, strategy %s: the ReadWriteOnce reports volume wants 1 and Recreate", *d.Spec.Replicas, d.Spec.Strategy.Type)
	}
	mounted := slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == o.reportsDir })
	if !mounted {
		t.Errorf("--reports-dir %s is not a mounted volume", o.reportsDir)
	}
	sc := c.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || d.Spec.Template.Spec.SecurityContext.RunAsNonRoot == nil || !*d.Spec.Template.Spec.SecurityContext.RunAsNonRoot {
		t.Errorf("the container must run as non-root with a read-only root file system")
	}
}
