package edge

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/window"
)

// DefaultFieldManager is the field manager of the patches when
// Input.FieldManager is empty.
const DefaultFieldManager = "protectionplans-edge"

// Scope is what the plan covers, resolved by the embedder.
type Scope struct {
	// Namespaces are the namespaces in scope.
	Namespaces []string
	// Selector, when not nil, narrows the objects of those namespaces to an
	// applications scope's members. Argo CD and Flux objects, which live
	// outside the scope and deploy into it, are matched by their target
	// namespace, not by it.
	Selector labels.Selector
	// Members, when not empty, narrow the objects of those namespaces to
	// any of several selections: an applications scope of several
	// applications, each with its own namespaces and selector. An object
	// is in scope when one member has its namespace and matches it (a nil
	// member selector matches every object of its namespaces). Selector
	// then applies too, when set.
	Members []Member
}

// Member is one application of an applications scope: its namespaces and
// the selector of its resources.
type Member struct {
	Namespaces []string
	Selector   labels.Selector
}

// Input is what Decide needs of one pass.
type Input struct {
	Plan    ObjectRef
	Actions []Action
	Scope   Scope
	// Active is the window interval that contains Now, nil when the plan
	// is not active (between occurrences, ended, canceled, being deleted).
	Active *window.Interval
	// Journal is the journal as persisted, nil when there is none.
	Journal *Journal
	// Live are the objects of Kinds(Actions) the embedder listed this pass
	// (a Deployment's replicas are read from the Deployment: its /scale
	// reports the same spec.replicas).
	Live         []*unstructured.Unstructured
	Limits       Limits
	FieldManager string
	Now          time.Time
}

// Patch is one write to send: a server-side apply of Body (JSON, which is
// YAML) to Target (or its Subresource) under FieldManager, forced only
// when its action says Force.
// Its result goes back through Record.
type Patch struct {
	// Entry is the index of the journal entry the patch is for.
	Entry        int       `json:"entry"`
	Target       ObjectRef `json:"target"`
	Subresource  string    `json:"subresource,omitempty"`
	Restore      bool      `json:"restore"`
	FieldManager string    `json:"fieldManager"`
	// Force is server-side apply's force: set only when the action says
	// so (Action.Force).
	Force bool            `json:"force,omitempty"`
	Body  json.RawMessage `json:"body"`
}

// Decision is what a pass does about a plan's edge actions.
type Decision struct {
	// Journal, when not nil, is persisted (JournalSecret) before any of
	// Patches is sent; when its persisting fails, no patch is sent.
	Journal *Journal
	// DeleteJournal: every restore is done; the journal's Secret goes.
	DeleteJournal bool
	// Finished, with DeleteJournal, is the journal as it ended: every
	// action and restore with its outcome, for the report and events.
	Finished *Journal
	Patches  []Patch
	// Finalizer says whether the plan must hold its restore finalizer.
	Finalizer bool
}

// Decide decides a pass: start (capture, journal, patches) at the first
// pass in an active window, finish a start interrupted by a crash, restore
// at the end, and nothing in between. Its error is a *LimitError (before
// any mutation) or a *JournalError.
func Decide(in Input) (Decision, error) {
	if in.FieldManager == "" {
		in.FieldManager = DefaultFieldManager
	}
	live := indexLive(in.Live)
	if j := in.Journal; j != nil {
		if j.Version != JournalVersion {
			return Decision{Finalizer: true}, &JournalError{Reason: fmt.Sprintf("version %q is not %q", j.Version, JournalVersion)}
		}
		switch {
		case j.Phase == Done:
			return Decision{DeleteJournal: true, Finished: j}, nil
		case (j.Phase == Starting || j.Phase == Started) && sameWindow(*j, in.Active, in.Now):
			return continueStart(cloneJournal(*j), live, in.FieldManager), nil
		default:
			return restore(cloneJournal(*j), live, in.FieldManager, in.Now), nil
		}
	}
	if in.Active == nil || len(in.Actions) == 0 {
		return Decision{}, nil
	}
	return start(in, live)
}

