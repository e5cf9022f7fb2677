package health

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/violations"
)

// ProbeName is the reserved name of every probe object. A dry-run create
// stores nothing, but Kyverno records a refused dry-run like a real
// request (an event on the policy naming the object); the violations
// package drops records of objects of this name (violations.IsProbe), so
// probes never reach the feed, the ledger or a report.
const ProbeName = violations.ProbeName

// Probe is one server-side dry-run request that a plan's policy must
// refuse: a create (dryRun=All) of Object in Namespace.
type Probe struct {
	// Namespace and Template say what it proves: the template's freeze in
	// that namespace.
	Namespace, Template string
	// Policy is the name of the policy object that must refuse it; its
	// refusal names it.
	Policy string
	// Target is the policy's target.
	Target render.Target
	// Object is what to create with dryRun=All; it is the caller's.
	Object *unstructured.Unstructured
}

// Probes returns the probes of an active, enforcing plan's render: for
// each frozen namespace and template at most one, a dry-run create of an
// object named ProbeName of a kind the policy refuses creating (ConfigMap,
// Secret, ServiceAccount or Deployment, the first it matches).
//
// Only what a reserved, non-existing object can prove is probed: the
// templates that refuse creating (create, all-writes) under a namespaces
// scope. The others (delete, image-change, scaling, configmap-edits,
// secret-edits, storage, rollout-restart) refuse changes of an object
// that exists: a probe would have to pick a live member and send it a
// dry-run update, which needs a list of members per namespace that health
// does not get; under an applications scope a created object is in scope
// only with the application's labels, which the embedder's resolver
// knows and health does not. An auditing plan admits by design: nothing
// is probed. Those freezes are verified by the passive checks alone.
func Probes(p *plan.ProtectionPlan, r render.Result) []Probe {
	if p == nil || p.Status.Phase != plan.PhaseActive || p.Spec.Mode != plan.ModeEnforce || len(p.Spec.Scope.Namespaces) == 0 {
		return nil
	}
	var out []Probe
	seen := map[[2]string]bool{}
	for _, pol := range r.Policies {
		if len(pol.Objects) == 0 || seen[[2]string{pol.Namespace, pol.Template}] {
			continue
		}
		obj := probeObject(requestsOf(pol.Objects[0]), pol.Namespace)
		if obj == nil {
			continue
		}
		seen[[2]string{pol.Namespace, pol.Template}] = true
		out = append(out, Probe{Namespace: pol.Namespace, Template: pol.Template, Policy: pol.Name, Target: pol.Target, Object: obj})
	}
	return out
}

// probeKinds are the kinds a probe may create, cheapest first, with the
// smallest object the API server accepts.
var probeKinds = []struct {
	group, resource string
	object          func(ns string) map[string]any
}{
	{"", "configmaps", func(ns string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": probeMeta(ns)}
	}},
	{"", "secrets", func(ns string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": probeMeta(ns)}
	}},
	{"", "serviceaccounts", func(ns string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": probeMeta(ns)}
	}},
	{"apps", "deployments", func(ns string) map[string]any {
		labels := map[string]any{"app.kubernetes.io/name": ProbeName}
		return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": probeMeta(ns),
			"spec": map[string]any{
				"replicas": int64(0),
				"selector": map[string]any{"matchLabels": labels},
				"template": map[string]any{
					"metadata": map[string]any{"labels": labels},
					"spec": map[string]any{"containers": []any{
						map[string]any{"name": "probe", "image": "registry.invalid/probe:0"},
					}},
				},
			}}
	}},
}

func probeMeta(ns string) map[string]any {
	return map[string]any{"name": ProbeName, "namespace": ns,
		"labels": map[string]any{render.LabelManagedBy: render.ManagedBy}}
}

// probeObject builds the probe of a policy matching reqs, or nil.
func probeObject(reqs []request, ns string) *unstructured.Unstructured {
	for _, k := range probeKinds {
		for _, r := range reqs {
			if r.operation == "CREATE" && r.subresource == "" && r.resource == k.resource && (r.group == "*" || r.group == k.group) {
				return &unstructured.Unstructured{Object: k.object(ns)}
			}
		}
	}
	return nil
}

// ProbeAnswer is what the API server answered a probe. The operator fills
// it from the error of its dry-run create, nothing more.
type ProbeAnswer struct {
	// Admitted: the dry-run succeeded (or failed only because an object
	// of the reserved name exists, which storage says after admission).
	Admitted bool
	// Code is the HTTP status of a refusal (403 for a policy's denial;
	// 500 or 504 for a webhook that failed or timed out).
	Code int
	// Message is the error's message.
	Message string
	// Timeout: the client gave up before an answer came.
	Timeout bool
}

// ProbeOutcome is how JudgeProbe read an answer.
type ProbeOutcome string

