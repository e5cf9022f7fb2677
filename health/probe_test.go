package health

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

func TestProbes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		plan   func() *plan.ProtectionPlan
		target render.Target
		want   []string // namespace/template/kind
	}{
		{"a create freeze of two namespaces is probed once per namespace, with a dry-run create of a Deployment", func() *plan.ProtectionPlan {
			return samplePlan([]string{"payments", "shop"}, "create")
		}, render.TargetKyverno, []string{"payments/create/Deployment", "shop/create/Deployment"}},
		{"the CEL target is probed the same way", func() *plan.ProtectionPlan { return samplePlan(nil, "create") },
			render.TargetKyvernoCEL, []string{"shop/create/Deployment"}},
		{"the vap target is probed the same way", func() *plan.ProtectionPlan { return samplePlan(nil, "create") },
			render.TargetVAP, []string{"shop/create/Deployment"}},
		{"all-writes is probed with the cheapest kind it refuses creating", func() *plan.ProtectionPlan { return samplePlan(nil, "all-writes") },
			render.TargetKyverno, []string{"shop/all-writes/ConfigMap"}},
		{"templates that refuse changes of existing objects are not probed", func() *plan.ProtectionPlan {
			return samplePlan(nil, "scaling", "image-change", "delete", "configmap-edits", "secret-edits", "storage", "rollout-restart")
		}, render.TargetKyverno, nil},
		{"an auditing plan is not probed: it admits by design", func() *plan.ProtectionPlan {
			p := samplePlan(nil, "create")
			p.Spec.Mode = plan.ModeAudit
			return p
		}, render.TargetKyverno, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.plan()
			res, err := render.Render(render.Input{Plan: p, Now: now, Target: tc.target})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, pr := range Probes(p, res) {
				got = append(got, pr.Namespace+"/"+pr.Template+"/"+pr.Object.GetKind())
				if pr.Object.GetName() != ProbeName || pr.Object.GetNamespace() != pr.Namespace || pr.Policy == "" {
					t.Errorf("probe %+v: object %s/%s", pr, pr.Object.GetNamespace(), pr.Object.GetName())
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("probes %v, want %v", got, tc.want)
			}
		})
	}
}

// refusal reads a refusal recorded by the violations fixtures (kubectl's
// stderr, "Error from server: " cut off as the API error's message is).
func refusal(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "violations", "testdata", "kyverno-1.19.1", file))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	s = s[strings.Index(s, "Error from server: ")+len("Error from server: "):]
	if i := strings.Index(s, "\n$ "); i >= 0 {
		s = s[:i]
	}
	return s
}

func TestJudgeProbe(t *testing.T) {
	v1 := refusal(t, "refusals-enforce-v1.txt")
	cel := refusal(t, "refusals-enforce-nvpol.txt")
	const unanswered = `Internal error occurred: failed calling webhook "validate.kyverno.svc-fail": failed to call webhook: Post "https://127.0.0.1:40000/validate/fail?timeout=10s": context deadline exceeded`
	for _, tc := range []struct {
		name   string
		policy string
		answer ProbeAnswer
		want   ProbeOutcome
	}{
		{"a kyverno.io/v1 refusal listing the plan's policy verifies it", "freeze-replicas", ProbeAnswer{Code: 400, Message: v1}, ProbeRefused},
		{"a CEL refusal naming the plan's policy verifies it", "freeze-replicas-cel-deny", ProbeAnswer{Code: 400, Message: cel}, ProbeRefused},
		{"a refusal by a policy whose name merely begins the same is not the plan's", "freeze-replicas", ProbeAnswer{Code: 400, Message: cel}, ProbeRefusedOtherwise},
		{"an admitted dry-run means the freeze failed open", "freeze-replicas", ProbeAnswer{Admitted: true}, ProbeAdmitted},
		{"a webhook that could not be called is the enforcer not answering", "freeze-replicas", ProbeAnswer{Code: 500, Message: unanswered}, ProbeUnanswered},
		{"a client timeout is the enforcer not answering", "freeze-replicas", ProbeAnswer{Timeout: true}, ProbeUnanswered},
		{"a ValidatingAdmissionPolicy's refusal names it", "summer-freeze-create-shop", ProbeAnswer{Code: 422,
			Message: `deployments.apps "protectionplans-probe" is forbidden: ValidatingAdmissionPolicy 'summer-freeze-create-shop' with binding 'summer-freeze-create-shop' denied request: creating resources is frozen`}, ProbeRefused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := JudgeProbe(Probe{Policy: tc.policy}, tc.answer)
			if got.Outcome != tc.want {
				t.Errorf("outcome %s, want %s (message %q)", got.Outcome, tc.want, tc.answer.Message)
			}
		})
	}
}

