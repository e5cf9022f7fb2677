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

// TestMetrics scrapes the operator's metrics endpoint (127.0.0.1, a port
// chosen at start) after the other tests.
func TestMetrics(t *testing.T) {
	resp, err := http.Get("http://" + s.metricsAddr + "/metrics")
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
	t.Logf("the operator's metrics:\n%s", strings.Join(ours, "\n"))
	positive := []string{
		`protectionplans_plans{phase="active"}`,
		`protectionplans_plans{phase="terminated"}`,
		`protectionplans_plans{phase="canceled"}`,
		`protectionplans_policy_repairs_total{kind="Apply"}`,
		`protectionplans_policy_repairs_total{kind="PatchFailureAction"}`,
		`protectionplans_policy_repairs_total{kind="Delete"}`,
		`protectionplans_violations_checkpointed_total`,
		`protectionplans_tick_duration_seconds_count`,
	}
	for _, name := range positive {
		v, ok := metricValue(ours, name)
		if !ok || v <= 0 {
			t.Errorf("%s = %v (found %v), want > 0", name, v, ok)
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

// TestListenersOnLoopback checks that every socket this test process and
// its children (etcd, kube-apiserver, Kyverno) listen on is on 127.0.0.1.
func TestListenersOnLoopback(t *testing.T) {
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
