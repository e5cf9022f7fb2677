package health

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// Check compares a plan's live policies with its fresh render and returns
// the state of every policy, the conditions, and (when in.Repair) the
// actions that converge the cluster on the render. It is pure: it reads
// its input, changes nothing and never fails; an input it cannot judge (no
// plan, a render that does not fit the plan's phase) gives PoliciesHealthy
// Unknown and no actions, so a caller's mistake never deletes policies.
//
// # General approach
//
// The render is the desired state, keyed by object: group, kind,
// namespace and name. One pass over the live list, skipping what is not
// the plan's (another plan's label, a kind no target renders, a second
// listing of the same object), either finds the rendered object with the
// same key and classifies the pair, or makes the live object unexpected.
// Rendered objects no live object matched are missing. Finding is a
// comparison with the next rendered object while the live list follows the
// render's order (an API server lists by namespace and name, as render
// sorts), and a map built on the first miss otherwise. Each step is
// linear; the cost is in classifying the pairs.
//
// A pair is classified in the cheapest order that stays exact:
//
//  0. If Input.Verified remembers the live object at the same
//     resourceVersion as matching the same render hash, it is ok: it has
//     not been written since.
//  1. If the live object holds the rendered one's fields unchanged, with
//     the same labels and annotations (matchRendered, a walk of two JSON
//     trees), it is ok: render.HashOf covers nothing else, so it would
//     agree. This is the steady state, and costs no hashing.
//  2. If its render-hash annotation differs from the rendered one's, it
//     was rendered from another version of the plan (or lost its
//     annotation): outdated. No hashing either.
//  3. Otherwise the annotation is intact. If the same walk found only
//     labels or annotations that HashOf leaves out changed (another
//     controller added a label), it is ok without hashing; else
//     HashOf(live) tells whether the spec under it is intact too.
//  4. If not, the spec was changed by hand. If the live and rendered
//     failure actions differ (render.FailureAction) and writing the
//     rendered one into a copy of the live object (render.SetFailureAction)
//     gives back the annotated hash, only the failure action changed: it is
//     patched back, with a merge patch of exactly what SetFailureAction
//     changed. Anything else changed too: outdated, and applying the render
//     fixes both.
//
// A policy of several objects takes its most severe object state (missing,
// outdated, action changed, ok). A plan that is not active renders
// nothing, so every live policy of it is unexpected and deleted (R-R7).
func Check(in Input) Result {
	if in.Plan == nil {
		return Result{Conditions: []metav1.Condition{unknownHealthy(nil, in.Now, "no plan to check")}}
	}
	d, problem := newDiff(in)
	r := Result{PlanID: in.Plan.Name, Phase: in.Plan.Status.Phase}
	if problem != "" {
		r.Conditions = conditions(in, unknownHealthy(in.Plan, in.Now, problem))
		return r
	}
	d.compareLive()
	d.compactFaults()
	var sp spread
	r.Policies, r.Summary, sp = d.policies()
	r.Conditions = conditions(in, policiesHealthy(in, r.Summary, sp, templatesAtFaultByState(r.Policies)))
	r.Verified = d.verified()
	if in.Repair {
		r.Actions = d.actions()
	}
	return r
}

// diff is one check in progress.
type diff struct {
	in     Input
	planID string
	// objs are the rendered objects, in render order; find finds them by
	// key: at next when the live list is in render order, as an API
	// server lists them (by namespace and name), else through index,
	// built on the first miss.
	objs  []rendered
	next  int
	index map[objKey]int
	// remembered counts the objects found ok by Input.Verified.
	remembered int
	// faults are the templates at fault of the compact policies, by
	// policy index (compact.go).
	faults map[int][]string
	// strays are the unexpected live objects; seen holds their keys.
	strays []stray
	seen   map[objKey]bool
	// wants are the render's shared lists, prepared for comparisons.
	wants wants
}

// rendered is a rendered object and what the check found for it.
type rendered struct {
	policy int
	key    objKey // once keyed
	keyed  bool
	want   *unstructured.Unstructured
	live   *unstructured.Unstructured // nil: missing
	state  State
	detail string
	patch  *unstructured.Unstructured // for StateActionChanged
	// uid, resourceVersion and renderHash are what Result.Verified
	// remembers of an ok object, read while it is compared.
	uid, resourceVersion, renderHash string
}

// stray is an unexpected live object.
type stray struct {
	live   *unstructured.Unstructured
	target render.Target
	detail string
}

