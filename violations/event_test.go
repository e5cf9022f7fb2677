package violations

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
)

// Synthetic events (helpers_test.go) for the cases the recorded fixtures
// do not hold.

func TestFromEvents_CountsEachDecisionOnce(t *testing.T) {
	d := shopScaling(t0)
	later := shopScaling(t0.Add(3 * time.Second))
	blocked := shopScaling(t0.Add(10 * time.Second))
	grown := d.policyEvent(false, d.at)
	grown.Count = 4
	grown.Series = &corev1.EventSeries{Count: 4, LastObservedTime: metav1.NewMicroTime(d.at.Add(time.Minute))}

	tests := []struct {
		name   string
		events []corev1.Event
		want   []Violation // Key ignored
	}{
		{
			name:   "an audited decision's two events are one violation",
			events: d.audited(),
			want:   []Violation{want(d, false, d.at, d.at.Add(40*time.Microsecond), 1)},
		},
		{
			name:   "the same two events read twice are still one violation",
			events: append(d.audited(), d.audited()...),
			want:   []Violation{want(d, false, d.at, d.at.Add(40*time.Microsecond), 1)},
		},
		{
			name:   "the events in the other order are the same violation",
			events: []corev1.Event{d.audited()[1], d.audited()[0]},
			want:   []Violation{want(d, false, d.at, d.at.Add(40*time.Microsecond), 1)},
		},
		{
			name:   "a refused request leaves only the event on the policy, and is blocked",
			events: []corev1.Event{blocked.policyEvent(true, blocked.at)},
			want:   []Violation{want(blocked, true, blocked.at, blocked.at, 1)},
		},
		{
			name:   "an event on the resource without its pair is a violation",
			events: []corev1.Event{d.resourceEvent(d.at)},
			want:   []Violation{want(d, false, d.at, d.at, 1)},
		},
		{
			name:   "two decisions three seconds apart are two violations, newest first",
			events: append(d.audited(), later.audited()...),
			want: []Violation{
				want(later, false, later.at, later.at.Add(40*time.Microsecond), 1),
				want(d, false, d.at, d.at.Add(40*time.Microsecond), 1),
			},
		},
		{
			name:   "an event whose count grew keeps its first time and takes the count and the last time",
			events: []corev1.Event{grown, d.resourceEvent(d.at.Add(40 * time.Microsecond))},
			want:   []Violation{want(d, false, d.at, d.at.Add(time.Minute), 4)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := FromEvents(testIndex(), tt.events)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, b.Violations, ignoreKey); diff != "" {
				t.Errorf("FromEvents (-want +got):\n%s", diff)
			}
			if b.Read != len(tt.events) || b.Skipped != 0 || b.Unrecognized != 0 {
				t.Errorf("Read, Skipped, Unrecognized = %d, %d, %d; want %d, 0, 0", b.Read, b.Skipped, b.Unrecognized, len(tt.events))
			}
		})
	}
}

var ignoreKey = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Key" }, cmp.Ignore())

func want(d decisionSpec, blocked bool, first, last time.Time, count int32) Violation {
	return Violation{
		Plan: "summer-freeze", Template: "scaling",
		Policy: d.policy, PolicyNamespace: d.policyNS, Rule: d.rule,
		Resource: Resource{APIVersion: d.apiVersion, Kind: d.kind, Namespace: d.policyNS, Name: d.name},
		Result:   ResultFail, Blocked: blocked, Message: d.msg,
		Timestamp: last, FirstSeen: first, Count: count, Source: SourceEvent,
	}
}

func TestFromEvents_KeysAreStableAcrossReads(t *testing.T) {
	d := shopScaling(t0)
	pair := d.audited()
	b1, _ := FromEvents(testIndex(), pair)
	b2, _ := FromEvents(testIndex(), pair[:1]) // the event on the resource is missing
	b3, _ := FromEventsV1(testIndex(), toV1(pair))
	if len(b1.Violations) != 1 || len(b2.Violations) != 1 || len(b3.Violations) != 1 {
		t.Fatalf("got %d, %d, %d violations; want 1 each", len(b1.Violations), len(b2.Violations), len(b3.Violations))
	}
	k := b1.Violations[0].Key
	if b2.Violations[0].Key != k || b3.Violations[0].Key != k {
		t.Errorf("keys %q, %q, %q; want one key for the pair, the policy's event alone and the events.k8s.io view",
			k, b2.Violations[0].Key, b3.Violations[0].Key)
	}
}

