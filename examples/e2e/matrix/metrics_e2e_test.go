//go:build e2e

package matrix

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// scrapeOperatorMetrics returns the protectionplans_* lines of the
// running operator's metrics endpoint (127.0.0.1, a port chosen at start).
// The operators of the three runs share one registry (controller-runtime's
// global one), so counters carry over from a run to the next.
func scrapeOperatorMetrics(t *testing.T) []string {
	t.Helper()
	resp, err := http.Get("http://" + s.run.metricsAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var ours []string
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "protectionplans_") && !strings.Contains(line, "_bucket{") {
			ours = append(ours, line)
		}
	}
	return ours
}

// testMetrics scrapes the operator's metrics after the run's other tests:
// every counter moved during the run, the gauges count the run's plans.
func testMetrics(t *testing.T, before []string) {
	ours := scrapeOperatorMetrics(t)
	t.Logf("the operator's metrics:\n%s", strings.Join(ours, "\n"))
	gauges := []string{
		`protectionplans_plans{phase="active"}`,
		`protectionplans_plans{phase="terminated"}`,
		`protectionplans_plans{phase="canceled"}`,
	}
	counters := []string{
		`protectionplans_policy_repairs_total{kind="Apply"}`,
		`protectionplans_policy_repairs_total{kind="PatchFailureAction"}`,
		`protectionplans_policy_repairs_total{kind="Delete"}`,
		`protectionplans_tick_duration_seconds_count`,
	}
	if !tgt.vap() { // a vap plan's violations are nowhere to checkpoint from
		counters = append(counters, `protectionplans_violations_checkpointed_total`)
	}
	for _, name := range gauges {
		v, ok := metricValue(ours, name)
		if !ok || v <= 0 {
			t.Errorf("%s = %v (found %v), want > 0", name, v, ok)
		}
	}
	for _, name := range counters {
		v, ok := metricValue(ours, name)
		v0, _ := metricValue(before, name)
		if !ok || v <= v0 {
			t.Errorf("%s = %v (found %v), %v at the start of the run: want it to grow", name, v, ok, v0)
		}
	}
}

func metricValue(lines []string, name string) (float64, bool) {
	for _, l := range lines {
		if strings.HasPrefix(l, name+" ") {
			v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(l, name)), 64)
			return v, err == nil
		}
	}
	return 0, false
}

// testListenersOnLoopback checks that every socket this test process (the
// operator's metrics and probes) and its children (etcd, kube-apiserver,
// Kyverno) listen on is on 127.0.0.1.
func testListenersOnLoopback(t *testing.T) {
	if _, err := exec.LookPath("ss"); err != nil {
		t.Skip("ss is not installed")
	}
	pids := map[int]bool{os.Getpid(): true}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		if ppid == os.Getpid() {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(st)))
			pids[pid] = true
		}
	}
	out, err := exec.Command("ss", "-ltnpH").Output()
	if err != nil {
		t.Fatal(err)
	}
	pidRe := regexp.MustCompile(`\("([^"]+)",pid=(\d+),`)
	n := 0
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		for _, m := range pidRe.FindAllStringSubmatch(line, -1) {
			pid, _ := strconv.Atoi(m[2])
			if !pids[pid] {
				continue
			}
			n++
			if !strings.HasPrefix(f[3], "127.0.0.1:") && !strings.HasPrefix(f[3], "[::ffff:127.0.0.1]:") {
				t.Errorf("%s (pid %d) listens on %s", m[1], pid, f[3])
			}
		}
	}
	t.Logf("%d listening sockets of this test and its %d children, all on 127.0.0.1", n, len(pids)-1)
}