func TestJudgeProbeAmong(t *testing.T) {
	v1 := refusal(t, "refusals-enforce-v1.txt")
	cel := refusal(t, "refusals-enforce-nvpol.txt")
	for _, tc := range []struct {
		name   string
		policy string
		ours   []string
		answer ProbeAnswer
		want   ProbeOutcome
	}{
		{"a CEL refusal naming another managed policy of the namespace verifies a plan sharing the request", "other-plan-create", []string{"freeze-replicas-cel-deny"}, ProbeAnswer{Code: 400, Message: cel}, ProbeRefused},
		{"a kyverno.io/v1 refusal listing another managed policy verifies a plan sharing the request", "other-plan-create", []string{"freeze-replicas"}, ProbeAnswer{Code: 400, Message: v1}, ProbeRefused},
		{"a refusal by a policy that is not ours stays refused otherwise", "other-plan-create", []string{"unrelated"}, ProbeAnswer{Code: 400, Message: cel}, ProbeRefusedOtherwise},
		{"a policy whose name merely begins the same as ours is not ours", "other-plan-create", []string{"freeze-replicas"}, ProbeAnswer{Code: 400, Message: cel}, ProbeRefusedOtherwise},
		{"an admitted request is admitted for every plan sharing it", "other-plan-create", []string{"freeze-replicas-cel-deny"}, ProbeAnswer{Admitted: true}, ProbeAdmitted},
		{"the plan's own refusal is refused with or without the others", "freeze-replicas-cel-deny", nil, ProbeAnswer{Code: 400, Message: cel}, ProbeRefused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := JudgeProbeAmong(Probe{Policy: tc.policy}, tc.answer, tc.ours)
			if got.Outcome != tc.want {
				t.Errorf("outcome %s, want %s", got.Outcome, tc.want)
			}
		})
	}
}

func TestProbeKey(t *testing.T) {
	obj := func(kind string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind(kind)
		return u
	}
	a := Probe{Namespace: "shop", Policy: "xmas-create", Object: obj("ConfigMap")}
	for _, tc := range []struct {
		name string
		b    Probe
		same bool
	}{
		{"another plan's probe of the same kind in the same namespace is the same request", Probe{Namespace: "shop", Policy: "nightly-all-writes", Object: obj("ConfigMap")}, true},
		{"the same kind in another namespace is another request", Probe{Namespace: "payments", Policy: "xmas-create", Object: obj("ConfigMap")}, false},
		{"another kind in the same namespace is another request", Probe{Namespace: "shop", Policy: "xmas-create", Object: obj("Secret")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := a.Key() == tc.b.Key(); got != tc.same {
				t.Errorf("%q == %q is %v, want %v", a.Key(), tc.b.Key(), got, tc.same)
			}
		})
	}
}

func TestEnforcementProbes(t *testing.T) {
	c := enfCase{target: render.TargetKyverno}
	p := samplePlan(nil, "create")
	res := mustRender(t, p)
	probes := Probes(p, res)
	if len(probes) != 1 {
		t.Fatalf("%d probes", len(probes))
	}
	for _, tc := range []struct {
		name    string
		outcome ProbeOutcome
		reason  string
		text    string
	}{
		{"a refused probe keeps the freeze verified and says so", ProbeRefused, ReasonEnforced, "1 probe was refused with the plan's message"},
		{"an admitted probe is reported in the probe's namespace", ProbeAdmitted, ReasonProbeAdmitted, "a dry-run create of Deployment shop/protectionplans-probe, which summer-freeze-create must refuse, was admitted"},
		{"an unanswered probe says that writes in scope are refused for everyone", ProbeUnanswered, ReasonEnforcerNotAnswering, "writes in scope in shop are refused for everyone"},
		{"a probe refused by another policy does not prove the plan's", ProbeRefusedOtherwise, ReasonProbeRefusedOtherwise, "not by summer-freeze-create ("},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := baseInput(t, c)
			in.Plan, in.Render, in.Live = p, res, statusFrom(t, servedAll(res))
			in.Webhooks = coverAll(fixture(t, "webhooks-fail-closed.json"))
			in.Probes = []ProbeResult{{Probe: probes[0], Outcome: tc.outcome, Message: "boom"}}
			r := Enforcement(in)
			if r.Condition.Reason != tc.reason || !strings.Contains(r.Condition.Message, tc.text) {
				t.Errorf("%s: %s; want %s containing %q", r.Condition.Reason, r.Condition.Message, tc.reason, tc.text)
			}
		})
	}
}

// coverAll makes every rule of Kyverno's resource webhooks match every
// group, resource and operation: what Kyverno registers for a policy on
// many kinds (the recording's policy froze Deployments only).
func coverAll(hooks []*unstructured.Unstructured) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, h := range hooks {
		h = h.DeepCopy()
		for _, w := range h.Object["webhooks"].([]any) {
			for _, r := range w.(map[string]any)["rules"].([]any) {
				rm := r.(map[string]any)
				rm["apiGroups"], rm["resources"], rm["operations"] = []any{"*"}, []any{"*", "*/*"}, []any{"*"}
			}
		}
		out = append(out, h)
	}
	return out
}
