package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/telark/protectionplans/plan"
)

// The seam: what every target must do the same way (R-R2, R-R6), and what
// health relies on for each.

func TestTargets_SameInputSameBytes(t *testing.T) {
	for _, target := range Targets() {
		in := richInput()
		in.Target = target
		want := mustYAML(t, mustRender(t, in))
		r := rand.New(rand.NewPCG(3, 4))
		for i := 0; i < 5; i++ {
			if got := mustYAML(t, mustRender(t, shuffled(in, r))); !bytes.Equal(want, got) {
				t.Fatalf("%s: shuffle %d renders different bytes", target, i)
			}
		}
	}
}

func TestTargets_OnePolicyPerTemplateAndNamespace(t *testing.T) {
	for _, target := range Targets() {
		in := richInput()
		in.Target = target
		res := mustRender(t, in)
		if got, want := len(res.Policies), 4*5; got != want {
			t.Fatalf("%s: %d policies, want %d", target, got, want)
		}
		seen := map[string]bool{}
		for _, p := range res.Policies {
			wantObjects := 1
			if target == TargetVAP {
				wantObjects = 2
			}
			if len(p.Objects) != wantObjects || p.Target != target {
				t.Fatalf("%s: %s has %d objects, target %s", target, p.Name, len(p.Objects), p.Target)
			}
			for _, o := range p.Objects {
				key := o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
				if seen[key] {
					t.Errorf("%s rendered twice", key)
				}
				seen[key] = true
				l := o.GetLabels()
				if l[LabelPlan] != "checkout-freeze" || l[LabelTemplate] != p.Template || l[LabelManagedBy] != ManagedBy {
					t.Errorf("%s: labels %v", key, l)
				}
				if tgt, ok := TargetOf(o); !ok || tgt != target {
					t.Errorf("%s: TargetOf = %s, %v", key, tgt, ok)
				}
			}
		}
	}
}

func TestTargets_HashOfEqualsTheAnnotationOfEveryObject(t *testing.T) {
	for _, target := range Targets() {
		for _, in := range []Input{richInput(), hostileInput()} {
			in.Target = target
			for _, p := range mustRender(t, in).Policies {
				var hashes []string
				for _, o := range p.Objects {
					got, err := HashOf(o)
					if err != nil || got != o.GetAnnotations()[AnnotationRenderHash] {
						t.Errorf("%s %s: HashOf = %s, annotation %s (%v)", target, o.GetName(), got, o.GetAnnotations()[AnnotationRenderHash], err)
					}
					if got, _ := HashOf(live(o)); got != o.GetAnnotations()[AnnotationRenderHash] {
						t.Errorf("%s %s: the live object hashes differently", target, o.GetName())
					}
					hashes = append(hashes, got)
				}
				want := hashes[0]
				if len(hashes) == 2 {
					sum := sha256.Sum256([]byte(hashes[0] + "\n" + hashes[1]))
					want = hashPrefix + hex.EncodeToString(sum[:])
				}
				if p.Hash != want {
					t.Errorf("%s %s: Policy.Hash %s, want %s", target, p.Name, p.Hash, want)
				}
			}
		}
	}
}

// A VAP's hash covers the binding too: changing either object changes
// Policy.Hash, and health sees either one drift.
func TestTargets_VAPPolicyHashCoversBothObjects(t *testing.T) {
	base := Input{Plan: namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("scaling")), Now: now, Target: TargetVAP}
	ref := mustRender(t, base).Policies[0]
	audit := base
	audit.Plan = base.Plan.DeepCopy()
	audit.Plan.Spec.Mode = plan.ModeAudit
	other := mustRender(t, audit).Policies[0]
	if other.Hash == ref.Hash || other.Objects[1].GetAnnotations()[AnnotationRenderHash] == ref.Objects[1].GetAnnotations()[AnnotationRenderHash] {
		t.Error("the mode (in the binding only) does not change the hash")
	}
	edits := map[string]func(*unstructured.Unstructured, *unstructured.Unstructured){
		"a validation removed from the policy": func(vap, _ *unstructured.Unstructured) {
			_ = unstructured.SetNestedSlice(vap.Object, []any{}, "spec", "validations")
		},
		"the binding widened to every namespace": func(_, b *unstructured.Unstructured) {
			_ = unstructured.SetNestedMap(b.Object, map[string]any{}, "spec", "matchResources", "namespaceSelector")
		},
		"the binding pointed at another policy": func(_, b *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(b.Object, "other", "spec", "policyName")
		},
		"the policy's failure policy changed": func(vap, _ *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(vap.Object, "Ignore", "spec", "failurePolicy")
		},
	}
	for name, edit := range edits {
		t.Run(name, func(t *testing.T) {
			vap, b := live(ref.Objects[0]), live(ref.Objects[1])
			edit(vap, b)
			hv, _ := HashOf(vap)
			hb, _ := HashOf(b)
			if hv == ref.Objects[0].GetAnnotations()[AnnotationRenderHash] && hb == ref.Objects[1].GetAnnotations()[AnnotationRenderHash] {
				t.Error("neither object's hash changed")
			}
		})
	}
}

