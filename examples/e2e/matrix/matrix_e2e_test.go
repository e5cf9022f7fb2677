//go:build e2e

package matrix

import (
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

	"github.com/telark/protectionplans/examples/e2e/harness"
	"github.com/telark/protectionplans/examples/operator/operator"
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
	// scopes make real requests: their objects are theirs alone, and only
	// real requests leave PolicyReports (recorded as fixtures).
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
		ObjectMeta: metav1.ObjectMeta{Name: id, Annotations: map[string]string{operator.CreatedByAnnotation: "e2e-author"}},
		Spec: plan.Spec{
			Name: display, Description: "end-to-end matrix", Scope: sc, Exclusions: ex,
			Window: window.Spec{Type: window.Permanent}, Mode: mode,
		},
	}
	for _, t := range templates {
		p.Spec.Templates = append(p.Spec.Templates, plan.TemplateRef{Name: t})
	}
	return p
}

// appTemplates are the templates the applications scopes of the matrix
// use: every template but scaling and all-writes, whose /scale rules
// Kyverno refuses for an application selected by one label (a library bug:
// see TestKnownBug_ApplicationScaleRules, which covers them).
func appTemplates() []string {
	return slices.DeleteFunc(catalogNames(), func(n string) bool { return n == "scaling" || n == "all-writes" })
}

func matrixScopes() []scope {
	all := catalogNames()
	nsScope := func(ns string) plan.Scope { return plan.Scope{Namespaces: []string{ns}} }
	appScope := func(app string) plan.Scope { return plan.Scope{Applications: []string{app}} }
	in := func(app string) objSet { return objSet{app: app} }
	other := func(app string) objSet { return objSet{prefix: "o-", app: app} }
	return []scope{
		{ns: "mx-ns-enforce", dry: true, sets: []objSet{{}},
			plan: matrixPlan("mx-ns-enforce", "Matrix namespaces enforce", plan.ModeEnforce, nsScope("mx-ns-enforce"), plan.Exclusions{}, all...)},
		{ns: "mx-ns-audit", sets: []objSet{{}},
			plan: matrixPlan("mx-ns-audit", "Matrix namespaces audit", plan.ModeAudit, nsScope("mx-ns-audit"), plan.Exclusions{}, all...)},
		{ns: "mx-app-enforce", dry: true, sets: []objSet{in("shop-enforce"), other("search-enforce")},
			plan: matrixPlan("mx-app-enforce", "Matrix applications enforce", plan.ModeEnforce, appScope("shop-enforce"), plan.Exclusions{}, appTemplates()...)},
		{ns: "mx-app-audit", sets: []objSet{in("shop-audit"), other("search-audit")},
			plan: matrixPlan("mx-app-audit", "Matrix applications audit", plan.ModeAudit, appScope("shop-audit"), plan.Exclusions{}, appTemplates()...)},
		{ns: "mx-excl-ns", dry: true, sets: []objSet{{}},
			plan: matrixPlan("mx-excl-ns", "Matrix excluded kinds", plan.ModeEnforce, nsScope("mx-excl-ns"),
				plan.Exclusions{Kinds: []string{"StatefulSet", "ConfigMap"}},
				"scaling", "image-change", "configmap-edits", "all-writes")},
		{ns: "mx-excl-app", dry: true, sets: []objSet{in("shop-excl")},
			plan: matrixPlan("mx-excl-app", "Matrix excluded resources", plan.ModeEnforce, appScope("shop-excl"),
				plan.Exclusions{Resources: []plan.ResourceRef{
					{Kind: "Deployment", Namespace: "mx-excl-app", Name: "d-image"},
					{Kind: "Deployment", Namespace: "mx-excl-app", Name: "d-delete"},
					{Kind: "DaemonSet", Namespace: "mx-excl-app", Name: "ds-restart"},
				}},
				"image-change", "delete", "rollout-restart")},
		{ns: "mx-free", dry: true, sets: []objSet{{}}},
	}
}

// intendedDoors are the doors each template must catch in a scope with no
// exclusions: what the catalog promises (render/templates_*.go), written
// down independently of both Explain and Kyverno.
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