// newDiff indexes the render, or says why the input cannot be judged.
func newDiff(in Input) (*diff, string) {
	d := &diff{in: in, planID: in.Plan.Name, seen: map[objKey]bool{}}
	n := 0
	for _, p := range in.Render.Policies {
		n += len(p.Objects)
	}
	d.objs = make([]rendered, 0, n)
	for i, p := range in.Render.Policies {
		for _, o := range p.Objects {
			d.objs = append(d.objs, rendered{policy: i, want: o, state: StateMissing})
		}
	}
	// A render is of one plan: its first object says which.
	if len(d.objs) > 0 {
		if id := labelOf(d.objs[0].want, render.LabelPlan); id != d.planID {
			return nil, fmt.Sprintf("the render is of plan %q, not of %q", id, d.planID)
		}
	}
	active := in.Plan.Status.Phase == plan.PhaseActive
	switch {
	case active && len(in.Render.Policies) == 0:
		return nil, "the plan is active but its render holds no policies: render the plan before checking it; nothing is changed"
	case !active && in.Plan.Status.Phase != plan.PhaseScheduled && len(in.Render.Policies) > 0:
		// A scheduled plan's render holds policies when they keep time
		// themselves and are put in place ahead of the start
		// (render.Armed, issue 20): they are expected, not unexpected.
		return nil, fmt.Sprintf("the plan is %s but its render holds %d policies: render the plan in its current phase (nothing is rendered outside the window); nothing is changed",
			phaseName(in.Plan.Status.Phase), len(in.Render.Policies))
	}
	return d, ""
}

// compareLive matches every live object of the plan with the render.
//
// Each live object is compared with its render in one go, from keying
// the rendered object to noting what Verified keeps of it: another pass
// over the objects would read them from memory again once the render no
// longer fits in the processor's caches.
func (d *diff) compareLive() {
	remember := d.in.Verified.Len() > 0
	for _, live := range d.in.Live {
		if live == nil {
			continue
		}
		k := keyOf(live)
		if i, ok := d.find(k); ok {
			o := &d.objs[i]
			switch {
			case o.live != nil:
				continue
			case remember && d.in.Verified.verifiedOK(live, annotationOf(o.want, render.AnnotationRenderHash)):
				o.live, o.state = live, StateOK
				d.remembered++
			default:
				switch m := d.wants.match(live, o.want); {
				case m == matchExact: // it carries the plan's label
					o.live, o.state = live, StateOK
				case labelOf(live, render.LabelPlan) == d.planID:
					o.live = live
					o.classify(m)
				}
			}
			if o.state == StateOK {
				md := metadataOf(live)
				o.uid, _ = md["uid"].(string)
				o.resourceVersion, _ = md["resourceVersion"].(string)
				o.renderHash = annotationOf(o.want, render.AnnotationRenderHash)
			}
			continue
		}
		if labelOf(live, render.LabelPlan) != d.planID {
			continue
		}
		target, ok := render.TargetOf(live)
		if !ok || d.seen[k] {
			continue
		}
		d.seen[k] = true
		d.strays = append(d.strays, stray{live: live, target: target, detail: d.strayDetail(live)})
	}
	for i := range d.objs {
		if o := &d.objs[i]; o.live == nil {
			o.detail = describe(o.want) + " is missing"
		}
	}
}

func (d *diff) strayDetail(live *unstructured.Unstructured) string {
	if d.in.Plan.Status.Phase == plan.PhaseActive {
		return describe(live) + " carries the plan's label but is not in its render"
	}
	return describe(live) + " is deployed although " + phaseClause(d.in.Plan.Status.Phase)
}

// find returns the index of the rendered object with key k.
func (d *diff) find(k objKey) (int, bool) {
	if d.next < len(d.objs) && d.keyAt(d.next) == k {
		d.next++
		return d.next - 1, true
	}
	if d.index == nil {
		d.index = make(map[objKey]int, len(d.objs))
		for i := range d.objs {
			d.index[d.keyAt(i)] = i
		}
	}
	i, ok := d.index[k]
	if ok {
		d.next = i + 1
	}
	return i, ok
}

// keyAt is the key of the i-th rendered object, read when first needed:
// in the steady state, just before the object is compared.
func (d *diff) keyAt(i int) objKey {
	o := &d.objs[i]
	if !o.keyed {
		o.key, o.keyed = keyOf(o.want), true
	}
	return o.key
}

// classify decides the state of a rendered object found live that is not
// matchExact (see the General approach of Check); m is how it matched.
func (o *rendered) classify(m match) {
	live, want := o.live, o.want
	wantHash := annotationOf(want, render.AnnotationRenderHash)
	gotHash := annotationOf(live, render.AnnotationRenderHash)
	switch {
	case gotHash == "":
		o.state, o.detail = StateOutdated, describe(live)+" has no render-hash annotation"
		return
	case gotHash != wantHash:
		o.state = StateOutdated
		o.detail = fmt.Sprintf("%s was rendered from another version of the plan (render hash %s, now %s)",
			describe(live), shortHash(gotHash), shortHash(wantHash))
		return
	case m == matchHashed: // HashOf(live) would give wantHash
		o.state = StateOK
		return
	}
	h, err := render.HashOf(live)
	switch {
	case err != nil:
		o.state, o.detail = StateOutdated, fmt.Sprintf("%s cannot be hashed: %v", describe(live), err)
	case h == wantHash:
		o.state = StateOK
	default:
		o.actionOrOutdated(h)
	}
}

