//go:build e2e

package matrix

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/window"
)

// A scope of the matrix: one namespace, at most one plan on it, and the
// object sets the doors run against.
type scope struct {
	ns string
	// plan is the plan freezing the namespace (nil: no plan, the change is
	// out of every scope).
	plan *plan.ProtectionPlan
	// sets are the object sets: the first in the plan's scope, a second
	// ("o-") belonging to another application.
	sets []objSet
	// dry runs the doors as server dry-runs where they can be. The audit
	// scopes make real requests (kyverno, kyverno-cel): their objects are
	// theirs alone, and only real requests leave PolicyReports (recorded
	// as fixtures). Under vap they make dry-runs too: a real create,
	// delete or relabel changes an application's members, which the vap
	// render names (the /scale of members), so the operator would rightly
	// re-render during the steady-state check; and vap leaves no report.
	dry bool
}

// templates of the catalog, in display order.
func catalogNames() []string {
	var names []string
	for _, t := range render.Catalog() {
		names = append(names, t.Name())
	}
	return names
}

// matrixPlan is a plan as kubectl apply would store it: no status, no
// approvalMode (the operator derives automatic), a permanent window.
func matrixPlan(id, display string, mode plan.Mode, sc plan.Scope, ex plan.Exclusions, templates ...string) *plan.ProtectionPlan {
	p := &plan.ProtectionPlan{
		TypeMeta:   metav1.TypeMeta{APIVersion: plan.GroupVersion.String(), Kind: plan.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: id, Annotations: map[string]string{plan.CreatedByAnnotation: "e2e-author"}},
		Spec: plan.Spec{
			Name: display + tgt.suffix, Description: "end-to-end matrix", Scope: sc, Exclusions: ex,
			Window: window.Spec{Type: window.Permanent}, Mode: mode,
		},
	}
	for _, t := range templates {
		p.Spec.Templates = append(p.Spec.Templates, plan.TemplateRef{Name: t})
	}
	return p
}

// matrixScopes are the scopes of the target under test (tgt): namespaces,
// plan IDs and applications carry its prefix.
func matrixScopes() []scope {
	all := catalogNames()
	id := tgt.id
	nsScope := func(ns string) plan.Scope { return plan.Scope{Namespaces: []string{id(ns)}} }
	appScope := func(app string) plan.Scope { return plan.Scope{Applications: []string{id(app)}} }
	in := func(app, peer string) objSet { return objSet{app: id(app), peer: id(peer)} }
	other := func(app, peer string) objSet { return objSet{prefix: "o-", app: id(app), peer: id(peer)} }
	free := objSet{peer: "elsewhere"}
	audit := tgt.vap() // see scope.dry
	return []scope{
		{ns: id("mx-ns-enforce"), dry: true, sets: []objSet{free},
			plan: matrixPlan(id("mx-ns-enforce"), "Matrix namespaces enforce", plan.ModeEnforce, nsScope("mx-ns-enforce"), plan.Exclusions{}, all...)},
		{ns: id("mx-ns-audit"), dry: audit, sets: []objSet{free},
			plan: matrixPlan(id("mx-ns-audit"), "Matrix namespaces audit", plan.ModeAudit, nsScope("mx-ns-audit"), plan.Exclusions{}, all...)},
		{ns: id("mx-app-enforce"), dry: true, sets: []objSet{in("shop-enforce", "search-enforce"), other("search-enforce", "shop-enforce")},
			plan: matrixPlan(id("mx-app-enforce"), "Matrix applications enforce", plan.ModeEnforce, appScope("shop-enforce"), plan.Exclusions{}, all...)},
		{ns: id("mx-app-audit"), dry: audit, sets: []objSet{in("shop-audit", "search-audit"), other("search-audit", "shop-audit")},
			plan: matrixPlan(id("mx-app-audit"), "Matrix applications audit", plan.ModeAudit, appScope("shop-audit"), plan.Exclusions{}, all...)},
		{ns: id("mx-excl-ns"), dry: true, sets: []objSet{free},
			plan: matrixPlan(id("mx-excl-ns"), "Matrix excluded kinds", plan.ModeEnforce, nsScope("mx-excl-ns"),
				plan.Exclusions{Kinds: []string{"StatefulSet", "ConfigMap"}},
				"scaling", "image-change", "configmap-edits", "all-writes")},
		{ns: id("mx-excl-app"), dry: true, sets: []objSet{in("shop-excl", "elsewhere")},
			plan: matrixPlan(id("mx-excl-app"), "Matrix excluded resources", plan.ModeEnforce, appScope("shop-excl"),
				plan.Exclusions{Resources: []plan.ResourceRef{
					{Kind: "Deployment", Namespace: id("mx-excl-app"), Name: "d-image"},
					{Kind: "Deployment", Namespace: id("mx-excl-app"), Name: "d-delete"},
					{Kind: "Deployment", Namespace: id("mx-excl-app"), Name: "d-scale"},
					{Kind: "DaemonSet", Namespace: id("mx-excl-app"), Name: "ds-restart"},
				}},
				"image-change", "delete", "rollout-restart", "scaling", "all-writes")},
		{ns: id("mx-free"), dry: true, sets: []objSet{free}},
	}
}

