//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/examples/e2e/harness"
	"github.com/telark/protectionplans/overview"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/report"
)

// TestE2E_BreakGlass: on each target, an enforcing plan refuses carol's
// kubectl scale; carol asks for a one-minute grant through the API and
// alice grants it; carol's scale is then admitted (on vap with the
// plan's warning on her command) and recorded as an exempt write in the
// feed (the Kyverno targets: vap's audit annotations reach only the API
// server's audit log), while dave is still refused; the plan's exempt
// service account is admitted and recorded the same way; at the expiry
// carol is refused again within seconds, without anyone acting. One
// operator at a time, in this process, with the target; the server on
// loopback.
func TestE2E_BreakGlass(t *testing.T) {
	env := harness.MustStart(t, harness.WithoutReportsController())
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Minute)
	defer cancel()
	c, err := NewClient(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	installGenerated(ctx, t, env)
	reportsDir := filepath.Join(t.TempDir(), "reports")
	api := startServerE2E(ctx, t, env, reportsDir, render.TargetAuto)

	for _, target := range render.Targets() {
		t.Run(string(target), func(t *testing.T) { breakGlassOn(ctx, t, env, c, api, reportsDir, target) })
	}
}

func breakGlassOn(ctx context.Context, t *testing.T, env *harness.Env, c client.Client, api *apiClient, reportsDir string, target render.Target) {
	ns, id := "bg-"+string(target), "bg-"+string(target)
	createWeb(ctx, t, c, ns)

	// The operator with this target, until this subtest ends, set as a
	// user would (targetFlag).
	startOperatorE2E(ctx, t, env, reportsDir, targetFlag(target), 5*time.Second)

	code, body := api.do("POST", "/api/v1/plans", "alice", fmt.Sprintf(`{"metadata":{"name":%q},"spec":{
		"name":"Break-glass %s","scope":{"namespaces":[%q]},"templates":[{"name":"scaling"}],
		"requesters":{"exclude":{"serviceAccounts":["ci:release-pipeline"]}},
		"window":{"type":"permanent"},"mode":"enforce","environment":"Development"}}`, id, target, ns))
	if code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	var policy string
	waitFor(ctx, t, "the plan's policies in place", func() (bool, string) {
		code, body := api.do("GET", "/api/v1/plans/"+id+"/health", "victor", "")
		var h overview.HealthCheck
		json.Unmarshal(body, &h)
		if code == 200 && h.Healthy && len(h.Policies) > 0 {
			policy = h.Policies[0].Name
			return true, ""
		}
		return false, fmt.Sprintf("%d %s", code, body)
	})
	if target != render.TargetVAP {
		if err := env.WaitPolicyReady(ctx, ns, policy); err != nil {
			t.Fatal(err)
		}
	}
	replicas := 1
	scaleAs := func(user string) (string, error) {
		replicas++
		_, stderr, err := env.Kubectl(ctx, "--as", user, "--as-group", "system:masters",
			"scale", "deployment", "web", "-n", ns, fmt.Sprintf("--replicas=%d", replicas))
		return stderr, err
	}
	refused := func(user string) func() (bool, string) {
		return func() (bool, string) {
			stderr, err := scaleAs(user)
			return err != nil && strings.Contains(stderr, "Break-glass"), fmt.Sprintf("err=%v %s", err, stderr)
		}
	}
	waitFor(ctx, t, "carol's scale refused", refused("carol"))

	// carol asks, alice grants: one minute.
	if code, body := api.do("POST", "/api/v1/plans/"+id+"/grants", "carol", `{"reason":"INC-4711: scale web out","duration":"1m"}`); code != 201 {
		t.Fatalf("request: %d %s", code, body)
	}
	code, body = api.do("POST", "/api/v1/plans/"+id+"/grants/"+id+"-g1/grant", "alice", "")
	if code != 200 {
		t.Fatalf("grant: %d %s", code, body)
	}
	var g grantView
	json.Unmarshal(body, &g)
	t.Logf("%s: granted until %s", target, g.ExpiresAt.UTC().Format(time.RFC3339))

	var warned string
	waitFor(ctx, t, "carol's scale admitted under the grant", func() (bool, string) {
		stderr, err := scaleAs("carol")
		warned = stderr
		return err == nil, fmt.Sprintf("err=%v %s", err, stderr)
	})
	if target == render.TargetVAP && !strings.Contains(warned, "exempt requester carol") {
		t.Errorf("vap: carol's admitted scale carries no warning naming her: %q", warned)
	}
	if ok, why := refused("dave")(); !ok {
		t.Errorf("dave was not refused while carol's grant is in force: %s", why)
	}
	// The plan's exempt service account: admitted and recorded the same way.
	const pipeline = "system:serviceaccount:ci:release-pipeline"
	stderr, err := scaleAs(pipeline)
	if err != nil {
		t.Errorf("the exempt service account's scale was refused: %v %s", err, stderr)
	}
	if target == render.TargetVAP && !strings.Contains(stderr, "exempt requester "+pipeline) {
		t.Errorf("vap: the exempt service account's scale carries no warning naming it: %q", stderr)
	}
	if target != render.TargetVAP {
		waitFor(ctx, t, "carol's and the pipeline's writes in the feed as exempt writes", func() (bool, string) {
			code, body := api.do("GET", "/api/v1/plans/"+id+"/violations", "victor", "")
			var f overview.Feed
			json.Unmarshal(body, &f)
			seen := map[string]bool{}
			for _, v := range f.Items {
				if !v.Blocked && v.Template == "exempt" {
					seen[v.Requester] = true
				}
			}
			if seen["carol"] && seen[pipeline] {
				return true, ""
			}
			return false, fmt.Sprintf("%d %.2000s", code, body)
		})
	}

	// The expiry ends it by itself: refused again within a few seconds.
	time.Sleep(time.Until(g.ExpiresAt.Time))
	expired := time.Now()
	waitFor(ctx, t, "carol refused again after the expiry", refused("carol"))
	t.Logf("%s: carol refused again %s after the expiry", target, time.Since(expired).Round(100*time.Millisecond))
	if lag := time.Since(expired); lag > 20*time.Second {
		t.Errorf("carol was refused again only %s after the expiry", lag)
	}
	code, body = api.do("GET", "/api/v1/plans/"+id+"/grants", "victor", "")
	if code != 200 || !strings.Contains(string(body), `"state": "expired"`) {
		t.Errorf("grants after the expiry: %d %s", code, body)
	}

	// Cancel it; the operator withdraws the policies before the next
	// target's operator starts.
	if code, body := api.do("POST", "/api/v1/plans/"+id+"/cancel", "alice", ""); code != 200 {
		t.Fatalf("cancel: %d %s", code, body)
	}
	waitFor(ctx, t, "the policies withdrawn", func() (bool, string) {
		stderr, err := scaleAs("dave")
		return err == nil, fmt.Sprintf("err=%v %s", err, stderr)
	})

	// The final report lists the grant, and carol's write under it (vap:
	// a note that such writes reach only the API server's audit log).
	var rep report.Report
	waitFor(ctx, t, "the final report with the grant", func() (bool, string) {
		code, body := api.do("GET", "/api/v1/plans/"+id+"/reports?trigger=cancel", "victor", "")
		var l reportList
		json.Unmarshal(body, &l)
		if code != 200 || len(l.Items) != 1 {
			return false, fmt.Sprintf("%d %s", code, body)
		}
		code, body = api.do("GET", l.Items[0].Downloads[string(report.JSON)], "victor", "")
		return code == 200 && json.Unmarshal(body, &rep) == nil, fmt.Sprintf("%d %.500s", code, body)
	})
	switch bg := rep.BreakGlass; {
	case bg == nil || len(bg.Grants) != 1 || bg.Grants[0].ID != id+"-g1" || bg.Grants[0].State != plan.GrantExpired:
		t.Errorf("the final report's break-glass section: %+v", bg)
	case target == render.TargetVAP && (len(bg.Grants[0].Writes) != 0 || bg.Note == ""):
		t.Errorf("vap: the report lists writes or says nothing of them: %+v", bg)
	case target != render.TargetVAP && !slices.ContainsFunc(bg.Grants[0].Writes, func(w report.GrantWrite) bool { return w.Requester == "carol" }):
		t.Errorf("the report lists no write of carol under her grant: %+v", bg.Grants[0])
	default:
		t.Logf("%s: the final report lists grant %s (%s) with %d writes", target, bg.Grants[0].ID, bg.Grants[0].State, len(bg.Grants[0].Writes))
	}
}