func TestFromEvents_PairsAcrossASecondBoundary(t *testing.T) {
	d := shopScaling(mustTime("2026-07-09T15:00:00.999990Z"))
	b, err := FromEvents(testIndex(), d.audited()) // the resource's event at 15:00:01.000030
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Violations) != 1 {
		t.Fatalf("got %d violations; want 1", len(b.Violations))
	}
}

func TestFromEvents_Scale(t *testing.T) {
	d := shopScaling(t0)
	d.kind, d.apiVersion = "Scale", "autoscaling/v1"
	b, err := FromEvents(testIndex(), d.audited())
	if err != nil {
		t.Fatal(err)
	}
	got := b.Violations[0].Resource
	wantRes := Resource{APIVersion: "autoscaling/v1", Kind: "Scale", Namespace: "shop", Name: "web", Subresource: "scale"}
	if got != wantRes {
		t.Errorf("Resource = %+v, want %+v", got, wantRes)
	}
}

func TestFromEvents_SkipsPoliciesNotInTheIndex(t *testing.T) {
	other := shopScaling(t0)
	other.policy = "someone-elses-policy"
	evs := append(other.audited(), shopScaling(t0).audited()...)
	b, err := FromEvents(testIndex(), evs)
	if err != nil {
		t.Fatal(err)
	}
	if b.Skipped != 2 || len(b.Violations) != 1 || b.Read != 4 {
		t.Errorf("Skipped = %d, violations = %d, Read = %d; want 2, 1, 4", b.Skipped, len(b.Violations), b.Read)
	}
}

func TestFromEvents_UnrecognizedEventsAreTypedErrors(t *testing.T) {
	good := shopScaling(t0).audited()
	wrongReason := good[0]
	wrongReason.Reason = "PolicyApplied"
	garbled := good[1]
	garbled.Message = "something else entirely"
	noPolicy := good[1]
	noPolicy.Message = "policy /replicas fail: x"
	tests := []struct {
		name  string
		event corev1.Event
	}{
		{"an event of another reason", wrongReason},
		{"a message of neither shape", garbled},
		{"a message without a policy", noPolicy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := FromEvents(testIndex(), append([]corev1.Event{tt.event}, good...))
			var ue *UnrecognizedError
			if !errors.As(err, &ue) {
				t.Fatalf("err = %v, want an *UnrecognizedError", err)
			}
			if ue.Source != SourceEvent || ue.Name != tt.event.Name || ue.Reason == "" {
				t.Errorf("UnrecognizedError = %+v", ue)
			}
			if code := plan.CodeOf(err); code != 502 {
				t.Errorf("CodeOf = %d, want 502", code)
			}
			if b.Unrecognized != 1 || len(b.Violations) != 1 {
				t.Errorf("Unrecognized = %d, violations = %d; want 1, 1 (the good pair is still read)", b.Unrecognized, len(b.Violations))
			}
		})
	}
}

func TestFromEvents_APolicyEventWithoutRelatedObject(t *testing.T) {
	e := shopScaling(t0).policyEvent(true, t0)
	e.Related = nil
	b, err := FromEvents(testIndex(), []corev1.Event{e})
	if err != nil {
		t.Fatal(err)
	}
	v := b.Violations[0]
	if !v.Blocked || v.Resource.Kind != "Deployment" || v.Resource.Name != "web" || v.Resource.APIVersion != "" {
		t.Errorf("violation = %+v", v)
	}
}