// intendedDoors are the doors each template must catch in a scope with no
// exclusions: what the catalog promises (render/templates_*.go), written
// down independently of both Explain and the admission chain.
var intendedDoors = map[string][]string{
	"create":          {"deployment-create", "pvc-create"},
	"delete":          {"deployment-delete", "service-delete", "pvc-delete"},
	"image-change":    {"image-deployment", "image-deployment-init", "image-statefulset", "image-daemonset", "image-cronjob", "image-pod", "image-pod-init", "debug-pod"},
	"scaling":         {"scale-kubectl", "scale-subresource", "scale-sts-kubectl", "replicas-patch"},
	"configmap-edits": {"configmap-edit", "configmap-delete"},
	"secret-edits":    {"secret-edit", "secret-delete"},
	"storage":         {"pvc-create", "pvc-delete", "pvc-resize"},
	"rollout-restart": {"restart-deployment", "restart-daemonset"},
	// all-writes: every door but those on Pods (not in its default kinds).
}

// guardDoors move a Deployment of the application out of it: its
// instance label removed, or set to another application's value.
var guardDoors = []string{"unlabel-deployment", "relabel-deployment"}

// deploymentTemplates are the templates whose default kinds include
// Deployment: in an applications scope, each one's policy carries a scope
// guard over its kinds, so each refuses moving a Deployment out.
var deploymentTemplates = []string{"create", "delete", "image-change", "scaling", "rollout-restart", "all-writes"}

// intended says whether template t of sc's plan must catch door d on set o.
func intended(sc scope, o objSet, t string, d door) bool {
	if sc.plan == nil {
		return false // no plan
	}
	ex := sc.plan.Spec.Exclusions
	if slices.Contains(ex.Kinds, d.gvk.Kind) {
		return false
	}
	for _, r := range ex.Resources {
		if r.Kind == d.gvk.Kind && r.Namespace == sc.ns && r.Name == o.name(d.base) {
			return false
		}
	}
	apps := sc.plan.Spec.Scope.Type() == plan.ScopeApplications
	if o.prefix != "" {
		// Another application's objects are out of scope, but for the one
		// moved into the frozen application: the request's new object is
		// in scope, and all-writes freezes every update there.
		return apps && d.id == "relabel-deployment" && o.peer == sc.plan.Spec.Scope.Applications[0] && t == "all-writes"
	}
	if apps && slices.Contains(guardDoors, d.id) {
		return slices.Contains(deploymentTemplates, t)
	}
	if t == "all-writes" {
		return d.gvk.Kind != "Pod"
	}
	return slices.Contains(intendedDoors[t], d.id)
}

// verdict is what one source says of one request: which templates refuse
// it (blocked) or record it (audited).
type verdict struct {
	blocked, audited []string
	err              string // an error that is no policy's refusal
}

func (v verdict) String() string {
	switch {
	case v.err != "":
		return "ERROR: " + v.err
	case len(v.blocked) > 0 && len(v.audited) > 0:
		return "blocked: " + strings.Join(v.blocked, ", ") + "; audited: " + strings.Join(v.audited, ", ")
	case len(v.blocked) > 0:
		return "blocked: " + strings.Join(v.blocked, ", ")
	case len(v.audited) > 0:
		return "admitted, audited: " + strings.Join(v.audited, ", ")
	}
	return "admitted"
}

