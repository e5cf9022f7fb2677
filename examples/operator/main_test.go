package main

import (
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/examples/operator/operator"
	"github.com/telark/protectionplans/render"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
		check   func(t *testing.T, o options)
	}{
		{name: "the defaults listen on loopback only and choose the target at start (auto)", args: nil, check: func(t *testing.T, o options) {
			if o.metricsBindAddress != "127.0.0.1:8080" || o.healthProbeBindAddress != "127.0.0.1:8081" {
				t.Errorf("bind addresses %q %q", o.metricsBindAddress, o.healthProbeBindAddress)
			}
			if o.target != "auto" || !o.leaderElect || !o.installCRD || !o.enforcementCheck || !o.probe || o.kyvernoNamespace != "kyverno" {
				t.Errorf("options %+v", o)
			}
		}},
		{name: "by default the policies keep time at the enforcer and warn ahead (issue 20)", args: nil, check: func(t *testing.T, o options) {
			if !o.clock || !o.warnings || o.lead != 0 {
				t.Errorf("clock %v, warnings %v, lead %s; want on, on, 0 (render.DefaultLead)", o.clock, o.warnings, o.lead)
			}
		}},
		{name: "--clock=false and --warnings=false turn them off", args: []string{"--clock=false", "--warnings=false", "--lead=30m"}, check: func(t *testing.T, o options) {
			if o.clock || o.warnings || o.lead != 30*time.Minute {
				t.Errorf("clock %v, warnings %v, lead %s", o.clock, o.warnings, o.lead)
			}
		}},
		{name: "every flag is read", args: []string{
			"--kubeconfig=/k", "--target=kyverno", "--reports-dir=/r", "--leader-elect=false",
			"--leader-election-namespace=ops", "--metrics-bind-address=127.0.0.1:0", "--health-probe-bind-address=0",
			"--release-namespace=prod-system", "--excluded-namespaces=kube-system,infra",
			"--enforcement-check=true", "--probe=false", "--kyverno-namespace=kyverno-system",
		}, check: func(t *testing.T, o options) {
			want := options{kubeconfig: "/k", target: "kyverno", reportsDir: "/r", leaderElectionNamespace: "ops",
				metricsBindAddress: "127.0.0.1:0", healthProbeBindAddress: "0", installCRD: true,
				compact: true, clock: true, warnings: true, enforcementCheck: true, probe: false, kyvernoNamespace: "kyverno-system",
				facts: kube.Facts{ReleaseNamespace: "prod-system", Excluded: kube.Excluded{Static: []string{"kube-system", "infra"}}}}
			if !reflect.DeepEqual(o, want) {
				t.Errorf("options = %+v, want %+v", o, want)
			}
		}},
		{name: "an unknown target is refused", args: []string{"--target=opa"},
			wantErr: `--target: unknown target "opa": want one of [kyverno kyverno-cel vap]`},
		{name: "--compact is read", args: []string{"--target=vap", "--compact"}, check: func(t *testing.T, o options) {
			if !o.compact || o.target != "vap" {
				t.Errorf("options %+v", o)
			}
		}},
		{name: "by default the operator renders the compact layout, the one a write in scope pays least for (issue 25)", args: nil, check: func(t *testing.T, o options) {
			if !o.compact {
				t.Errorf("compact %v, want the compact layout by default", o.compact)
			}
		}},
		{name: "--compact=false renders one policy per template and namespace, the documented layout", args: []string{"--compact=false"}, check: func(t *testing.T, o options) {
			if o.compact {
				t.Errorf("compact %v after --compact=false", o.compact)
			}
		}},
		{name: "an empty reports directory is refused", args: []string{"--reports-dir="},
			wantErr: "--reports-dir: required"},
		{name: "stray arguments are refused", args: []string{"run"}, wantErr: "unexpected arguments: [run]"},
	}
	// Every target of package render is accepted (operator.Targets); one
	// the operator did not run with would be refused by name.
	for _, target := range render.Targets() {
		tc := struct {
			name    string
			args    []string
			wantErr string
			check   func(t *testing.T, o options)
		}{name: "the target " + string(target) + " is accepted", args: []string{"--target", string(target)},
			check: func(t *testing.T, o options) {
				if o.target != string(target) {
					t.Errorf("target = %q", o.target)
				}
			}}
		if !slices.Contains(operator.Targets, target) {
			tc.name, tc.check = "the unsupported target "+string(target)+" is refused", nil
			tc.wantErr = `--target: target "` + string(target) + `" is not supported yet`
		}
		tests = append(tests, tc)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseFlags(tt.args, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, o)
		})
	}
}