// sameWindow reports whether a journal started in the interval active now.
// Occurrences that overlap or touch are merged into one interval, so a
// journal started anywhere in it belongs to it.
func sameWindow(j Journal, active *window.Interval, now time.Time) bool {
	if active == nil || j.Start.After(now) {
		return false
	}
	return active.OpenStart || !j.Start.Before(active.Start)
}

type liveIndex struct {
	byName map[nameKey]*unstructured.Unstructured
}

type nameKey struct {
	gk        schema.GroupKind
	namespace string
	name      string
}

func indexLive(objs []*unstructured.Unstructured) liveIndex {
	ix := liveIndex{byName: make(map[nameKey]*unstructured.Unstructured, len(objs))}
	for _, o := range objs {
		if o == nil {
			continue
		}
		ix.byName[nameKey{o.GroupVersionKind().GroupKind(), o.GetNamespace(), o.GetName()}] = o
	}
	return ix
}

func (ix liveIndex) get(r ObjectRef) *unstructured.Unstructured {
	gv, _ := schema.ParseGroupVersion(r.APIVersion)
	return ix.byName[nameKey{schema.GroupKind{Group: gv.Group, Kind: r.Kind}, r.Namespace, r.Name}]
}

func refOf(o *unstructured.Unstructured) ObjectRef {
	return ObjectRef{APIVersion: o.GetAPIVersion(), Kind: o.GetKind(), Namespace: o.GetNamespace(), Name: o.GetName(), UID: o.GetUID()}
}

func start(in Input, live liveIndex) (Decision, error) {
	var entries []Entry
	for _, a := range in.Actions {
		d, ok := Lookup(a.Name)
		if !ok {
			continue // Validate refuses unknown names before a plan gets here
		}
		var part []Entry
		for _, o := range in.Live {
			if o == nil || !touches(d, o.GroupVersionKind().GroupKind()) || !inScope(d.Name, o, in.Scope) {
				continue
			}
			part = append(part, participant(a, d, o, in.Live))
		}
		slices.SortFunc(part, func(x, y Entry) int {
			return cmp.Or(cmp.Compare(x.Target.Kind, y.Target.Kind), cmp.Compare(x.Target.Namespace, y.Target.Namespace), cmp.Compare(x.Target.Name, y.Target.Name))
		})
		entries = append(entries, part...)
	}
	limits := in.Limits.orDefaults()
	if len(entries) > limits.MaxParticipants {
		return Decision{}, &LimitError{What: "participants", Got: len(entries), Limit: limits.MaxParticipants}
	}
	j := Journal{Version: JournalVersion, Plan: in.Plan, Start: in.Active.Start, CapturedAt: in.Now, Phase: Starting, Entries: entries}
	if b, err := j.Marshal(); err != nil {
		return Decision{}, &JournalError{Reason: err.Error()}
	} else if len(b) > limits.MaxJournalBytes {
		return Decision{}, &LimitError{What: "journal bytes", Got: len(b), Limit: limits.MaxJournalBytes}
	}
	d := Decision{Finalizer: true}
	for i, e := range j.Entries {
		if e.State == Pending {
			p, err := patchFor(i, e, e.Desired, nil, in.FieldManager)
			if err != nil {
				return Decision{}, err
			}
			d.Patches = append(d.Patches, p)
		}
	}
	if len(d.Patches) == 0 {
		j.Phase = Started
	}
	d.Journal = &j
	return d, nil
}

func touches(d Definition, gk schema.GroupKind) bool {
	for _, t := range d.Touches {
		if t.GVK.GroupKind() == gk {
			return true
		}
	}
	return false
}

func touchOf(d Definition, gk schema.GroupKind) Touch {
	for _, t := range d.Touches {
		if t.GVK.GroupKind() == gk {
			return t
		}
	}
	return Touch{}
}