// toV1 converts core/v1 events to events.k8s.io/v1, as the API server
// serves the same events under both.
func toV1(evs []corev1.Event) []eventsv1.Event {
	out := make([]eventsv1.Event, 0, len(evs))
	for _, e := range evs {
		out = append(out, eventsv1.Event{
			ObjectMeta: e.ObjectMeta, EventTime: e.EventTime,
			ReportingController: e.ReportingController, Action: e.Action, Reason: e.Reason,
			Regarding: e.InvolvedObject, Related: e.Related, Note: e.Message, Type: e.Type,
			DeprecatedCount: e.Count, DeprecatedFirstTimestamp: e.FirstTimestamp, DeprecatedLastTimestamp: e.LastTimestamp,
		})
	}
	return out
}

// FuzzFromEvents proves that no event makes the reader panic.
func FuzzFromEvents(f *testing.F) {
	d := shopScaling(t0)
	f.Add("PolicyViolation", d.audited()[0].Message, "Deployment", "shop", "web", true, "kyverno.io/v1")
	f.Add("PolicyViolation", d.audited()[1].Message, "Deployment", "shop", "web", false, "apps/v1")
	f.Add("PolicyViolation", "Scale shop/web: [r] fail (blocked)", "", "", "", false, "kyverno.io/v1")
	f.Fuzz(func(t *testing.T, reason, note, kind, ns, name string, related bool, apiVersion string) {
		e := corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Namespace: ns, Name: "e"},
			InvolvedObject: corev1.ObjectReference{APIVersion: apiVersion, Kind: "Policy", Namespace: ns, Name: "summer-freeze-scaling"},
			Reason:         reason, Message: note, EventTime: metav1.NewMicroTime(t0),
		}
		if related {
			e.Related = &corev1.ObjectReference{Kind: kind, Namespace: ns, Name: name}
		} else {
			e.InvolvedObject = corev1.ObjectReference{APIVersion: apiVersion, Kind: kind, Namespace: ns, Name: name}
		}
		b, err := FromEvents(testIndex(), []corev1.Event{e, e})
		if b.Read != 2 || len(b.Violations)+b.Skipped/2+b.Unrecognized/2 < 1 {
			t.Fatalf("batch %+v, err %v", b, err)
		}
		var ue *UnrecognizedError
		if (err != nil) != errors.As(err, &ue) {
			t.Fatalf("err %v is not an *UnrecognizedError", err)
		}
	})
}

// clusterPolicyAudited is an audited decision of a ClusterPolicy (a
// namespaceSelectors scope): the event on the policy, cluster-scoped, is
// recorded in "default" by client-go; the one on the resource in its
// namespace, naming the policy without a namespace.
func clusterPolicyAudited(d decisionSpec) []corev1.Event {
	pol := d.policyEvent(false, d.at)
	pol.Namespace = metav1.NamespaceDefault
	pol.InvolvedObject.Kind, pol.InvolvedObject.Namespace = "ClusterPolicy", ""
	return []corev1.Event{pol, d.resourceEvent(d.at.Add(40 * time.Microsecond))}
}

func TestFromEvents_ClusterPolicy(t *testing.T) {
	d := shopScaling(t0)
	d.policy = "summer-freeze-scaling-s0"
	idx := NewPolicyIndex(IndexEntry{Name: d.policy, Plan: "summer-freeze", Template: "scaling"})
	b, err := FromEvents(idx, clusterPolicyAudited(d))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Violations) != 1 || b.Skipped != 0 {
		t.Fatalf("an audited decision of a ClusterPolicy's two events are one violation: %d violations, %d skipped: %+v", len(b.Violations), b.Skipped, b.Violations)
	}
	v := b.Violations[0]
	if v.Plan != "summer-freeze" || v.Template != "scaling" || v.Resource.Namespace != "shop" || v.Resource.Name != "web" {
		t.Errorf("violation %+v", v)
	}
	// The resource's event alone is still attributed to the cluster-wide
	// policy; a namespaced policy of that name in the resource's
	// namespace comes first.
	b, _ = FromEvents(idx, clusterPolicyAudited(d)[1:])
	if len(b.Violations) != 1 || b.Violations[0].Plan != "summer-freeze" {
		t.Errorf("the resource's event alone: %+v", b)
	}
}