func TestTargets_FailureAction(t *testing.T) {
	for _, target := range Targets() {
		for _, mode := range []plan.Mode{plan.ModeAudit, plan.ModeEnforce} {
			p := mustRender(t, Input{Plan: namespacePlan(mode, []string{"shop"}, tpl("delete")), Now: now, Target: target}).Policies[0]
			obj := live(p.Objects[len(p.Objects)-1]) // the binding for vap
			if got, err := FailureAction(obj); err != nil || got != mode {
				t.Errorf("%s: FailureAction = %q, %v; want %q", target, got, err, mode)
			}
			other := plan.ModeAudit
			if mode == plan.ModeAudit {
				other = plan.ModeEnforce
			}
			if err := SetFailureAction(obj, other); err != nil {
				t.Fatal(err)
			}
			if got, _ := FailureAction(obj); got != other {
				t.Errorf("%s: after SetFailureAction(%s): %s", target, other, got)
			}
			if err := SetFailureAction(obj, mode); err != nil {
				t.Fatal(err)
			}
			if got, _ := HashOf(obj); got != obj.GetAnnotations()[AnnotationRenderHash] {
				t.Errorf("%s: patching the action back does not restore the render hash", target)
			}
		}
	}
}

func TestTargets_ActionSpellings(t *testing.T) {
	tests := []struct {
		target  Target
		mode    plan.Mode
		actions string
	}{
		{TargetKyvernoCEL, plan.ModeEnforce, "Deny"},
		{TargetKyvernoCEL, plan.ModeAudit, "Audit"},
		{TargetVAP, plan.ModeEnforce, "Deny"},
		{TargetVAP, plan.ModeAudit, "Audit,Warn"},
	}
	for _, tt := range tests {
		p := mustRender(t, Input{Plan: namespacePlan(tt.mode, []string{"shop"}, tpl("delete")), Now: now, Target: tt.target}).Policies[0]
		got, _, _ := unstructured.NestedStringSlice(p.Objects[len(p.Objects)-1].Object, "spec", "validationActions")
		if strings.Join(got, ",") != tt.actions {
			t.Errorf("%s %s: validationActions %v, want %s", tt.target, tt.mode, got, tt.actions)
		}
	}
}

func TestTargets_AVAPItselfCarriesNoFailureAction(t *testing.T) {
	vap := mustRender(t, Input{Plan: namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("delete")), Now: now, Target: TargetVAP}).Policies[0].Objects[0]
	if _, err := FailureAction(vap); !errors.Is(err, ErrNoFailureAction) {
		t.Errorf("FailureAction(VAP) err = %v", err)
	}
	if err := SetFailureAction(vap, plan.ModeAudit); !errors.Is(err, ErrNoFailureAction) {
		t.Errorf("SetFailureAction(VAP) err = %v", err)
	}
	// Kyverno reads a NamespacedValidatingPolicy without actions as Deny.
	nvpol := &unstructured.Unstructured{Object: map[string]any{"apiVersion": nvpolAPIVersion, "kind": nvpolKind, "spec": map[string]any{}}}
	if m, err := FailureAction(nvpol); err != nil || m != plan.ModeEnforce {
		t.Errorf("NVPol without actions: %s, %v", m, err)
	}
}