func inScope(name Name, o *unstructured.Unstructured, s Scope) bool {
	switch name {
	case PauseArgoCDSync:
		ns, _, _ := unstructured.NestedString(o.Object, "spec", "destination", "namespace")
		return slices.Contains(s.Namespaces, ns)
	case SuspendFlux:
		ns, _, _ := unstructured.NestedString(o.Object, "spec", "targetNamespace")
		if ns == "" {
			ns = o.GetNamespace()
		}
		return slices.Contains(s.Namespaces, ns)
	}
	if !slices.Contains(s.Namespaces, o.GetNamespace()) {
		return false
	}
	set := labels.Set(o.GetLabels())
	if s.Selector != nil && !s.Selector.Matches(set) {
		return false
	}
	if len(s.Members) == 0 {
		return true
	}
	for _, m := range s.Members {
		if slices.Contains(m.Namespaces, o.GetNamespace()) && (m.Selector == nil || m.Selector.Matches(set)) {
			return true
		}
	}
	return false
}

// participant captures o for action a: the entry is Pending (to patch) or
// Skipped with the reason.
func participant(a Action, d Definition, o *unstructured.Unstructured, all []*unstructured.Unstructured) Entry {
	t := touchOf(d, o.GroupVersionKind().GroupKind())
	captured, _ := lookup(o.Object, t.Pointer) // catalog pointers are valid
	e := Entry{Action: a.Name, Target: refOf(o), Subresource: t.Subresource, Pointer: t.Pointer, Captured: captured, Overwrite: a.Overwrite, Force: a.Force, State: Pending}
	skip := func(why string) Entry { e.State, e.Reason, e.Skip = Skipped, why, SkipStart; return e }
	if o.GetDeletionTimestamp() != nil {
		return skip("being deleted")
	}
	switch a.Name {
	case SuspendCronJobs, SuspendFlux:
		e.Desired = valueOf(true)
		if captured.Equal(e.Desired) {
			return skip("already suspended: stays suspended, and is not touched at the end")
		}
	case PauseArgoCDSync:
		if automated, _ := lookup(o.Object, "/spec/syncPolicy/automated"); !automated.Present || string(automated.JSON) == "null" {
			return skip("no automated sync to pause")
		}
		for _, ref := range o.GetOwnerReferences() {
			if ref.Kind == "ApplicationSet" {
				return skip(fmt.Sprintf("owned by ApplicationSet %s, whose controller rewrites the Application from its template: pause its generator or template instead", ref.Name))
			}
		}
		e.Desired = valueOf(false)
		if captured.Equal(e.Desired) {
			return skip("automated sync already disabled: stays so")
		}
	case ScaleTo:
		e.Desired = valueOf(*a.Replicas)
		if hpa := hpaFor(o, all); hpa != "" {
			return skip(fmt.Sprintf("scaled by HorizontalPodAutoscaler %s, which would undo the scale: left alone", hpa))
		}
		if captured.Equal(e.Desired) {
			return skip(fmt.Sprintf("already at %s replicas", captured))
		}
	}
	return e
}

// hpaFor names the HorizontalPodAutoscaler of o's namespace that targets o.
func hpaFor(o *unstructured.Unstructured, all []*unstructured.Unstructured) string {
	for _, h := range all {
		if h == nil || h.GroupVersionKind().GroupKind() != HPA.GroupKind() || h.GetNamespace() != o.GetNamespace() {
			continue
		}
		kind, _, _ := unstructured.NestedString(h.Object, "spec", "scaleTargetRef", "kind")
		name, _, _ := unstructured.NestedString(h.Object, "spec", "scaleTargetRef", "name")
		apiVersion, _, _ := unstructured.NestedString(h.Object, "spec", "scaleTargetRef", "apiVersion")
		gv, _ := schema.ParseGroupVersion(apiVersion)
		if kind == o.GetKind() && name == o.GetName() && gv.Group == o.GroupVersionKind().Group {
			return h.GetName()
		}
	}
	return ""
}

// check compares an entry's target with its live object: "" when it is the
// same object, else why it is not, in words and as the restore's Skip.
func check(e Entry, live liveIndex) (*unstructured.Unstructured, string, Skip) {
	o := live.get(e.Target)
	switch {
	case o == nil:
		return nil, "missing", SkipMissing
	case o.GetUID() != e.Target.UID:
		return nil, fmt.Sprintf("replaced (uid %s, now %s)", e.Target.UID, o.GetUID()), SkipReplaced
	}
	return o, "", ""
}

