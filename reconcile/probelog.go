package reconcile

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/render"
)

// ProbeLog shares the probes of one pass over every plan (issue 21): the
// plans freezing creation in a namespace each ask for the same dry-run
// create of the reserved probe object (health.Probe.Key); the pass sends
// it once and judges each plan's probe against its answer
// (health.JudgeProbeAmong). Kyverno writes one PolicyViolation event per
// policy that refuses a request, so a namespace with n such plans costs
// n events a pass instead of n² (n requests, each refused by n
// policies), and the requests do not grow with the plans at all.
//
// The embedder makes one per pass (NewProbeLog with the pass's managed
// policies), and for each Output.Probes sends ToSend, records each answer
// (Answer), and decides again with Results.
type ProbeLog struct {
	answers map[string]health.ProbeAnswer
	// ours are the managed policies' names by namespace ("" for the
	// cluster-scoped ones, which count in every namespace).
	ours map[string][]string
	// Sent counts the requests sent.
	Sent int
}

// NewProbeLog returns the log of a pass that found live (the managed
// policies of every plan: those carrying render.LabelPlan count).
func NewProbeLog(live []*unstructured.Unstructured) *ProbeLog {
	l := &ProbeLog{answers: map[string]health.ProbeAnswer{}, ours: map[string][]string{}}
	for _, o := range live {
		if o == nil || o.GetLabels()[render.LabelPlan] == "" {
			continue
		}
		l.ours[o.GetNamespace()] = append(l.ours[o.GetNamespace()], o.GetName())
	}
	return l
}

// ToSend returns the probes whose request this pass has not sent yet, one
// per request.
func (l *ProbeLog) ToSend(probes []health.Probe) []health.Probe {
	var out []health.Probe
	seen := map[string]bool{}
	for _, p := range probes {
		k := p.Key()
		if _, sent := l.answers[k]; sent || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, p)
	}
	return out
}

// Answer records the answer to a probe sent.
func (l *ProbeLog) Answer(p health.Probe, a health.ProbeAnswer) {
	l.answers[p.Key()] = a
	l.Sent++
}

// Results judges probes against the answers of the pass, for
// Input.Probes; a probe whose request got no answer is left out. It is
// never nil, so that a pass that asked decides with what it has.
func (l *ProbeLog) Results(probes []health.Probe) []health.ProbeResult {
	out := []health.ProbeResult{}
	for _, p := range probes {
		a, ok := l.answers[p.Key()]
		if !ok {
			continue
		}
		ours := append(append([]string(nil), l.ours[p.Namespace]...), l.ours[""]...)
		out = append(out, health.JudgeProbeAmong(p, a, ours))
	}
	return out
}
