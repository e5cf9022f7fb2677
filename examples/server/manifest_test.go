package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// TestManifest: config/server's roles file loads, and the Deployment runs
// the server on the pod's loopback in trusted-listener mode (the
// authenticating proxy sidecar is the only way in) with the roles file
// where the ConfigMap is mounted.
func TestManifest(t *testing.T) {
	dir := filepath.Join("..", "..", "config", "server")
	if _, err := LoadRoles(filepath.Join(dir, "roles.yaml")); err != nil {
		t.Errorf("config/server/roles.yaml: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "server.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict(b, &d); err != nil {
		t.Fatal(err)
	}
	c := d.Spec.Template.Spec.Containers[0]
	for _, want := range []string{"--listen=127.0.0.1:8080", "--identity=trusted-listener", "--roles=/etc/protectionplans/roles.yaml"} {
		if !slices.Contains(c.Args, want) {
			t.Errorf("args %q lack %s", c.Args, want)
		}
	}
	if err := (Identity{Mode: TrustedListener}).checkListener("tcp", "127.0.0.1:8080"); err != nil {
		t.Errorf("the manifest's listener is refused: %v", err)
	}
	if d.Spec.Template.Spec.ServiceAccountName != "protectionplans-server" {
		t.Errorf("service account %q: config/admission trusts protectionplans-server", d.Spec.Template.Spec.ServiceAccountName)
	}
}