func (v verdict) equal(w verdict) bool {
	return v.err == "" && w.err == "" && slices.Equal(v.blocked, w.blocked) && slices.Equal(v.audited, w.audited)
}

// mcase is one row of the matrix.
type mcase struct {
	sc   scope
	set  objSet
	door door
	name string // the object's name
	req  render.Request
	// intended, explained and live are the three answers: the table's,
	// render.Explain's, and the admission chain's (Kyverno, or the API
	// server for vap); messages are Explain's messages by template.
	intended, explained, live verdict
	messages, rules           map[string]string // by template: Explain's message and rule
	refusal                   string            // the refusal's text
	refusedBy                 []string          // the templates the refusal names
	warnings                  []string          // the warnings the request returned
	took                      time.Duration
}

func (c *mcase) ok() bool {
	return c.intended.equal(c.explained) && c.explained.equal(c.live)
}

// testMatrix runs every door of every scope for the target under test
// (tgt), with the operator of that target putting the plans in place.
func testMatrix(t *testing.T) {
	ctx := t.Context()
	scopes := matrixScopes()
	start := time.Now()

	// 1. Namespaces and fixtures, before any plan (the create template
	// would refuse them).
	if err := createStorageClass(ctx, s.c); err != nil {
		t.Fatal(err)
	}
	var members []plan.LabeledObject
	var wg sync.WaitGroup
	nsets := 0
	for _, sc := range scopes {
		nsets += len(sc.sets)
	}
	errs := make(chan error, nsets)
	for _, sc := range scopes {
		if err := createNamespace(ctx, s.c, sc.ns); err != nil {
			t.Fatal(err)
		}
		for _, o := range sc.sets {
			for _, obj := range o.objects(sc.ns) {
				if l := obj.GetLabels()[plan.InstanceLabel]; l != "" {
					gvk, _ := s.c.GroupVersionKindFor(obj)
					members = append(members, plan.LabeledObject{Kind: gvk.Kind, Namespace: sc.ns, Name: obj.GetName(), Labels: obj.GetLabels()})
				}
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- createObjects(ctx, s.c, sc.ns, o)
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("fixtures: %d namespaces, %d objects per set, in %s", len(scopes), len(scopes[0].sets[0].objects("x")), time.Since(start).Round(time.Millisecond))

	// 2. The plans, created as kubectl would, put in place by the operator.
	var plans []*plan.ProtectionPlan
	for _, sc := range scopes {
		if sc.plan != nil {
			if err := s.c.Create(ctx, sc.plan.DeepCopy()); err != nil {
				t.Fatal(err)
			}
			plans = append(plans, sc.plan)
		}
	}
	created := time.Now()
	live := waitPlansInPlace(t, plans, 2*time.Minute)
	npol := 0
	for _, p := range live {
		npol += len(p.Status.Policies)
	}
	t.Logf("%d plans active with their %d %s policies in force %s after they were created", len(plans), npol, tgt.target, time.Since(created).Round(time.Millisecond))
	waitCanaries(t, scopes)
	t.Logf("the admission chain enforces them (canaries refused) %s after the plans were created", time.Since(created).Round(time.Millisecond))

	// The steady state: from now on, the operator must write nothing. (The
	// counter is not blind: it saw the writes that put the plans in place.)
	quietFrom := time.Now()
	t.Logf("the operator wrote %d times to put the %d plans in place (specs, policies, status, events)",
		len(s.run.writes.since(created)), len(plans))
	passesBefore := s.run.op.Passes()

	// 3. Every door of every scope.
	resolver := plan.InstanceLabelResolver{Objects: members}
	cases := runDoors(t, scopes, live, resolver)

	// 4. Kyverno's PolicyViolation events. Under kyverno and kyverno-cel
	// they are the answer for audited changes. Under kyverno-cel they are
	// also the answer for refused ones: every NamespacedValidatingPolicy
	// has a webhook of its own, the API server calls them all and its
	// refusal quotes the first that denied, while Kyverno records an
	// event for every policy that did. (Under vap, runCase read the
	// warnings and the API server's counters.)
	if !tgt.vap() {
		var planNS []string
		for _, sc := range scopes {
			if sc.plan != nil {
				planNS = append(planNS, sc.ns)
			}
		}
		audited, blocked := decisionsByEvents(t, planNS, policyIndex(t))
		for _, c := range cases {
			if c.sc.plan == nil || c.live.err != "" {
				continue
			}
			key := c.sc.ns + "/" + c.name
			switch {
			case c.sc.plan.Spec.Mode == plan.ModeAudit:
				c.live.audited = audited[key]
			case tgt.target == render.TargetKyvernoCEL:
				celBlocked(c, blocked[key])
			}
		}
	}

	// 5. The table, and every disagreement as an error.
	table := matrixTable(cases)
	t.Log("\n" + table)
	if err := os.WriteFile(filepath.Join(s.env.Dir, "matrix-"+string(tgt.target)+".md"), []byte(table), 0o644); err != nil {
		t.Error(err)
	}
	bad := 0
	for _, c := range cases {
		if !c.ok() {
			bad++
			t.Errorf("%s %s on %s/%s: intended %s; Explain %s; live %s\n  refusal: %s\n  warnings: %q",
				c.sc.ns, c.door.id, c.sc.ns, c.name, c.intended, c.explained, c.live, c.refusal, c.warnings)
		}
		checkMessages(t, c)
	}
	t.Logf("matrix (%s): %d cases, %d disagreements, doors run in %s", tgt.target, len(cases), bad, time.Since(quietFrom).Round(time.Millisecond))
	summary(t, cases, bad)
	coverage(t, cases)

	// 6. The violations reach the ledgers and the feed, with the plans'
	// messages (under vap: nothing does, and the test says so).
	checkLedgers(t, cases, scopes)

	// 7. No write by the operator while all this ran (its plans were
	// healthy and active throughout).
	passes := s.run.op.Passes() - passesBefore
	quiet := time.Since(quietFrom)
	if w := s.run.writes.since(quietFrom); len(w) > 0 {
		t.Errorf("the operator wrote %d times in the steady state: %v", len(w), w)
	}
	t.Logf("steady state: 0 writes by the operator in %s (%d passes, ~%d ticks of %s; %d Lease renewals) while %d admission requests ran",
		quiet.Round(time.Millisecond), passes, int(quiet/tick), tick, s.run.writes.leaseWrites(quietFrom), len(cases))
	if passes < 5 {
		t.Errorf("only %d passes in %s: the steady state was not observed over enough ticks", passes, quiet)
	}

	if recordTarget(tgt.target) {
		recordFixtures(t, cases)
	}
}

// waitPlansInPlace waits until every plan is active, healthy, and each of
// its rendered policies is in force (targetSpec.ready); it returns the
// plans as stored.
func waitPlansInPlace(t *testing.T, plans []*plan.ProtectionPlan, timeout time.Duration) map[string]*plan.ProtectionPlan {
	t.Helper()
	out := map[string]*plan.ProtectionPlan{}
	eventually(t, timeout, "the matrix plans active, healthy and their policies in force", func() (string, bool) {
		for _, want := range plans {
			p := &plan.ProtectionPlan{}
			if err := s.c.Get(t.Context(), types.NamespacedName{Name: want.Name}, p); err != nil {
				return err.Error(), false
			}
			if p.Status.Phase != plan.PhaseActive {
				return fmt.Sprintf("plan %s is %q (%v)", p.Name, p.Status.Phase, p.Status.Conditions), false
			}
			if c := findCondition(p, plan.ConditionPoliciesHealthy); c == nil || c.Status != metav1.ConditionTrue {
				return fmt.Sprintf("plan %s: PoliciesHealthy %v", p.Name, c), false
			}
			if len(p.Status.Policies) != len(p.Spec.Templates) {
				return fmt.Sprintf("plan %s: %d policies for %d templates", p.Name, len(p.Status.Policies), len(p.Spec.Templates)), false
			}
			for _, ps := range p.Status.Policies {
				if ready, why := tgt.ready(t.Context(), ps.Namespace, ps.Name); !ready {
					return fmt.Sprintf("policy %s/%s: %s", ps.Namespace, ps.Name, why), false
				}
			}
			out[p.Name] = p
		}
		return "", true
	})
	return out
}

// waitCanaries waits until the admission chain refuses a server dry-run of
// each kind of request the matrix makes in the enforce scopes: Kyverno
// updates its webhook configurations asynchronously after a policy is
// ready, and the API server loads ValidatingAdmissionPolicies from an
// informer.
func waitCanaries(t *testing.T, scopes []scope) {
	t.Helper()
	x := &runner{s: s}
	canaries := []string{"replicas-patch", "scale-kubectl", "scale-sts-kubectl", "image-cronjob", "image-pod", "configmap-label", "secret-edit", "pvc-resize", "service-delete", "label-deployment"}
	sc := scopes[0] // mx-ns-enforce: all templates
	for _, id := range canaries {
		d := doorByID(id)
		eventually(t, time.Minute, "the admission chain refusing the canary "+id, func() (string, bool) {
			err := d.run(t.Context(), x, sc.ns, sc.sets[0].name(d.base), sc.sets[0], true)
			if err != nil && refused(err.Error()) {
				return "", true
			}
			return fmt.Sprint(err), false
		})
	}
	// The enforce applications scopes' canary: a label change of a
	// member, which all-writes refuses there.
	for _, sc := range scopes {
		if sc.plan == nil || sc.plan.Spec.Mode != plan.ModeEnforce || sc.plan.Spec.Scope.Type() != plan.ScopeApplications {
			continue
		}
		d := doorByID("label-deployment")
		eventually(t, time.Minute, "the admission chain refusing a label change in "+sc.ns, func() (string, bool) {
			err := d.run(t.Context(), x, sc.ns, sc.sets[0].name(d.base), sc.sets[0], true)
			return fmt.Sprint(err), err != nil && refused(err.Error())
		})
	}
	time.Sleep(2 * time.Second) // the other webhook configuration, if any
}

// runDoors runs every door of every scope, the scopes in parallel (four at
// a time), the doors of a scope one after the other. Under vap the scopes
// go in lockstep instead, seven at a time: the k-th door of every scope at
// once, then one read of the API server's counters for all of them (each
// namespace has policies of its own; a read costs ~100 ms).
func runDoors(t *testing.T, scopes []scope, live map[string]*plan.ProtectionPlan, resolver plan.ApplicationResolver) []*mcase {
	t.Helper()
	x := &runner{s: s}
	var all []*mcase
	for _, sc := range scopes {
		for _, o := range sc.sets {
			for _, d := range doors {
				all = append(all, &mcase{sc: sc, set: o, door: d, name: o.name(d.base)})
			}
		}
	}
	byNS := map[string][]*mcase{}
	steps := 0
	for _, c := range all {
		byNS[c.sc.ns] = append(byNS[c.sc.ns], c)
		steps = max(steps, len(byNS[c.sc.ns]))
	}
	if tgt.vap() {
		before := vapChecks(t)
		for k := range steps {
			var wg sync.WaitGroup
			var step []*mcase
			for _, sc := range scopes {
				if k < len(byNS[sc.ns]) {
					c := byNS[sc.ns][k]
					step = append(step, c)
					wg.Add(1)
					go func() {
						defer wg.Done()
						runCase(t, x, c, live, resolver)
					}()
				}
			}
			wg.Wait()
			after := vapChecks(t)
			for _, c := range step {
				if c.live.err == "" {
					vapAnswer(t, c, before, after)
				}
			}
			before = after
		}
		return all
	}
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for _, sc := range scopes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			for _, c := range byNS[sc.ns] {
				runCase(t, x, c, live, resolver)
			}
		}()
	}
	wg.Wait()
	return all
}

var userInfo = render.UserInfo{Username: "e2e-admin", Groups: []string{"system:masters", "system:authenticated"}}

// runCase builds the request of one door, asks Explain about it (for the
// target under test), runs it and reads the admission chain's answer.
func runCase(t *testing.T, x *runner, c *mcase, live map[string]*plan.ProtectionPlan, resolver plan.ApplicationResolver) {
	ctx := t.Context()
	d := c.door
	req, err := doorRequest(ctx, d, c.set, c.sc.ns, c.name)
	if err != nil {
		c.live.err = err.Error()
		return
	}
	c.req = req
	c.messages, c.rules = map[string]string{}, map[string]string{}

	// The intended and the explained answers, template by template.
	if c.sc.plan != nil {
		p := live[c.sc.plan.Name]
		var apps []plan.Application
		for _, name := range p.Spec.Scope.Applications {
			app, err := resolver.ResolveApplication(name)
			if err != nil {
				t.Errorf("resolving %s: %v", name, err)
				return
			}
			apps = append(apps, app)
		}
		for _, ref := range p.Spec.Templates {
			single := p.DeepCopy()
			single.Spec.Templates = []plan.TemplateRef{ref}
			dec, err := render.Explain(render.Input{Plan: single, Applications: apps, Now: time.Now(), Target: tgt.target}, req)
			if err != nil {
				c.explained.err = err.Error()
				continue
			}
			audit := p.Spec.Mode == plan.ModeAudit
			if intended(c.sc, c.set, ref.Name, d) {
				if audit {
					c.intended.audited = append(c.intended.audited, ref.Name)
				} else {
					c.intended.blocked = append(c.intended.blocked, ref.Name)
				}
			}
			switch {
			case dec.Blocked:
				c.explained.blocked = append(c.explained.blocked, ref.Name)
			case dec.Audited:
				c.explained.audited = append(c.explained.audited, ref.Name)
			}
			if dec.Blocked || dec.Audited {
				c.messages[ref.Name], c.rules[ref.Name] = dec.Message, dec.Rule
			}
		}
		for _, v := range []*verdict{&c.intended, &c.explained} {
			sortByCatalog(v.blocked)
			sortByCatalog(v.audited)
		}
	}

	// The live answer: refused (the policies the refusal names; under
	// kyverno-cel and vap, completed by Kyverno's events and the API
	// server's counters of denials per policy) or admitted (audited ones:
	// Kyverno's events, read afterwards; under vap, the warnings, with
	// the counters: see runDoors and vapAnswer).
	dry := c.sc.dry && !d.real
	w := &warnings{}
	begin := time.Now()
	err = d.run(withWarnings(ctx, w), x, c.sc.ns, c.name, c.set, dry)
	c.took = time.Since(begin)
	c.warnings = w.all()
	if err != nil {
		c.refusal = err.Error()
		if !refused(c.refusal) {
			c.live.err = firstLine(c.refusal)
			return
		}
	}
	if tgt.vap() || err == nil {
		return
	}
	pols, ok := refusingPolicies(c.refusal)
	if !ok {
		c.live.err = firstLine(c.refusal)
		return
	}
	for _, pol := range pols {
		c.refusedBy = append(c.refusedBy, templateOf(c.sc.plan, c.sc.ns, pol))
	}
	sortByCatalog(c.refusedBy)
	if tgt.target == render.TargetKyverno {
		c.live.blocked = c.refusedBy // Kyverno's one webhook lists every refusing policy
	}
}

// doorRequest is the admission request door d makes on object name of set
// o in namespace ns, as Explain takes it: the object it creates, or the
// change of the live object.
func doorRequest(ctx context.Context, d door, o objSet, ns, name string) (render.Request, error) {
	req := render.Request{Kind: d.gvk, Namespace: ns, Name: name, UserInfo: userInfo}
	if d.create {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d.object(o, ns))
		if err != nil {
			return req, err
		}
		req.Operation, req.Object = render.OpCreate, m
		return req, nil
	}
	old := &unstructured.Unstructured{}
	old.SetGroupVersionKind(d.gvk)
	if err := s.c.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, old); err != nil {
		return req, fmt.Errorf("reading the object: %w", err)
	}
	ch := d.changeOf(o, old.Object)
	req.Operation, req.Subresource, req.Object, req.OldObject = ch.op, ch.subresource, ch.object, ch.oldObject
	if ch.subresource == "scale" {
		req.Labels = old.GetLabels()
	}
	return req, nil
}

// celBlocked sets the templates that refused a case under kyverno-cel:
// those whose policy Kyverno recorded a blocked PolicyViolation event for,
// of which the refusal must name one (the API server quotes the first
// webhook that denied).
func celBlocked(c *mcase, fromEvents []string) {
	c.live.blocked = fromEvents
	switch {
	case c.refusal == "" && len(fromEvents) > 0:
		c.live.err = fmt.Sprintf("admitted, but Kyverno recorded it blocked by %v", fromEvents)
	case c.refusal != "" && len(fromEvents) == 0:
		c.live.err = fmt.Sprintf("refused by %v, but no blocked event", c.refusedBy)
	case len(c.refusedBy) > 0 && !slices.Contains(fromEvents, c.refusedBy[0]):
		c.live.err = fmt.Sprintf("refused by %v, not among the policies with a blocked event %v", c.refusedBy, fromEvents)
	}
}