func TestTargets_ObjectsDoNotShareState(t *testing.T) {
	for _, target := range []Target{TargetKyvernoCEL, TargetVAP} {
		in := Input{Plan: namespacePlan(plan.ModeEnforce, []string{"a", "b"}, tpl("scaling")), Now: now, Target: target}
		res := mustRender(t, in)
		first := res.Policies[0].Objects[0]
		_ = unstructured.SetNestedField(first.Object, "Ignore", "spec", "failurePolicy")
		if v, _, _ := unstructured.NestedString(res.Policies[1].Objects[0].Object, "spec", "failurePolicy"); v != "Fail" {
			t.Errorf("%s: changing one policy changed another", target)
		}
	}
}

func TestVAPName(t *testing.T) {
	if got := VAPName("summer-freeze", "scaling", "shop"); got != "summer-freeze-scaling.shop" {
		t.Errorf("VAPName = %q", got)
	}
	ns := strings.Repeat("n", 63)
	for _, id := range []string{strings.Repeat("p", 63), "a.b", "x-0123456789"} {
		for _, tmpl := range Catalog() {
			name := VAPName(id, tmpl.Name(), ns)
			if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 || len(name) > 127 {
				t.Errorf("VAPName(%q, %s) = %q (%d): %v", id, tmpl.Name(), name, len(name), msgs)
			}
		}
	}
	// Plan IDs, templates and namespaces that would meet if the parts were
	// joined with dashes.
	a, b := VAPName("a", "delete", "b-scaling-c"), VAPName("a-delete-b", "scaling", "c")
	if a == b {
		t.Errorf("%q is two policies' name", a)
	}
}

func TestVAPText(t *testing.T) {
	for in, want := range map[string]string{
		"a\r\nb\rc\nd": "a b c d", "x\u2028y\u2029z\u0085w": "x y z w", "nul\x00del\x7f": "nul\uFFFDdel\uFFFD", "tab\tok": "tab\tok",
	} {
		if got := vapText(in); got != want {
			t.Errorf("vapText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRender_VAPChecksMemberNames(t *testing.T) {
	p := appPlan(plan.ModeEnforce, tpl("scaling"))
	app := checkoutApp()
	app.Members = append(app.Members, plan.ResourceRef{Kind: "Deployment", Name: "Bad Name", Namespace: "shop"})
	in := Input{Plan: p, Applications: []plan.Application{app}, Now: now, Target: TargetVAP}
	_, err := Render(in)
	assertFieldError(t, err, "applications.members")
	in.Target = TargetKyvernoCEL // does not write members
	if _, err := Render(in); err != nil {
		t.Errorf("kyverno-cel: %v", err)
	}
}

func TestVAP_BindingSpecIsTheTypedOne(t *testing.T) {
	for _, mode := range []plan.Mode{plan.ModeAudit, plan.ModeEnforce} {
		typed, err := newSpecProto(bindingSpec(mode, "p-scaling.shop", "shop"))
		if err != nil {
			t.Fatal(err)
		}
		direct, err := bindingSpecProto(mode, "p-scaling.shop", "shop")
		if err != nil {
			t.Fatal(err)
		}
		if string(typed.json) != string(direct.json) {
			t.Errorf("%s:\n typed  %s\n direct %s", mode, typed.json, direct.json)
		}
		if !reflect.DeepEqual(typed.spec, direct.spec) {
			t.Errorf("%s:\n typed  %v\n direct %v", mode, typed.spec, direct.spec)
		}
	}
}

func TestIdentify_ReadsBackWhatRenderNamed(t *testing.T) {
	for _, target := range Targets() {
		for _, compact := range []bool{false, true} {
			in := richInput()
			in.Target, in.Compact = target, compact
			for _, p := range mustRender(t, in).Policies {
				got, ok := Identify(p.Objects[0])
				if !ok || got.Target != p.Target || got.Template != p.Template || got.Namespace != p.Namespace || got.Name != p.Name {
					t.Errorf("%s compact=%v: Identify(%s) = %+v, %v; want %s %s %s %s", target, compact, p.Objects[0].GetName(),
						got, ok, p.Target, p.Template, p.Namespace, p.Name)
				}
				for _, o := range p.Objects[1:] {
					if got, ok := Identify(o); ok {
						t.Errorf("%s: Identify(%s %s) = %+v, want the policy identified by its first object only", target, o.GetKind(), o.GetName(), got)
					}
				}
			}
		}
	}
}
