package violations

import (
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ReasonPolicyViolation is the reason of the events this package reads.
// List them with the field selector "reason=PolicyViolation".
const ReasonPolicyViolation = "PolicyViolation"

// actionBlocked is the action Kyverno gives the event of a refused request.
const actionBlocked = "Resource Blocked"

// pairWindow is how far apart in time the two events of one audited
// decision may be and still be counted once. Kyverno stamps both in the
// same loop, microseconds apart.
const pairWindow = time.Second

// Batch is what a reader made of a list of events or reports.
type Batch struct {
	// Violations holds one record per decision, newest first.
	Violations []Violation
	// Read is the number of objects read: events, or report results.
	Read int
	// Skipped is the number of objects read whose policy is not in the
	// index (another tool's policies, another plan's, a policy deleted
	// since): not errors, but worth a log line.
	Skipped int
	// Unrecognized is the number of objects that could not be read; the
	// error returned with the batch has one *UnrecognizedError for each.
	Unrecognized int
	// Probes is the number of objects read that record a probe (a
	// resource named ProbeName): left out of Violations.
	Probes int
	// Warnings is the number of objects read that record an advance
	// warning (a warning rule of a plan's warning policy, issue 20):
	// Kyverno records the audited failure a warning is made of, but it
	// refused and recorded nothing. Left out of Violations.
	Warnings int
}

// objectRef is the part of an object reference this package uses.
type objectRef struct {
	APIVersion, Kind, Namespace, Name, UID string
}

func refOf(r corev1.ObjectReference) objectRef {
	return objectRef{r.APIVersion, r.Kind, r.Namespace, r.Name, string(r.UID)}
}

// eventRecord is an event of either API, reduced to what is read here.
type eventRecord struct {
	namespace, name string
	reason, action  string
	note            string
	regarding       objectRef
	related         *objectRef
	// first is when the event was first observed (its eventTime, or the
	// deprecated firstTimestamp); last when last observed; count how many
	// times (at least 1).
	first, last time.Time
	count       int32
}

// FromEvents reads core/v1 Events (as `kubectl get events` lists them)
// into violations of the policies in idx.
//
// Counting each decision once: an audited request leaves two events, one
// on the policy and one on the resource; a refused request leaves only the
// one on the policy. The two events of one decision are paired when they
// name the same policy, rule, result and resource and were first observed
// within a second of each other; the pair becomes one violation, keyed by
// those names and the first time of the event on the policy. An event on
// the resource without its pair in the list keeps its own first time. Since
// the key holds nothing that changes when an event is read again or its
// count grows, every later read of the same decision has the same key, and
// the ledger merges them.
//
// Dry runs: Kyverno 1.19.1 writes the same events for a server dry-run as
// for a real request, and nothing in them tells the two apart: a refused
// `kubectl scale --dry-run=server` is a violation like any other.
//
// Results: despite their reason, Kyverno also writes PolicyViolation
// events with result pass, for the rules of a policy that passed while
// another rule of the same policy failed (seen with the scope-guard rule
// next to a failing template rule). They are returned as read, with their
// result; a feed or ledger of what was blocked or audited keeps only fail,
// warn and error (Query.Results).
//
// The events of policies not in idx are counted in Batch.Skipped. An event
// that is not a PolicyViolation, whose message has neither of Kyverno's
// shapes, or whose time is outside the years 0000 to 9999 (which a ledger
// cannot record), is counted in Batch.Unrecognized and reported in the
// returned error (an errors.Join of *UnrecognizedError); the batch holds
// everything else either way.
func FromEvents(idx PolicyIndex, events []corev1.Event) (Batch, error) {
	recs := make([]eventRecord, 0, len(events))
	for i := range events {
		recs = append(recs, coreRecord(&events[i]))
	}
	return fromRecords(idx, recs)
}

// FromEventsV1 is FromEvents for events.k8s.io/v1 Events.
func FromEventsV1(idx PolicyIndex, events []eventsv1.Event) (Batch, error) {
	recs := make([]eventRecord, 0, len(events))
	for i := range events {
		recs = append(recs, v1Record(&events[i]))
	}
	return fromRecords(idx, recs)
}

func coreRecord(e *corev1.Event) eventRecord {
	r := eventRecord{
		namespace: e.Namespace, name: e.Name,
		reason: e.Reason, action: e.Action, note: e.Message,
		regarding: refOf(e.InvolvedObject),
		count:     e.Count,
	}
	if e.Related != nil {
		rel := refOf(*e.Related)
		r.related = &rel
	}
	var seriesCount int32
	var seriesLast time.Time
	if e.Series != nil {
		seriesCount, seriesLast = e.Series.Count, e.Series.LastObservedTime.Time
	}
	r.first, r.last, r.count = eventTimes(e.EventTime.Time, e.FirstTimestamp.Time, e.LastTimestamp.Time,
		seriesLast, e.CreationTimestamp.Time, max(e.Count, seriesCount))
	return r
}

func v1Record(e *eventsv1.Event) eventRecord {
	r := eventRecord{
		namespace: e.Namespace, name: e.Name,
		reason: e.Reason, action: e.Action, note: e.Note,
		regarding: refOf(e.Regarding),
	}
	if e.Related != nil {
		rel := refOf(*e.Related)
		r.related = &rel
	}
	var seriesCount int32
	var seriesLast time.Time
	if e.Series != nil {
		seriesCount, seriesLast = e.Series.Count, e.Series.LastObservedTime.Time
	}
	r.first, r.last, r.count = eventTimes(e.EventTime.Time, e.DeprecatedFirstTimestamp.Time,
		e.DeprecatedLastTimestamp.Time, seriesLast, e.CreationTimestamp.Time, max(e.DeprecatedCount, seriesCount))
	return r
}

// eventTimes works out when an event was first and last observed and how
// many times, from whichever of the fields are set: eventTime (the
// events.k8s.io field, microseconds) first, then the deprecated
// firstTimestamp (seconds), then lastTimestamp, then the object's creation.
func eventTimes(eventTime, firstTS, lastTS, seriesLast, created time.Time, count int32) (first, last time.Time, n int32) {
	for _, t := range []time.Time{eventTime, firstTS, lastTS, seriesLast, created} {
		if !t.IsZero() {
			first = t
			break
		}
	}
	last = first
	for _, t := range []time.Time{lastTS, seriesLast, eventTime} {
		if t.After(last) {
			last = t
		}
	}
	return first.UTC(), last.UTC(), max(count, 1)
}

// side is which object an event is about.
type side int

const (
	onPolicy side = iota
	onResource
)

// parsedEvent is one event read, before pairing.
type parsedEvent struct {
	side side
	id   decisionID
	// apiVersion is the resource's; an event on a policy without a related
	// object does not know it.
	apiVersion string
	blocked    bool
	message    string
	rec        eventRecord
}

// decisionID is what the two events of one decision have in common.
type decisionID struct {
	policyNamespace, policy, rule string
	result                        Result
	kind, namespace, name         string
}

func fromRecords(idx PolicyIndex, recs []eventRecord) (Batch, error) {
	b := Batch{Read: len(recs)}
	var errs []error
	parsed := make([]parsedEvent, 0, len(recs))
	for _, r := range recs {
		p, err := parseEvent(r)
		if err != nil {
			b.Unrecognized++
			errs = append(errs, err)
			continue
		}
		entry, ok := idx.Lookup(p.id.policyNamespace, p.id.policy)
		if !ok {
			// An event on a resource names its policy without a namespace:
			// it may be a cluster-wide one (a ClusterPolicy).
			if entry, ok = idx.Lookup("", p.id.policy); !ok || p.side != onResource {
				b.Skipped++
				continue
			}
			p.id.policyNamespace = ""
		}
		if isWarning(entry, p.id.rule) {
			b.Warnings++
			continue
		}
		if IsProbe(p.id.name) {
			b.Probes++
			continue
		}
		parsed = append(parsed, p)
	}
	groups := map[decisionID][]*parsedEvent{}
	var order []decisionID
	for i := range parsed {
		p := &parsed[i]
		if _, seen := groups[p.id]; !seen {
			order = append(order, p.id)
		}
		groups[p.id] = append(groups[p.id], p)
	}
	vs := make([]Violation, 0, len(parsed))
	for _, id := range order {
		vs = pairUp(vs, idx, id, groups[id])
	}
	b.Violations = dedupe(vs)
	return b, errors.Join(errs...)
}

// parseEvent reads one event. An event with a related object is an event
// on the policy (the related object is the resource); one without is an
// event on the resource, unless it is about a Kyverno policy and only the
// policy's shape of message fits.
func parseEvent(r eventRecord) (parsedEvent, error) {
	fail := func(format string, a ...any) (parsedEvent, error) {
		return parsedEvent{}, &UnrecognizedError{Source: SourceEvent, Namespace: r.namespace, Name: r.name,
			Reason: fmt.Sprintf(format, a...)}
	}
	if r.reason != ReasonPolicyViolation {
		return fail("reason %q is not %q", r.reason, ReasonPolicyViolation)
	}
	for _, t := range []time.Time{r.first, r.last} {
		if !writable(t) {
			return fail("time %s is outside the years 0000 to 9999", t.Format(time.RFC3339Nano))
		}
	}
	if r.related != nil {
		if n, ok := parsePolicyNote(r.note, r.related.Kind, r.related.Namespace, r.related.Name); ok {
			res := *r.related
			res.Kind, res.Namespace, res.Name = n.Kind, n.Namespace, n.Name
			return onPolicyEvent(r, n, res), nil
		}
	}
	if n, ok := parseResourceNote(r.note); ok {
		return parsedEvent{
			side: onResource,
			id: decisionID{
				policyNamespace: r.regarding.Namespace, policy: n.Policy, rule: n.Rule, result: n.Result,
				kind: r.regarding.Kind, namespace: r.regarding.Namespace, name: r.regarding.Name,
			},
			apiVersion: r.regarding.APIVersion,
			message:    n.Message,
			rec:        r,
		}, nil
	}
	if isKyvernoPolicy(r.regarding) {
		if n, ok := parsePolicyNote(r.note, "", "", ""); ok {
			return onPolicyEvent(r, n, objectRef{Kind: n.Kind, Namespace: n.Namespace, Name: n.Name}), nil
		}
	}
	if r.regarding.Name == "" {
		return fail("no policy or resource named (message %q)", r.note)
	}
	return fail("message %q has neither of Kyverno's PolicyViolation shapes", r.note)
}

func onPolicyEvent(r eventRecord, n policyNote, res objectRef) parsedEvent {
	return parsedEvent{
		side: onPolicy,
		id: decisionID{
			policyNamespace: r.regarding.Namespace, policy: r.regarding.Name, rule: n.Rule, result: n.Result,
			kind: res.Kind, namespace: res.Namespace, name: res.Name,
		},
		apiVersion: res.APIVersion,
		blocked:    n.Blocked || r.action == actionBlocked,
		message:    n.Message,
		rec:        r,
	}
}

// isKyvernoPolicy says whether ref names an object of Kyverno's policy
// groups (kyverno.io, policies.kyverno.io).
func isKyvernoPolicy(ref objectRef) bool {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	return err == nil && (gv.Group == "kyverno.io" || gv.Group == "policies.kyverno.io")
}

// pairUp pairs the events of one decisionID, in time order: an event on
// the policy and an event on the resource first observed within
// pairWindow of each other are one decision. The apiVersion of the
// resource is not compared: an event on the policy whose related object is
// missing does not know it.
// The violations are appended to out.
func pairUp(out []Violation, idx PolicyIndex, id decisionID, evs []*parsedEvent) []Violation {
	pol := make([]*parsedEvent, 0, len(evs))
	var res []*parsedEvent
	for _, e := range evs {
		if e.side == onPolicy {
			pol = append(pol, e)
		} else {
			res = append(res, e)
		}
	}
	byFirst := func(a, b *parsedEvent) int { return a.rec.first.Compare(b.rec.first) }
	slices.SortStableFunc(pol, byFirst)
	slices.SortStableFunc(res, byFirst)
	i, j := 0, 0
	for i < len(pol) || j < len(res) {
		switch {
		case i < len(pol) && j < len(res) && absDuration(pol[i].rec.first.Sub(res[j].rec.first)) <= pairWindow:
			out = append(out, decision(idx, id, pol[i], res[j]))
			i++
			j++
		case j >= len(res) || (i < len(pol) && pol[i].rec.first.Before(res[j].rec.first)):
			out = append(out, decision(idx, id, pol[i], nil))
			i++
		default:
			out = append(out, decision(idx, id, nil, res[j]))
			j++
		}
	}
	return out
}

// decision makes the violation of one decision from its event on the
// policy, its event on the resource, or both.
func decision(idx PolicyIndex, id decisionID, pol, res *parsedEvent) Violation {
	anchor := pol
	if anchor == nil {
		anchor = res
	}
	entry, _ := idx.Lookup(id.policyNamespace, id.policy)
	v := Violation{
		Key: makeKey(string(SourceEvent), id.policyNamespace, id.policy, id.rule, string(id.result),
			id.kind, id.namespace, id.name, timeKey(anchor.rec.first)),
		Plan:            entry.Plan,
		Template:        entry.Template,
		Policy:          id.policy,
		PolicyNamespace: id.policyNamespace,
		Rule:            id.rule,
		Resource:        resourceOf(id, pol, res),
		Result:          id.result,
		Blocked:         anchor.blocked,
		Message:         anchor.message,
		Requester:       RecordRequester(anchor.message),
		Timestamp:       anchor.rec.last,
		FirstSeen:       anchor.rec.first,
		Count:           anchor.rec.count,
		Source:          SourceEvent,
	}
	if pol != nil && res != nil {
		// Kyverno cuts both messages at 1,024 bytes, after prefixes of
		// different lengths: keep the longer.
		if len(res.message) > len(v.Message) {
			v.Message = res.message
		}
		if res.rec.last.After(v.Timestamp) {
			v.Timestamp = res.rec.last
		}
		if res.rec.first.Before(v.FirstSeen) {
			v.FirstSeen = res.rec.first
		}
		v.Count = max(v.Count, res.rec.count)
	}
	return v
}

// resourceOf is the resource of a decision. A /scale request is for an
// autoscaling/v1 Scale named after its parent; Kyverno's events name the
// Scale, not the parent's kind, so Subresource is set to "scale" and Kind
// stays "Scale".
func resourceOf(id decisionID, pol, res *parsedEvent) Resource {
	var apiVersion string
	if pol != nil {
		apiVersion = pol.apiVersion
	}
	if apiVersion == "" && res != nil {
		apiVersion = res.apiVersion
	}
	r := Resource{APIVersion: apiVersion, Kind: id.kind, Namespace: id.namespace, Name: id.name}
	if gv, err := schema.ParseGroupVersion(apiVersion); err == nil && gv.Group == "autoscaling" && id.kind == "Scale" {
		r.Subresource = "scale"
	}
	return r
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