// Probe outcomes.
const (
	// ProbeRefused: refused, naming the plan's policy: verified.
	ProbeRefused ProbeOutcome = "refused"
	// ProbeAdmitted: admitted: the freeze failed open.
	ProbeAdmitted ProbeOutcome = "admitted"
	// ProbeUnanswered: the enforcer did not answer (timeout, webhook
	// error): with failurePolicy Fail every write in scope is refused for
	// everyone, with Ignore admitted.
	ProbeUnanswered ProbeOutcome = "unanswered"
	// ProbeRefusedOtherwise: refused, but not naming the plan's policy.
	ProbeRefusedOtherwise ProbeOutcome = "refused_otherwise"
)

// ProbeResult is a judged probe.
type ProbeResult struct {
	Probe   Probe
	Outcome ProbeOutcome
	// Message is the answer's message ("" when admitted).
	Message string
}

// JudgeProbe reads the answer to a probe. Kyverno names the policy in its
// refusal ("Policy <name> failed" for CEL policies, "<name>:" in the list
// of blocking policies for kyverno.io/v1), and so does the API server
// for a ValidatingAdmissionPolicy ("ValidatingAdmissionPolicy '<name>'").
// A webhook that could not be called says "failed calling webhook".
func JudgeProbe(p Probe, a ProbeAnswer) ProbeResult {
	res := ProbeResult{Probe: p, Message: a.Message}
	switch {
	case a.Admitted:
		res.Outcome, res.Message = ProbeAdmitted, ""
	case a.Timeout, strings.Contains(a.Message, "failed calling webhook"), a.Code == 504:
		res.Outcome = ProbeUnanswered
	case refusedBy(a.Message, p.Policy):
		res.Outcome = ProbeRefused
	case a.Code >= 500:
		res.Outcome = ProbeUnanswered
	default:
		res.Outcome = ProbeRefusedOtherwise
	}
	return res
}

// Key names the request a probe sends: the same kind of object, of the
// reserved name, in the same namespace. Two plans freezing creation in a
// namespace ask for the same request; a pass sends it once and judges
// each plan's probe against its answer (JudgeProbeAmong), so that the
// requests, and the events Kyverno writes for them, do not multiply with
// the plans of a namespace.
func (p Probe) Key() string {
	if p.Object == nil {
		return p.Namespace
	}
	return p.Namespace + "/" + p.Object.GetAPIVersion() + "/" + p.Object.GetKind()
}

// JudgeProbeAmong reads an answer to a request that several plans' probes
// share: ours are the names of the other managed policies that must
// refuse the same request (in the probe's namespace). A refusal naming
// one of them is ProbeRefused too: the API server calls the webhooks of
// the policies in parallel and returns the first refusal only (with
// kyverno-cel each policy has its own webhook, so one policy is named),
// and it proves that the enforcer answers and refuses writes in scope in
// that namespace; the plan's own policy is then vouched for by the
// passive checks (ready, covered by a fail-closed webhook, not excepted).
func JudgeProbeAmong(p Probe, a ProbeAnswer, ours []string) ProbeResult {
	res := JudgeProbe(p, a)
	if res.Outcome != ProbeRefusedOtherwise {
		return res
	}
	for _, other := range ours {
		if other != p.Policy && refusedBy(a.Message, other) {
			res.Outcome = ProbeRefused
			return res
		}
	}
	return res
}

// checkProbes turns the pass's probes into findings.
func (e *enforcer) checkProbes() {
	for _, r := range e.in.Probes {
		p := r.Probe
		what := fmt.Sprintf("a dry-run create of %s %s/%s", p.Object.GetKind(), p.Namespace, ProbeName)
		switch r.Outcome {
		case ProbeAdmitted:
			e.findings.add(ReasonProbeAdmitted, p.Namespace, "probe "+p.Template,
				"%s, which %s must refuse, was admitted: the %s freeze is not enforced in %s", what, p.Policy, p.Template, p.Namespace)
		case ProbeUnanswered:
			e.findings.add(ReasonEnforcerNotAnswering, p.Namespace, "probe "+p.Template,
				"the enforcer did not answer %s (%s): while it does not, writes in scope in %s are refused for everyone (failurePolicy Fail) or admitted (Ignore)",
				what, firstLine(r.Message), p.Namespace)
		case ProbeRefusedOtherwise:
			e.findings.add(ReasonProbeRefusedOtherwise, p.Namespace, "probe "+p.Template,
				"%s was refused, but not by %s (%s): the plan's own refusal is not proven", what, p.Policy, firstLine(r.Message))
		}
	}
}

// refusedBy reports whether a refusal names policy in one of the shapes
// its enforcer writes (a bare substring would take a policy for another
// whose name it begins).
func refusedBy(msg, policy string) bool {
	if policy == "" {
		return false
	}
	for _, shape := range []string{
		"\n" + policy + ":\n",                        // kyverno.io/v1: the list of blocking policies
		"Policy " + policy + " failed",               // Kyverno CEL policies
		"ValidatingAdmissionPolicy '" + policy + "'", // the API server
	} {
		if strings.Contains(msg, shape) {
			return true
		}
	}
	return false
}
