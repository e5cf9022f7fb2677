package install

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/v2/lint"
	"helm.sh/helm/v4/pkg/chart/v2/lint/support"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

const chartDir = "../../charts/protectionplans"

// renderChart renders the chart as `helm template protectionplans
// charts/protectionplans -n telark-system` with values over the defaults,
// and returns the manifests in one stream, files in name order.
func renderChart(values map[string]any) (string, error) {
	c, err := loader.LoadDir(chartDir)
	if err != nil {
		return "", err
	}
	vals, err := util.ToRenderValues(c, values, common.ReleaseOptions{Name: "protectionplans", Namespace: "telark-system", IsInstall: true}, common.DefaultCapabilities)
	if err != nil {
		return "", err
	}
	files, err := engine.Render(c, vals)
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		if strings.TrimSpace(files[n]) == "" || strings.HasSuffix(n, ".tpl") {
			continue
		}
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", n, strings.TrimSpace(files[n]))
	}
	return b.String(), nil
}

func TestChartGolden(t *testing.T) {
	tests := []struct {
		name   string
		golden string
		values map[string]any
	}{
		{name: "the defaults: target auto, one replica on ReadWriteOnce, fail closed, no monitoring", golden: "default.yaml", values: nil},
		{name: "two replicas on ReadWriteMany, compact vap, monitoring on, server off", golden: "ha-vap.yaml", values: map[string]any{
			"target": "vap", "layout": "compact", "tickInterval": 10,
			"operator":   map[string]any{"replicas": 2},
			"reports":    map[string]any{"accessMode": "ReadWriteMany", "storageClassName": "nfs"},
			"server":     map[string]any{"enabled": false},
			"monitoring": map[string]any{"serviceMonitor": map[string]any{"enabled": true}, "prometheusRule": map[string]any{"enabled": true}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := renderChart(tt.values)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("the chart's output differs from %s (go test -update rewrites it)", path)
			}
		})
	}
}

func TestChartRefuses(t *testing.T) {
	tests := []struct {
		name   string
		values map[string]any
		want   string
	}{
		{name: "two replicas on a ReadWriteOnce reports volume are refused", values: map[string]any{"operator": map[string]any{"replicas": 2}},
			want: "operator.replicas: more than one replica needs reports.accessMode ReadWriteMany"},
		{name: "an unknown target is refused", values: map[string]any{"target": "opa"}, want: `target: "opa" is not one of`},
		{name: "an unknown layout is refused", values: map[string]any{"layout": "tiny"}, want: `layout: "tiny"`},
		{name: "Kyverno's forceFailurePolicyIgnore without failOpen is refused", values: map[string]any{
			"kyverno": map[string]any{"features": map[string]any{"forceFailurePolicyIgnore": map[string]any{"enabled": true}}}},
			want: "set app.kyverno.failOpen=true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := renderChart(tt.values)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	t.Run("failOpen accepts forceFailurePolicyIgnore", func(t *testing.T) {
		_, err := renderChart(map[string]any{"app": map[string]any{"kyverno": map[string]any{"failOpen": true}},
			"kyverno": map[string]any{"features": map[string]any{"forceFailurePolicyIgnore": map[string]any{"enabled": true}}}})
		if err != nil {
			t.Error(err)
		}
	})
}

// TestChartLint runs helm lint's rules (helm lint charts/protectionplans):
// the one finding allowed is the warning that the optional Kyverno
// dependency is declared but not vendored (no network here).
func TestChartLint(t *testing.T) {
	res := lint.RunAll(chartDir, nil, "telark-system")
	for _, m := range res.Messages {
		if m.Severity == support.InfoSev { // "icon is recommended": helm lint passes with it
			t.Logf("helm lint: %s", m)
			continue
		}
		if m.Severity == support.WarningSev && strings.Contains(m.Err.Error(), "missing these dependencies: kyverno") {
			continue
		}
		t.Errorf("helm lint: %s", m)
	}
}

// TestChartCopiesAreInSync: the chart's copies of config/ (generate.go's
// cp lines) are byte for byte the originals.
func TestChartCopiesAreInSync(t *testing.T) {
	b, err := os.ReadFile("generate.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(strings.TrimPrefix(line, "//go:generate "))
		if len(f) != 3 || f[0] != "cp" {
			continue
		}
		n++
		from, err := os.ReadFile(f[1])
		if err != nil {
			t.Fatal(err)
		}
		to, err := os.ReadFile(f[2])
		if err != nil {
			t.Fatal(err)
		}
		if string(from) != string(to) {
			t.Errorf("%s differs from %s: run go generate in test/install", f[2], f[1])
		}
	}
	if n < 6 {
		t.Errorf("%d cp lines in generate.go, want 6", n)
	}
}