// actionOrOutdated classifies a live object changed by hand under an intact
// annotation; h is what it hashes to. An object whose failure action
// render cannot read (render.FailureAction fails: an object that carries
// none, such as a ValidatingAdmissionPolicy whose binding carries it, or a
// value render does not know) can only be outdated.
func (o *rendered) actionOrOutdated(h string) {
	wantHash := annotationOf(o.want, render.AnnotationRenderHash)
	to, err := render.FailureAction(o.want)
	from, err2 := render.FailureAction(o.live)
	if err == nil && err2 == nil && from != to {
		if patch := failureActionPatch(o.live, to, wantHash); patch != nil {
			o.state, o.patch = StateActionChanged, patch
			o.detail = fmt.Sprintf("%s has failure action %s instead of the plan's %s", describe(o.live), from, to)
			return
		}
	}
	o.state = StateOutdated
	o.detail = fmt.Sprintf("%s was changed by hand under its render-hash annotation (it hashes to %s, not %s)",
		describe(o.live), shortHash(h), shortHash(wantHash))
}

// failureActionPatch returns the merge patch that sets live's failure
// action to m, or nil when doing so does not give back wantHash (something
// else changed too) or would touch metadata.
func failureActionPatch(live *unstructured.Unstructured, m plan.Mode, wantHash string) *unstructured.Unstructured {
	fixed := live.DeepCopy()
	if render.SetFailureAction(fixed, m) != nil {
		return nil
	}
	if h, err := render.HashOf(fixed); err != nil || h != wantHash {
		return nil
	}
	delta := mergeDiff(live.Object, fixed.Object)
	delete(delta, "status")
	if _, ok := delta["metadata"]; ok || len(delta) == 0 {
		return nil
	}
	patch := identity(live)
	for k, v := range delta {
		patch.Object[k] = v
	}
	return patch
}

// policies folds object states into policy states, adds the strays, and
// counts them.
func (d *diff) policies() ([]PolicyHealth, Summary, spread) {
	pols := d.in.Render.Policies
	out := make([]PolicyHealth, len(pols), len(pols)+len(d.strays))
	for i, p := range pols {
		out[i] = PolicyHealth{Target: p.Target, Template: p.Template, Namespace: p.Namespace, Name: p.Name, State: StateOK,
			Templates: d.faultTemplates(i)}
	}
	var details [][]string
	for _, o := range d.objs {
		ph := &out[o.policy]
		if o.state.severity() > ph.State.severity() {
			ph.State = o.state
		}
		if o.detail != "" {
			if details == nil {
				details = make([][]string, len(pols))
			}
			details[o.policy] = append(details[o.policy], o.detail)
		}
	}
	for i := range details {
		out[i].Detail = strings.Join(details[i], "; ")
	}
	for _, s := range d.strays {
		out = append(out, PolicyHealth{
			Target: s.target, Template: labelOf(s.live, render.LabelTemplate),
			Namespace: s.live.GetNamespace(), Name: s.live.GetName(),
			State: StateUnexpected, Detail: s.detail,
		})
	}
	sum := Summary{Rendered: len(pols)}
	sp := spread{}
	for _, p := range out {
		sum.add(p.State)
		if p.State != StateOK {
			sp.add(p.State, p.Namespace)
		}
	}
	if len(d.strays) > 0 {
		sortPolicies(out)
	}
	return out, sum, sp
}

// actions are the repairs, sorted.
func (d *diff) actions() []Action {
	var out []Action
	for _, o := range d.objs {
		switch o.state {
		case StateMissing, StateOutdated:
			out = append(out, Action{Kind: Apply, Object: o.want.DeepCopy(), Reason: o.detail})
		case StateActionChanged:
			out = append(out, Action{Kind: PatchFailureAction, Object: o.patch, Reason: o.detail})
		}
	}
	for _, s := range d.strays {
		out = append(out, Action{Kind: Delete, Object: identity(s.live), Reason: s.detail})
	}
	sortActions(out)
	return out
}

// describe names an object for people: "Policy shop/summer-freeze-scaling".
func describe(o *unstructured.Unstructured) string {
	if ns := o.GetNamespace(); ns != "" {
		return o.GetKind() + " " + ns + "/" + o.GetName()
	}
	return o.GetKind() + " " + o.GetName()
}

// shortHash shortens "sha256:<64 hex>" to its first 12 hex digits.
func shortHash(h string) string {
	if i := strings.IndexByte(h, ':'); i >= 0 && len(h) > i+13 {
		return h[:i+13]
	}
	return h
}
