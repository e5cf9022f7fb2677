package reconcile

import (
	"slices"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
)

// EventAPIWarning is the event of a warning the API server returned to a
// write of the plan's policies that the plan had not shown yet.
const EventAPIWarning = "APIWarning"

// Reasons of plan.ConditionAPIWarnings.
const (
	ReasonAPIServerWarned = "APIServerWarned"
	ReasonNoWarnings      = "NoWarnings"
)

// The condition's message holds at most maxWarnings warnings of at most
// maxWarning bytes each, one a line (the API server allows a warning
// 4 KiB, and a status must stay small). A plan whose writes draw more
// distinct warnings than that shows the ones that do not fit on every
// pass that draws them. On the end-to-end harness a plan's writes drew
// at most two: Kyverno 1.19's deprecation of kyverno.io/v1, and its note
// on a kind without a /scale subresource matched with one.
const (
	maxWarnings = 4
	maxWarning  = 512
)

// surfaceWarnings decides what the API server's warnings to this pass's
// writes (Carried.Warnings) show, so that a warning every apply repeats is
// shown once per plan, not once per apply: a warning the plan's
// ConditionAPIWarnings does not already hold is new, and gets a line in
// the pass's one event, in the condition and in Output.Warnings (which
// the embedder logs); one the condition holds shows nothing again, across
// passes and restarts (it is in the stored status). A pass that wrote the
// plan's policies and got no warning sets the condition False: the cause
// went away (another target, Kyverno upgraded), and a warning coming back
// is new again. A pass that wrote nothing decides nothing.
func (d *pass) surfaceWarnings(c *Carried) {
	if len(c.Done) == 0 {
		return
	}
	cond := meta.FindStatusCondition(d.p.Status.Conditions, plan.ConditionAPIWarnings)
	var shown []string
	if cond != nil && cond.Status == metav1.ConditionTrue {
		shown = splitWarnings(cond.Message)
	}
	if len(c.Warnings) == 0 {
		if cond != nil && cond.Status == metav1.ConditionTrue {
			d.setWarnings(metav1.ConditionFalse, ReasonNoWarnings, "the last writes of the plan's policies drew no warning from the API server")
		}
		return
	}
	var fresh []string
	for _, w := range c.Warnings {
		w = normalizeWarning(w)
		if w == "" || slices.Contains(shown, w) || slices.Contains(fresh, w) {
			continue
		}
		fresh = append(fresh, w)
	}
	if len(fresh) == 0 {
		return
	}
	all := append(slices.Clone(shown), fresh...)
	if len(all) > maxWarnings {
		all = all[:maxWarnings]
	}
	slices.Sort(all)
	d.setWarnings(metav1.ConditionTrue, ReasonAPIServerWarned, strings.Join(all, "\n"))
	// One event for all: an events.k8s.io recorder folds events of the
	// same object, reason and action into one series that keeps the
	// first note, so a second event would lose its warning.
	d.out.Events = append(d.out.Events, Event{Reason: EventAPIWarning, Severity: Warning, Action: "Apply", Note: eventNote(fresh)})
	d.out.Warnings = fresh
}

func (d *pass) setWarnings(status metav1.ConditionStatus, reason, msg string) {
	if d.p == d.stored {
		d.p = d.p.DeepCopy()
	}
	plan.SetCondition(d.p, metav1.Condition{Type: plan.ConditionAPIWarnings, Status: status, Reason: reason, Message: msg}, d.in.Now)
}

// The condition's message holds one warning a line.
func splitWarnings(msg string) []string {
	var out []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// maxNote is the longest note events.k8s.io/v1 accepts.
const maxNote = 1024

// eventNote is the warnings one a line, cut to maxNote (the condition
// holds them whole).
func eventNote(ws []string) string {
	return cut(strings.Join(ws, "\n"), maxNote)
}

// normalizeWarning makes w one line of at most maxWarning bytes, cut at
// a rune boundary, as the condition holds it.
func normalizeWarning(w string) string {
	return cut(strings.Join(strings.Fields(w), " "), maxWarning)
}

// cut returns s cut to at most n bytes at a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
