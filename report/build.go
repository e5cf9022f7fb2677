package report

import (
	"cmp"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/violations"
	"github.com/telark/protectionplans/window"
)

// Input is everything a report is built from. The embedder gathers it (the
// plan from the API, the violations from the plan's ledger, the health
// samples and policies from its checks); Build only computes.
type Input struct {
	// Plan is the plan as it is now. Required.
	Plan *plan.ProtectionPlan
	// Applications are the plan's applications as resolved (for an
	// applications scope); an application not listed is reported as not
	// resolved.
	Applications []plan.Application
	// Policies are the admission policies the plan deployed.
	Policies []PolicyInfo
	// Health are the health checks of the run, in any order.
	Health []HealthSample
	// Violations are the run's violations (the plan's ledger), in any
	// order. ViolationsTruncated and ViolationsDropped are the ledger's
	// own truncation: it said it dropped some.
	Violations          []violations.Violation
	ViolationsTruncated bool
	ViolationsDropped   int64
	// EdgeJournals are the plan's edge journals (package edge), in any
	// order: those that ended during the run, as the embedder kept them,
	// and the current one. Those captured before the run began, or of
	// another plan (UID), are left out. EdgeDropped counts journals of
	// the run the embedder no longer kept.
	EdgeJournals []edge.Journal
	EdgeDropped  int
	// Trigger is why the report is made. Required.
	Trigger Trigger
	// Now is when the report is made. Required.
	Now time.Time
	// ID names the report; empty for the default
	// "<plan ID>-<trigger>-<Now, UTC, 20060102T150405Z>".
	ID string
}

// Build computes the report of in.Plan's current run. It reads no clock
// and changes none of its input.
//
// It refuses (*InputError, 400) a nil plan, an unknown trigger or a zero
// Now, and (*NotStartedError, 409) any report of a plan whose run has not
// started (Status.StartedAt unset): such a plan has neither final nor
// on-demand reports (R-T3).
//
// The run begins with the plan's last Created or Reactivated timeline
// event; its events from there on make the timeline, and its phases are
// computed from them up to RunEnd. Health is summed over the active
// phases only (see Health.Unhealthy). At most MaxViolations violations
// are kept, the newest.
func Build(in Input) (Report, error) {
	if err := checkInput(in); err != nil {
		return Report{}, err
	}
	p := in.Plan
	now := in.Now.UTC()
	events := runEvents(p.Status.Timeline)
	runStart := p.Status.StartedAt.UTC()
	runEnd := runEndOf(p, events, runStart, now)
	from := runStart
	if len(events) > 0 && events[0].Time.Before(from) {
		from = events[0].Time
	}
	phases := phaseBands(events, from, runEnd)
	health := buildHealth(in.Health, phases, runEnd)
	health.Unverified = UnverifiedPeriods(events, runEnd)
	vs := buildViolations(in)
	r := Report{
		SchemaVersion: SchemaVersion,
		ID:            in.ID,
		Trigger:       in.Trigger,
		GeneratedAt:   now,
		RunStart:      runStart,
		RunEnd:        runEnd,
		Plan:          planInfo(p),
		Scope:         buildScope(p.Spec.Scope, in.Applications, p.Status.Coverage),
		Exclusions:    buildExclusions(p.Spec.Exclusions),
		Templates:     buildTemplates(p.Spec.Templates),
		Policies:      sortedPolicies(in.Policies),
		Timeline:      Timeline{Events: events, Dropped: p.Status.TimelineDropped, Phases: phases},
		Health:        health,
		Violations:    vs,
		BreakGlass:    buildBreakGlass(p, in.Violations, in.Policies, from, runEnd),
		EdgeActions:   buildEdgeActions(p, in.EdgeJournals, in.EdgeDropped, from),
	}
	if r.ID == "" {
		r.ID = DefaultID(p.Name, in.Trigger, now)
	}
	r.Summary = summarize(r)
	return r, nil
}

func checkInput(in Input) error {
	switch {
	case in.Plan == nil:
		return &InputError{Field: "plan", Value: "", Reason: "a report needs a plan"}
	case !in.Trigger.Valid():
		return &InputError{Field: "trigger", Value: string(in.Trigger), Reason: `must be "manual", "cancel" or "end"`}
	case in.Now.IsZero():
		return &InputError{Field: "now", Value: "0001-01-01T00:00:00Z", Reason: "the time the report is made is required"}
	}
	return checkStarted(in.Plan, in.Trigger)
}

// runEvents copies the plan's timeline from its last Created or
// Reactivated event on, in UTC and sorted by time (stable).
func runEvents(tl []plan.TimelineEvent) []TimelineEvent {
	start := 0
	for i, ev := range tl {
		if ev.Type == plan.EventCreated || ev.Type == plan.EventReactivated {
			start = i
		}
	}
	out := make([]TimelineEvent, 0, len(tl)-start)
	for _, ev := range tl[start:] {
		out = append(out, TimelineEvent{Time: ev.Time.UTC(), Type: ev.Type, Actor: ev.Actor, Phase: ev.Phase, Message: ev.Message})
	}
	slices.SortStableFunc(out, func(a, b TimelineEvent) int { return a.Time.Compare(b.Time) })
	return out
}

