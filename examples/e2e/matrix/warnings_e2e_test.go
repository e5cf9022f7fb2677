//go:build e2e

package matrix

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/violations"
	"github.com/telark/protectionplans/window"
)

// testWarnings: kubectl prints a plan's advance warnings (issue 20) on a
// write in scope: none before the lead, BeforeStart inside it, Active
// during the window, BeforeEnd inside the lead before the end, none
// after; and they leave nothing in the violations feed.
//
// The warning policies are rendered by the library with
// render.Input.Warnings and applied by the test without the plan label,
// so that the matrix's operator (which runs without --warnings, as every
// other row expects) neither sweeps nor counts them. On the Kyverno
// targets the policies read the clock: rendered once, with a window a few
// seconds ahead of the real clock and a lead of 8 s, and the checks wait
// for each edge. On vap the API server has no clock: the text is static
// and the test renders again at each phase, as the pass does at the
// edges reconcile.Decide names (render.NextWarningEdge; the swap is
// tested by reconcile's TestWarnings_VAPSwapsTheTextAtEachPhase).
func testWarnings(t *testing.T) {
	ns, id := tgt.id("lc-warn"), tgt.id("lc-warn")
	lifecycleNamespace(t, ns)
	const lead = 8 * time.Second
	start := time.Now().UTC().Truncate(time.Second).Add(20 * time.Second)
	end := start.Add(20 * time.Second)
	p := matrixPlan(id, "Nightly image freeze", plan.ModeEnforce, plan.Scope{Namespaces: []string{ns}}, plan.Exclusions{}, "scaling")
	p.Spec.Window = window.Spec{Type: window.TimeRange, TimeZone: "Europe/Berlin",
		StartAt: &metav1.Time{Time: start}, EndAt: &metav1.Time{Time: end}}
	clocked := tgt.target != render.TargetVAP
	var applied []client.Object
	defer func() {
		for _, o := range applied {
			_ = s.c.Delete(context.Background(), o)
		}
	}()
	idx := map[string]violations.IndexEntry{}
	apply := func(at time.Time) {
		t.Helper()
		q := p.DeepCopy()
		q.Status.Phase = plan.PhaseScheduled
		if !at.Before(start) && at.Before(end) {
			q.Status.Phase = plan.PhaseActive
		}
		res, err := render.Render(render.Input{Plan: q, Now: at, Target: tgt.target, Clock: clocked, Warnings: true, Lead: lead})
		if err != nil {
			t.Fatal(err)
		}
		for _, pol := range res.Policies {
			if pol.Template != render.WarnTemplate {
				continue // the plan's own policies are the other rows' business
			}
			idx[pol.Namespace+"/"+pol.Name] = violations.IndexEntry{Namespace: pol.Namespace, Name: pol.Name, Plan: id, Template: pol.Template}
			for _, o := range pol.Objects {
				o = o.DeepCopy()
				labels := o.GetLabels()
				delete(labels, render.LabelPlan)
				o.SetLabels(labels)
				if err := s.c.Patch(t.Context(), o, client.Apply, client.ForceOwnership, client.FieldOwner("e2e-warnings")); err != nil {
					t.Fatal(err)
				}
				applied = append(applied, o)
			}
			if !tgt.vap() {
				if err := s.env.WaitPolicyReady(t.Context(), pol.Namespace, pol.Name); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	n := 0
	label := func() string {
		t.Helper()
		n++
		_, stderr, err := s.env.Kubectl(t.Context(), "-n", ns, "label", "--overwrite", "deployment/d-scale", "warn-check="+strconv.Itoa(n))
		if err != nil {
			t.Fatalf("the label change was refused: %s", stderr)
		}
		return stderr
	}
	head := "freeze " + p.Spec.Name // the matrix adds the target to the name
	phases := []struct {
		name string
		at   time.Time // when the check runs (the vap render's instant)
		want string    // "" : no warning
	}{
		{"before the lead, kubectl prints no warning", start.Add(-lead - 4*time.Second), ""},
		{"inside the lead, kubectl prints the BeforeStart warning", start.Add(-lead + time.Second), head + map[bool]string{true: " starts in ", false: " starts at "}[clocked]},
		{"during the window, kubectl prints the Active warning", start.Add(time.Second), head + " is in force "},
		{"inside the lead before the end, kubectl prints the BeforeEnd warning", end.Add(-lead + time.Second), head + map[bool]string{true: " ends in ", false: " ends at "}[clocked]},
		{"after the end, kubectl prints no warning", end.Add(time.Second), ""},
	}
	if clocked {
		apply(start.Add(-lead)) // put in place at the lead, read by the clock from then on
		if time.Now().After(phases[0].at) {
			t.Fatalf("the warning policy took until %s to be ready, after the first check's instant", time.Now().Format(time.TimeOnly))
		}
	}
	for _, ph := range phases {
		if !clocked {
			if ph.want == "" {
				for _, o := range applied {
					_ = s.c.Delete(t.Context(), o)
				}
				applied = nil
			} else {
				apply(ph.at)
			}
			got := eventuallyStderr(t, label, ph.want)
			checkWarning(t, ph.name, got, ph.want)
			continue
		}
		time.Sleep(time.Until(ph.at))
		checkWarning(t, ph.name, label(), ph.want)
	}
	// The Kyverno targets record the audited failure a warning is made
	// of: PolicyViolation events, which the violations package drops.
	index := violations.NewPolicyIndex(valuesOf(idx)...)
	var b violations.Batch
	waitFor(t, 30*time.Second, "the warnings' events read as warnings, not violations", func() (string, bool) {
		var evs corev1.EventList
		if err := s.c.List(t.Context(), &evs, client.InNamespace(ns)); err != nil {
			return err.Error(), false
		}
		b, _ = violations.FromEvents(index, evs.Items)
		return "", tgt.vap() || b.Warnings > 0
	})
	if len(b.Violations) > 0 {
		t.Errorf("%d violations from the warning policy: %+v", len(b.Violations), b.Violations[0])
	}
	t.Logf("%s: warnings as kubectl printed them; events read: %d, warnings dropped: %d, violations: %d", tgt.target, b.Read, b.Warnings, len(b.Violations))
}

func valuesOf(m map[string]violations.IndexEntry) []violations.IndexEntry {
	var out []violations.IndexEntry
	for _, e := range m {
		out = append(out, e)
	}
	return out
}

// checkWarning checks kubectl's stderr for the warning (want "": none of
// the plan's).
func checkWarning(t *testing.T, what, stderr, want string) {
	t.Helper()
	switch {
	case want == "" && strings.Contains(stderr, "freeze Nightly image freeze"):
		t.Errorf("%s: kubectl printed %q", what, stderr)
	case want != "" && (!strings.Contains(stderr, "Warning: ") || !strings.Contains(stderr, want)):
		t.Errorf("%s: kubectl printed %q, want a warning with %q", what, stderr, want)
	default:
		t.Logf("%s: %q", what, strings.TrimSpace(stderr))
	}
}

// eventuallyStderr runs f until its stderr shows want (or, want "", no
// warning of the plan), for at most 20 s: the API server loads a
// ValidatingAdmissionPolicy asynchronously.
func eventuallyStderr(t *testing.T, f func() string, want string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := f()
		ok := strings.Contains(got, "freeze Nightly image freeze") == (want != "") && strings.Contains(got, want)
		if ok || time.Now().After(deadline) {
			return got
		}
		time.Sleep(500 * time.Millisecond)
	}
}
