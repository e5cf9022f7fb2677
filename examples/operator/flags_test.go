package main

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// TestConventionFlags covers the flags every controller-runtime operator
// has: --version, --metrics-secure and the zap logging flags.
func TestConventionFlags(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, o options)
	}{
		{name: "--version is read and nothing else is required", args: []string{"--version", "--reports-dir="}, check: func(t *testing.T, o options) {
			if !o.version {
				t.Error("version not set")
			}
		}},
		{name: "metrics are plain HTTP unless --metrics-secure", args: nil, check: func(t *testing.T, o options) {
			if o.metricsSecure {
				t.Error("metricsSecure set by default")
			}
		}},
		{name: "--metrics-secure with a pod's bind addresses is read", args: []string{"--metrics-secure", "--metrics-bind-address=:8443", "--health-probe-bind-address=:8081"},
			check: func(t *testing.T, o options) {
				if !o.metricsSecure || o.metricsBindAddress != ":8443" || o.healthProbeBindAddress != ":8081" {
					t.Errorf("options %+v", o)
				}
			}},
		{name: "the zap flags are read", args: []string{"--zap-encoder=console", "--zap-log-level=debug", "--zap-devel"}, check: func(t *testing.T, o options) {
			if !o.zap.Development || o.zap.Level == nil {
				t.Errorf("zap options %+v", o.zap)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseFlags(tt.args, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, o)
		})
	}
}

// TestLogsAreJSONByDefault: with no zap flag a log line is one JSON object
// (what log collectors in a cluster parse), with the message and the
// key-value pairs as fields.
func TestLogsAreJSONByDefault(t *testing.T) {
	o, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zap.New(zap.UseFlagOptions(&o.zap), zap.WriteTo(&buf)).Info("starting", "version", "v1")
	var line map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(buf.Bytes()), &line); err != nil {
		t.Fatalf("log line %q is not JSON: %v", buf.String(), err)
	}
	if line["msg"] != "starting" || line["version"] != "v1" {
		t.Errorf("log line %v", line)
	}
}