// runEndOf is when the run ended: the first event at or after the start
// that put the plan in a final phase, or now for a run still going (or a
// final phase without its event, which a capped timeline can cause).
func runEndOf(p *plan.ProtectionPlan, events []TimelineEvent, start, now time.Time) time.Time {
	if final(p.Status.Phase) {
		for _, ev := range events {
			if final(ev.Phase) && !ev.Time.Before(start) {
				return ev.Time
			}
		}
	}
	if now.Before(start) {
		return start
	}
	return now
}

func final(ph plan.Phase) bool { return ph == plan.PhaseTerminated || ph == plan.PhaseCanceled }

func planInfo(p *plan.ProtectionPlan) PlanInfo {
	return PlanInfo{
		ID:           p.Name,
		Name:         p.Spec.Name,
		Description:  p.Spec.Description,
		Environment:  p.Spec.Environment,
		Tags:         nonNil(slices.Clone(p.Spec.Tags)),
		Mode:         p.Spec.Mode,
		ApprovalMode: p.Spec.ApprovalMode,
		Phase:        p.Status.Phase,
		Window:       WindowInfo{Description: window.Describe(p.Spec.Window), Spec: *p.Spec.Window.DeepCopy()},
	}
}

func buildScope(s plan.Scope, apps []plan.Application, coverage []plan.Coverage) Scope {
	out := Scope{Type: s.Type(), Applications: []ScopeApplication{}, Namespaces: []string{}}
	if len(s.NamespaceSelectors) > 0 {
		for _, sel := range s.NamespaceSelectors {
			text := metav1.FormatLabelSelector(&sel)
			if text == "<none>" {
				text = "{}"
			}
			out.Selectors = append(out.Selectors, text)
		}
		var covered []string
		for _, c := range coverage {
			covered = append(covered, c.Namespace)
		}
		out.Namespaces = sortedUnique(covered)
		return out
	}
	if len(s.Applications) == 0 {
		out.Namespaces = sortedUnique(s.Namespaces)
		return out
	}
	byName := make(map[string]plan.Application, len(apps))
	for _, a := range apps {
		byName[a.Name] = a
	}
	var all []string
	for _, name := range s.Applications {
		a, ok := byName[name]
		ns := sortedUnique(a.Namespaces)
		out.Applications = append(out.Applications, ScopeApplication{Name: name, Namespaces: ns, Resolved: ok})
		all = append(all, ns...)
	}
	out.Namespaces = sortedUnique(all)
	return out
}

func buildExclusions(e plan.Exclusions) Exclusions {
	out := Exclusions{Kinds: nonNil(slices.Clone(e.Kinds)), Resources: []ExcludedResource{}}
	for _, r := range e.Resources {
		out.Resources = append(out.Resources, ExcludedResource{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name})
	}
	return out
}

func buildTemplates(refs []plan.TemplateRef) []Template {
	out := make([]Template, 0, len(refs))
	for _, t := range refs {
		params := make([]Parameter, 0, len(t.Parameters))
		for k, v := range t.Parameters {
			params = append(params, Parameter{Name: k, Value: v})
		}
		slices.SortFunc(params, func(a, b Parameter) int { return cmp.Compare(a.Name, b.Name) })
		out = append(out, Template{Name: t.Name, Parameters: params})
	}
	return out
}

func sortedPolicies(ps []PolicyInfo) []PolicyInfo {
	out := nonNil(slices.Clone(ps))
	slices.SortStableFunc(out, func(a, b PolicyInfo) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// buildViolations sorts the violations oldest first and keeps the newest
// MaxViolations.
func buildViolations(in Input) Violations {
	items := make([]violations.Violation, len(in.Violations))
	for i, v := range in.Violations {
		v.Timestamp = v.Timestamp.UTC()
		if !v.FirstSeen.IsZero() {
			v.FirstSeen = v.FirstSeen.UTC()
		}
		items[i] = v
	}
	slices.SortStableFunc(items, func(a, b violations.Violation) int {
		return cmp.Or(a.Timestamp.Compare(b.Timestamp), cmp.Compare(a.Key, b.Key))
	})
	dropped := max(in.ViolationsDropped, 0)
	if over := len(items) - MaxViolations; over > 0 {
		items = items[over:]
		dropped += int64(over)
	}
	return Violations{Items: items, Truncated: in.ViolationsTruncated || dropped > 0, Dropped: dropped}
}

func summarize(r Report) Summary {
	s := Summary{
		UnhealthySeconds: r.Health.UnhealthySeconds,
		UnhealthyPeriods: len(r.Health.Unhealthy),
		Violations:       len(r.Violations.Items),
	}
	for _, b := range r.Timeline.Phases {
		start, end := maxTime(b.Start, r.RunStart), minTime(b.End, r.RunEnd)
		if b.Phase == plan.PhaseActive && end.After(start) {
			s.ActivePeriods++
			s.ActiveSeconds += seconds(end.Sub(start))
		}
	}
	resources := map[violations.Resource]bool{}
	for _, v := range r.Violations.Items {
		if v.Blocked {
			s.Blocked++
		} else {
			s.Audited++
		}
		s.Decisions += int64(max(v.Count, 1))
		res := v.Resource
		res.Subresource = ""
		resources[res] = true
	}
	s.Resources = len(resources)
	return s
}

func seconds(d time.Duration) int64 { return int64(d.Round(time.Second) / time.Second) }

func sortedUnique(s []string) []string {
	out := nonNil(slices.Clone(s))
	slices.Sort(out)
	return slices.Compact(out)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