// intended says whether template t of sc's plan must catch door d on set o.
func intended(sc scope, o objSet, t string, d door) bool {
	if sc.plan == nil || o.prefix != "" {
		return false // no plan, or another application
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
	// intended, explained and kyverno are the three answers; messages
	// are Explain's messages by template.
	intended, explained, kyverno verdict
	messages                     map[string]string
	refusal                      string // Kyverno's refusal text
	took                         time.Duration
}

func (c *mcase) ok() bool {
	return c.intended.equal(c.explained) && c.explained.equal(c.kyverno)
}

func TestMatrix(t *testing.T) {
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
				if o.app != "" {
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
	t.Logf("%d plans active with every policy Ready %s after they were created", len(plans), time.Since(created).Round(time.Millisecond))
	waitCanaries(t, scopes)
	t.Logf("Kyverno enforces them (canaries refused) %s after the plans were created", time.Since(created).Round(time.Millisecond))

	// The steady state: from now on, the operator must write nothing. (The
	// counter is not blind: it saw the writes that put the plans in place.)
	quietFrom := time.Now()
	t.Logf("the operator wrote %d times to put the %d plans in place (specs, policies, status, events)",
		len(s.writes.since(created)), len(plans))
	passesBefore := s.op.Passes()

	// 3. Every door of every scope.
	resolver := plan.InstanceLabelResolver{Objects: members}
	cases := runDoors(t, scopes, live, resolver)

	// 4. Audited changes: Kyverno's answer is its PolicyViolation events.
	auditNS := []string{}
	for _, sc := range scopes {
		if sc.plan != nil && sc.plan.Spec.Mode == plan.ModeAudit {
			auditNS = append(auditNS, sc.ns)
		}
	}
	index := policyIndex(t)
	audited := auditedByEvents(t, auditNS, index)
	for _, c := range cases {
		if c.sc.plan != nil && c.sc.plan.Spec.Mode == plan.ModeAudit && c.kyverno.err == "" {
			c.kyverno.audited = audited[c.sc.ns+"/"+c.name]
		}
	}

	// 5. The table, and every disagreement as an error.
	table := matrixTable(cases)
	t.Log("\n" + table)
	if err := os.WriteFile(filepath.Join(s.env.Dir, "matrix.md"), []byte(table), 0o644); err != nil {
		t.Error(err)
	}
	bad := 0
	for _, c := range cases {
		if !c.ok() {
			bad++
			t.Errorf("%s %s on %s/%s: intended %s; Explain %s; Kyverno %s\n  refusal: %s",
				c.sc.ns, c.door.id, c.sc.ns, c.name, c.intended, c.explained, c.kyverno, c.refusal)
		}
		for tmpl, msg := range c.messages {
			if slices.Contains(c.kyverno.blocked, tmpl) && !strings.Contains(c.refusal, msg) {
				t.Errorf("%s %s: the refusal does not carry the plan's message %q:\n%s", c.sc.ns, c.door.id, msg, c.refusal)
			}
		}
	}
	t.Logf("matrix: %d cases, %d disagreements, doors run in %s", len(cases), bad, time.Since(quietFrom).Round(time.Millisecond))
	coverage(t, cases)

	// 6. The violations reach the ledgers and the feed, with the plans'
	// messages.
	checkLedgers(t, cases, scopes)

	// 7. No write by the operator while all this ran (its plans were
	// healthy and active throughout).
	passes := s.op.Passes() - passesBefore
	quiet := time.Since(quietFrom)
	if w := s.writes.since(quietFrom); len(w) > 0 {
		t.Errorf("the operator wrote %d times in the steady state: %v", len(w), w)
	}
	t.Logf("steady state: 0 writes by the operator in %s (%d passes, ~%d ticks of %s; %d Lease renewals) while %d admission requests ran",
		quiet.Round(time.Millisecond), passes, int(quiet/tick), tick, s.writes.leaseWrites(quietFrom), len(cases))
	if passes < 5 {
		t.Errorf("only %d passes in %s: the steady state was not observed over enough ticks", passes, quiet)
	}

	if os.Getenv("PROTECTIONPLANS_RECORD_FIXTURES") == "1" {
		recordFixtures(t, cases, scopes)
	}
}

// waitPlansInPlace waits until every plan is active, healthy, and each of
// its rendered policies is Ready in Kyverno; it returns the plans as
// stored.
func waitPlansInPlace(t *testing.T, plans []*plan.ProtectionPlan, timeout time.Duration) map[string]*plan.ProtectionPlan {
	t.Helper()
	out := map[string]*plan.ProtectionPlan{}
	eventually(t, timeout, "the matrix plans active, healthy and their policies Ready", func() (string, bool) {
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
			for _, ps := range p.Status.Policies {
				if ready, why := policyReady(t, ps.Namespace, ps.Name); !ready {
					return fmt.Sprintf("policy %s/%s: %s", ps.Namespace, ps.Name, why), false
				}
			}
			out[p.Name] = p
		}
		return "", true
	})
	return out
}

func policyReady(t *testing.T, ns, name string) (bool, string) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(harness.PolicyGVK)
	if err := s.c.Get(t.Context(), types.NamespacedName{Namespace: ns, Name: name}, u); err != nil {
		return false, err.Error()
	}
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == "Ready" && m["status"] == "True" {
			return true, ""
		}
	}
	return false, fmt.Sprintf("not Ready: %v", conds)
}