func continueStart(j Journal, live liveIndex, manager string) Decision {
	d := Decision{Finalizer: true}
	changed := false
	for i := range j.Entries {
		e := &j.Entries[i]
		if e.State != Pending {
			continue
		}
		o, gone, _ := check(*e, live)
		if gone != "" {
			e.State, e.Reason, e.Skip, changed = Skipped, gone+" before the start's patch", SkipStart, true
			continue
		}
		v, _ := lookup(o.Object, e.Pointer)
		if v.Equal(e.Desired) {
			// Patched before a crash kept the journal from saying so.
			e.State, changed = Applied, true
			continue
		}
		p, err := patchFor(i, *e, e.Desired, nil, manager)
		if err != nil {
			e.State, e.Reason, e.Skip, changed = Skipped, err.Error(), SkipStart, true
			continue
		}
		d.Patches = append(d.Patches, p)
	}
	if len(d.Patches) == 0 && j.Phase == Starting {
		j.Phase, changed = Started, true
	}
	if changed {
		d.Journal = &j
	}
	return d
}

func restore(j Journal, live liveIndex, manager string, now time.Time) Decision {
	d := Decision{Finalizer: true}
	changed := j.Phase != Restoring
	if j.Phase != Restoring {
		j.RestoringSince = &now
	}
	j.Phase = Restoring
	for i := range j.Entries {
		e := &j.Entries[i]
		if e.State != Applied && e.State != Pending {
			continue
		}
		o, gone, skip := check(*e, live)
		if gone != "" {
			e.State, e.Reason, e.Skip, changed = Skipped, gone+" at the end: nothing restored", skip, true
			continue
		}
		v, _ := lookup(o.Object, e.Pointer)
		if !v.Equal(e.Desired) {
			switch {
			case e.State == Pending:
				e.State, e.Reason, e.Skip = Skipped, "the start's patch never landed: nothing to restore", SkipNotLanded
				changed = true
				continue
			case !e.Overwrite:
				e.State, e.Reason, e.Skip = Skipped, fmt.Sprintf("changed during the window to %s: kept (the action does not overwrite; captured %s)", v, e.Captured), SkipChanged
				changed = true
				continue
			}
		}
		rv := o.GetResourceVersion()
		p, err := patchFor(i, *e, e.Captured, &rv, manager)
		if err != nil {
			e.State, e.Reason, changed = Failed, err.Error(), true
			continue
		}
		p.Restore = true
		d.Patches = append(d.Patches, p)
	}
	if len(d.Patches) == 0 && settled(j) {
		if !failed(j) {
			j.Phase = Done
			return Decision{DeleteJournal: true, Finished: &j}
		}
	}
	if changed {
		d.Journal = &j
	}
	return d
}

func settled(j Journal) bool {
	for _, e := range j.Entries {
		if e.State == Pending || e.State == Applied {
			return false
		}
	}
	return true
}

func failed(j Journal) bool {
	for _, e := range j.Entries {
		if e.State == Failed {
			return true
		}
	}
	return false
}

// patchFor builds the apply configuration that sets e's value to v. A
// resourceVersion, when given, makes the write conditional; the recorded
// uid always does.
func patchFor(i int, e Entry, v Value, resourceVersion *string, manager string) (Patch, error) {
	body, err := nest(e.Pointer, v)
	if err != nil {
		return Patch{}, err
	}
	apiVersion, kind := e.Target.APIVersion, e.Target.Kind
	if e.Subresource == "scale" {
		apiVersion, kind = scaleGVK.GroupVersion().String(), scaleGVK.Kind
	}
	md := map[string]any{"name": e.Target.Name, "uid": string(e.Target.UID)}
	if e.Target.Namespace != "" {
		md["namespace"] = e.Target.Namespace
	}
	if resourceVersion != nil && *resourceVersion != "" {
		md["resourceVersion"] = *resourceVersion
	}
	body["apiVersion"], body["kind"], body["metadata"] = apiVersion, kind, md
	b, err := json.Marshal(body)
	if err != nil {
		return Patch{}, err
	}
	return Patch{Entry: i, Target: e.Target, Subresource: e.Subresource, FieldManager: manager, Force: e.Force, Body: b}, nil
}

func cloneJournal(j Journal) Journal {
	j.Entries = slices.Clone(j.Entries)
	return j
}
