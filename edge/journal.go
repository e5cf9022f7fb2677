package edge

import (
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// JournalVersion is the version of the journal's encoding.
const JournalVersion = "edge.protectionplans.telark.io/v1"

// Defaults of Limits, after seed 004.
const (
	DefaultMaxParticipants = 256
	DefaultMaxJournalBytes = 512 << 10
	// JournalKey is the key of the journal in its Secret's data.
	JournalKey = "journal.json"
)

// Limits bound a start. The zero value takes the defaults.
type Limits struct {
	MaxParticipants int
	MaxJournalBytes int
}

func (l Limits) orDefaults() Limits {
	if l.MaxParticipants <= 0 {
		l.MaxParticipants = DefaultMaxParticipants
	}
	if l.MaxJournalBytes <= 0 {
		l.MaxJournalBytes = DefaultMaxJournalBytes
	}
	return l
}

// ObjectRef names an object, with the UID it had when captured.
type ObjectRef struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Namespace  string    `json:"namespace,omitempty"`
	Name       string    `json:"name"`
	UID        types.UID `json:"uid"`
}

func (r ObjectRef) String() string {
	if r.Namespace == "" {
		return r.Kind + " " + r.Name
	}
	return r.Kind + " " + r.Namespace + "/" + r.Name
}

// State is where an entry of the journal stands.
type State string

// Entry states.
const (
	// Pending: captured; the start's patch is not confirmed yet.
	Pending State = "Pending"
	// Applied: the start's patch was confirmed.
	Applied State = "Applied"
	// Restored: the restore was confirmed.
	Restored State = "Restored"
	// Skipped: not changed at the start, or not restored (Reason says why).
	Skipped State = "Skipped"
	// Failed: a restore that retrying will not fix (an ownership conflict);
	// it keeps the journal and blocks the plan's deletion until resolved
	// or abandoned.
	Failed State = "Failed"
)

// Skip is why a Skipped entry was skipped, and at which step.
type Skip string

// Skips. SkipStart is the start's; the others are the restore's.
const (
	// SkipStart: not changed at the start (already at the value, left
	// alone by the action's rules, missing, or its patch refused), so
	// nothing is restored at the end.
	SkipStart Skip = "Start"
	// SkipNotLanded: the start's patch was never confirmed and the object
	// does not hold its value at the end: nothing to restore.
	SkipNotLanded Skip = "NotLanded"
	// SkipMissing: the object is gone at the end.
	SkipMissing Skip = "Missing"
	// SkipReplaced: an object of the same name with another UID stands
	// in its place at the end.
	SkipReplaced Skip = "Replaced"
	// SkipChanged: someone changed the value during the window; it is
	// kept (the action does not overwrite).
	SkipChanged Skip = "Changed"
	// SkipAbandoned: the restore failed and was given up (Abandon).
	SkipAbandoned Skip = "Abandoned"
)

// Entry is one participant of one action.
type Entry struct {
	Action      Name      `json:"action"`
	Target      ObjectRef `json:"target"`
	Subresource string    `json:"subresource,omitempty"`
	// Pointer is the RFC 6901 pointer of the value, in the parent object.
	Pointer string `json:"pointer"`
	// Captured is the value before the window, Desired the value the start
	// writes.
	Captured Value `json:"captured"`
	Desired  Value `json:"desired"`
	// Overwrite restores Captured even over a change made during the window.
	Overwrite bool `json:"overwrite,omitempty"`
	// Force takes the field over from another field manager (Action.Force).
	Force  bool   `json:"force,omitempty"`
	State  State  `json:"state"`
	Reason string `json:"reason,omitempty"`
	// Skip says, of a Skipped entry, at which step it was skipped and
	// why, as a code (Reason says it in words): a report tells a start
	// skipped from a restore skipped by it, never by Reason's text.
	Skip Skip `json:"skip,omitempty"`
	// Attempts counts patches sent for the current step, LastError the
	// last failure.
	Attempts  int    `json:"attempts,omitempty"`
	LastError string `json:"lastError,omitempty"`
}