// waitCanaries waits until Kyverno refuses a server dry-run of each kind of
// request the matrix makes in the enforce scopes: it updates its webhook
// configurations asynchronously after a policy is ready.
func waitCanaries(t *testing.T, scopes []scope) {
	t.Helper()
	x := &runner{s: s}
	canaries := []string{"replicas-patch", "scale-kubectl", "scale-sts-kubectl", "image-cronjob", "image-pod", "configmap-label", "secret-edit", "pvc-resize", "service-delete", "label-deployment"}
	sc := scopes[0] // mx-ns-enforce: all templates
	for _, id := range canaries {
		d := doorByID(id)
		eventually(t, time.Minute, "Kyverno refusing the canary "+id, func() (string, bool) {
			err := d.run(t.Context(), x, sc.ns, sc.sets[0].name(d.base), sc.sets[0], true)
			if err != nil && strings.Contains(err.Error(), "denied the request") {
				return "", true
			}
			return fmt.Sprint(err), false
		})
	}
	time.Sleep(2 * time.Second) // the other webhook configuration, if any
}

// runDoors runs every door of every scope, the scopes in parallel (four at
// a time), the doors of a scope one after the other.
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
	for _, c := range all {
		byNS[c.sc.ns] = append(byNS[c.sc.ns], c)
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

// runCase builds the request of one door, asks Explain about it, runs it
// and reads Kyverno's answer.
func runCase(t *testing.T, x *runner, c *mcase, live map[string]*plan.ProtectionPlan, resolver plan.ApplicationResolver) {
	ctx := t.Context()
	d := c.door
	req := render.Request{Kind: d.gvk, Namespace: c.sc.ns, Name: c.name, UserInfo: userInfo}
	if d.create {
		obj := d.object(c.set, c.sc.ns)
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			c.kyverno.err = err.Error()
			return
		}
		req.Operation, req.Object = render.OpCreate, m
	} else {
		old := &unstructured.Unstructured{}
		old.SetGroupVersionKind(d.gvk)
		if err := s.c.Get(ctx, types.NamespacedName{Namespace: c.sc.ns, Name: c.name}, old); err != nil {
			c.kyverno.err = "reading the object: " + err.Error()
			return
		}
		ch := d.change(old.Object)
		req.Operation, req.Subresource, req.Object, req.OldObject = ch.op, ch.subresource, ch.object, ch.oldObject
		if ch.subresource == "scale" {
			req.Labels = old.GetLabels()
		}
	}
	c.req = req
	c.messages = map[string]string{}

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
			dec, err := render.Explain(render.Input{Plan: single, Applications: apps, Now: time.Now()}, req)
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
				c.messages[ref.Name] = dec.Message
			}
		}
	}

	// Kyverno's answer: refused (the policies its message lists) or
	// admitted (audited ones are read from its events afterwards).
	dry := c.sc.dry && !d.real
	begin := time.Now()
	err := d.run(ctx, x, c.sc.ns, c.name, c.set, dry)
	c.took = time.Since(begin)
	if err != nil {
		c.refusal = err.Error()
		pols, ok := refusingPolicies(c.refusal)
		if !ok {
			c.kyverno.err = firstLine(c.refusal)
			return
		}
		for _, pol := range pols {
			c.kyverno.blocked = append(c.kyverno.blocked, templateOf(c.sc.plan, pol))
		}
		sortByCatalog(c.kyverno.blocked)
	}
}