// Phase is where a journal stands.
type Phase string

// Journal phases.
const (
	// Starting: captured and persisted; start patches not all confirmed.
	Starting Phase = "Starting"
	// Started: every start patch confirmed or skipped; waiting for the end.
	Started Phase = "Started"
	// Restoring: the window ended (or the plan was canceled or deleted);
	// restores not all done.
	Restoring Phase = "Restoring"
	// Done: every entry restored or skipped. The journal can be deleted.
	Done Phase = "Done"
)

// Journal is what a plan's edge actions captured for one window: written
// before any mutation and kept until every restore is done.
type Journal struct {
	Version string    `json:"version"`
	Plan    ObjectRef `json:"plan"`
	// Start is the start of the window occurrence the journal is for: the
	// earliest start known when it was captured (seed 004: "retained in the
	// journal for that occurrence").
	Start time.Time `json:"start"`
	// CapturedAt is when the participants were captured.
	CapturedAt time.Time `json:"capturedAt"`
	Phase      Phase     `json:"phase"`
	// RestoringSince is when the restore began: the first pass after the
	// window (or on cancel or deletion); unset before.
	RestoringSince *time.Time `json:"restoringSince,omitempty"`
	Entries        []Entry    `json:"entries"`
	// AbandonedBy names who gave up the failed restores, when someone did.
	AbandonedBy string `json:"abandonedBy,omitempty"`
}

// Marshal encodes j as its Secret holds it.
func (j Journal) Marshal() ([]byte, error) {
	return json.Marshal(j)
}

// Unmarshal decodes a journal, refusing an unknown version.
func Unmarshal(b []byte) (Journal, error) {
	var j Journal
	if err := json.Unmarshal(b, &j); err != nil {
		return Journal{}, &JournalError{Reason: err.Error()}
	}
	if j.Version != JournalVersion {
		return Journal{}, &JournalError{Reason: fmt.Sprintf("version %q is not %q", j.Version, JournalVersion)}
	}
	return j, nil
}

// SecretName is the name of the Secret holding plan's journal.
func SecretName(plan ObjectRef) string {
	return "edge-journal-" + string(plan.UID)
}

// Label keys of a journal's Secret.
const (
	LabelPlan = "protectionplans.telark.io/edge-journal-of"
)

// JournalSecret is the Secret that holds j, in namespace (the operator's:
// captures are sensitive, seed 004 keeps them in "a private Secret" of the
// controller's namespace), labelled with the plan's UID. It is refused
// with a *LimitError when the journal exceeds limits.MaxJournalBytes. A
// Secret in another namespace than the plan's cannot carry an owner
// reference to it; the plan's finalizer (Decision.Finalizer) keeps it
// instead, and the journal is deleted when Done.
func JournalSecret(namespace string, j Journal, limits Limits) (*corev1.Secret, error) {
	b, err := j.Marshal()
	if err != nil {
		return nil, &JournalError{Reason: err.Error()}
	}
	if l := limits.orDefaults(); len(b) > l.MaxJournalBytes {
		return nil, &LimitError{What: "journal bytes", Got: len(b), Limit: l.MaxJournalBytes}
	}
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      SecretName(j.Plan),
			Namespace: namespace,
			Labels:    map[string]string{LabelPlan: string(j.Plan.UID)},
		},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{JournalKey: b},
	}, nil
}

// JournalOf reads the journal from its Secret; nil when secret is nil.
func JournalOf(secret *corev1.Secret) (*Journal, error) {
	if secret == nil {
		return nil, nil
	}
	b, ok := secret.Data[JournalKey]
	if !ok {
		return nil, &JournalError{Reason: fmt.Sprintf("secret %s/%s has no %s", secret.Namespace, secret.Name, JournalKey)}
	}
	j, err := Unmarshal(b)
	if err != nil {
		return nil, err
	}
	return &j, nil
}

// Finalizer is the finalizer a plan holds while its journal has restores
// pending (Journal.RestoresPending): its deletion waits for them, and its
// spec edits are refused.
const Finalizer = "protectionplans.telark.io/edge-restores"
