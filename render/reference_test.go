package render

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/plan"
)

type obj = map[string]any

var (
	gvkDeployment  = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	gvkStatefulSet = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}
	gvkCronJob     = schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "CronJob"}
	gvkPod         = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	gvkService     = schema.GroupVersionKind{Version: "v1", Kind: "Service"}
	gvkIngress     = schema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}
	gvkConfigMap   = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	gvkSecret      = schema.GroupVersionKind{Version: "v1", Kind: "Secret"}
	gvkPVC         = schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolumeClaim"}
	gvkLease       = schema.GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}
)

var (
	alice      = UserInfo{Username: "alice", Groups: []string{"system:authenticated"}}
	hpa        = UserInfo{Username: "system:serviceaccount:kube-system:horizontal-pod-autoscaler"}
	gc         = UserInfo{Username: "system:serviceaccount:kube-system:generic-garbage-collector"}
	kubelet    = UserInfo{Username: "system:node:worker-1", Groups: []string{"system:nodes"}}
	controller = UserInfo{Username: "system:kube-controller-manager"}
)

// meta returns metadata with a name and labels.
func meta(name string, labels map[string]string) obj {
	l := obj{}
	for k, v := range labels {
		l[k] = v
	}
	return obj{"name": name, "namespace": "shop", "labels": l}
}

// containers builds a container list from "name=image" strings.
func containers(pairs ...string) []any {
	out := []any{}
	for _, p := range pairs {
		n, i, _ := strings.Cut(p, "=")
		out = append(out, obj{"name": n, "image": i})
	}
	return out
}

// typed sets apiVersion and kind.
func typed(apiVersion, kind string, o obj) obj {
	o["apiVersion"], o["kind"] = apiVersion, kind
	return o
}

// secret is the Secret "s" with extra fields.
func secret(fields obj) obj {
	o := typed("v1", "Secret", obj{"metadata": meta("s", nil)})
	for k, v := range fields {
		o[k] = v
	}
	return o
}

func deployment(name string, labels map[string]string, replicas int64, images ...string) obj {
	return obj{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(name, labels),
		"spec": obj{"replicas": replicas, "template": obj{"metadata": obj{}, "spec": obj{"containers": containers(images...)}}}}
}

func withRestartedAt(o obj, at string) obj {
	tmpl := o["spec"].(obj)["template"].(obj)
	tmpl["metadata"] = obj{"annotations": obj{"kubectl.kubernetes.io/restartedAt": at}}
	return o
}

func withInit(o obj, images ...string) obj {
	o["spec"].(obj)["template"].(obj)["spec"].(obj)["initContainers"] = containers(images...)
	return o
}

func pod(name string, images ...string) obj {
	return obj{"apiVersion": "v1", "kind": "Pod", "metadata": meta(name, map[string]string{"app": "checkout", "tier": "web"}),
		"spec": obj{"containers": containers(images...)}}
}

func cronJob(name string, image string) obj {
	return obj{"apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta(name, nil),
		"spec": obj{"jobTemplate": obj{"spec": obj{"template": obj{"spec": obj{"containers": containers("job=" + image)}}}}}}
}

func scale(name string, replicas int64) obj {
	spec := obj{}
	if replicas != 0 { // a Scale omits replicas: 0
		spec["replicas"] = replicas
	}
	return obj{"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": obj{"name": name, "namespace": "shop"}, "spec": spec}
}

func configMap(name string, labels map[string]string, data obj) obj {
	return obj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(name, labels), "data": data}
}

func pvc(name, size string) obj {
	return obj{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta(name, nil),
		"spec": obj{"resources": obj{"requests": obj{"storage": size}}}}
}

var checkoutLabels = map[string]string{"app": "checkout", "tier": "web"}

func update(gvk schema.GroupVersionKind, oldObj, newObj obj) Request {
	return Request{Operation: OpUpdate, Kind: gvk, Namespace: "shop", OldObject: oldObj, Object: newObj, UserInfo: alice}
}

func create(gvk schema.GroupVersionKind, o obj) Request {
	return Request{Operation: OpCreate, Kind: gvk, Namespace: "shop", Object: o, UserInfo: alice}
}

func del(gvk schema.GroupVersionKind, o obj) Request {
	return Request{Operation: OpDelete, Kind: gvk, Namespace: "shop", OldObject: o, UserInfo: alice}
}

func scaleReq(gvk schema.GroupVersionKind, name string, from, to int64) Request {
	return Request{Operation: OpUpdate, Kind: gvk, Subresource: "scale", Namespace: "shop", Name: name,
		Labels: checkoutLabels, OldObject: scale(name, from), Object: scale(name, to), UserInfo: alice}
}

func as(r Request, u UserInfo) Request { r.UserInfo = u; return r }

// covered lists, per template, changes the template freezes, and the rule
// that catches each.
var covered = []struct {
	name, template, rule string
	req                  Request
}{
	{"creating a Deployment", "create", "create", create(gvkDeployment, deployment("web", checkoutLabels, 2, "app=shop:1"))},
	{"creating an Ingress", "create", "create", create(gvkIngress, typed("networking.k8s.io/v1", "Ingress", obj{"metadata": meta("www", nil)}))},
	{"deleting a Service (DELETE has no new object)", "delete", "delete", del(gvkService, typed("v1", "Service", obj{"metadata": meta("web", nil)}))},
	{"changing a Deployment's image", "image-change", "template-images",
		update(gvkDeployment, deployment("web", checkoutLabels, 2, "app=shop:1"), deployment("web", checkoutLabels, 2, "app=shop:2"))},
	{"changing an init container's image", "image-change", "template-images",
		update(gvkDeployment, withInit(deployment("web", nil, 2, "app=shop:1"), "migrate=db:1"), withInit(deployment("web", nil, 2, "app=shop:1"), "migrate=db:2"))},
	{"adding an ephemeral container to a Pod (kubectl debug)", "image-change", "pod-images", func() Request {
		newPod := pod("web-1", "app=shop:1")
		newPod["spec"].(obj)["ephemeralContainers"] = containers("debugger=busybox")
		r := update(gvkPod, pod("web-1", "app=shop:1"), newPod)
		r.Subresource = "ephemeralcontainers"
		return r
	}()},
	{"changing a CronJob's jobTemplate image", "image-change", "cronjob-images", update(gvkCronJob, cronJob("nightly", "job:1"), cronJob("nightly", "job:2"))},
	{"kubectl scale of a Deployment", "scaling", "replicas", scaleReq(gvkDeployment, "web", 2, 5)},
	{"scaling a Deployment to zero through /scale", "scaling", "replicas", scaleReq(gvkDeployment, "web", 2, 0)},
	{"patching a StatefulSet's spec.replicas", "scaling", "replicas",
		update(gvkStatefulSet, deployment("db", nil, 3, "db=pg:16"), deployment("db", nil, 1, "db=pg:16"))},
	{"editing ConfigMap data", "configmap-edits", "configmap-data",
		update(gvkConfigMap, configMap("cfg", nil, obj{"a": "1"}), configMap("cfg", nil, obj{"a": "2"}))},
	{"deleting a ConfigMap", "configmap-edits", "configmap-delete", del(gvkConfigMap, configMap("cfg", nil, nil))},
	{"editing Secret data", "secret-edits", "secret-data",
		update(gvkSecret, secret(obj{"data": obj{"k": "YQ=="}}), secret(obj{"data": obj{"k": "Yg=="}}))},
	{"making a Secret immutable", "secret-edits", "secret-data",
		update(gvkSecret, secret(obj{}), secret(obj{"immutable": true}))},
	{"deleting a Secret", "secret-edits", "secret-delete", del(gvkSecret, secret(obj{}))},
	{"creating a PersistentVolumeClaim", "storage", "pvc-create", create(gvkPVC, pvc("data", "1Gi"))},
	{"deleting a PersistentVolumeClaim", "storage", "pvc-delete", del(gvkPVC, pvc("data", "1Gi"))},
	{"resizing a PersistentVolumeClaim", "storage", "pvc-resize", update(gvkPVC, pvc("data", "1Gi"), pvc("data", "2Gi"))},
	{"kubectl rollout restart (annotation added)", "rollout-restart", "restart",
		update(gvkDeployment, deployment("web", nil, 2, "app=shop:1"), withRestartedAt(deployment("web", nil, 2, "app=shop:1"), "2026-07-23T12:00:00Z"))},
	{"a second rollout restart (annotation changed)", "rollout-restart", "restart",
		update(gvkDeployment, withRestartedAt(deployment("web", nil, 2, "app=shop:1"), "2026-07-22T12:00:00Z"), withRestartedAt(deployment("web", nil, 2, "app=shop:1"), "2026-07-23T12:00:00Z"))},
	{"changing a Deployment's labels, under all-writes", "all-writes", "writes",
		update(gvkDeployment, deployment("web", nil, 2, "app=shop:1"), deployment("web", map[string]string{"x": "y"}, 2, "app=shop:1"))},
	{"kubectl scale, under all-writes", "all-writes", "writes", scaleReq(gvkDeployment, "web", 2, 3)},
}

func TestExplain_EveryTemplateFreezesWhatItCovers(t *testing.T) {
	for _, c := range covered {
		for _, mode := range []plan.Mode{plan.ModeEnforce, plan.ModeAudit} {
			t.Run(string(mode)+": "+c.name, func(t *testing.T) {
				p := namespacePlan(mode, []string{"shop"}, tpl(c.template))
				d, err := Explain(Input{Plan: p, Now: now}, c.req)
				if err != nil {
					t.Fatal(err)
				}
				if d.Blocked != (mode == plan.ModeEnforce) || d.Audited != (mode == plan.ModeAudit) {
					t.Fatalf("Blocked=%v Audited=%v, reason %q", d.Blocked, d.Audited, d.Reason)
				}
				if d.Template != c.template || d.Rule != c.rule {
					t.Errorf("caught by %s/%s, want %s/%s", d.Template, d.Rule, c.template, c.rule)
				}
			})
		}
	}
}

type notFrozenCase struct {
	name   string
	plan   *plan.ProtectionPlan
	req    Request
	reason string
}

func notFrozenCases() []notFrozenCase {
	most := func() *plan.ProtectionPlan {
		var refs []plan.TemplateRef
		for _, r := range allTemplates() {
			if r.Name != "all-writes" {
				refs = append(refs, r)
			}
		}
		return namespacePlan(plan.ModeEnforce, []string{"shop"}, refs...)
	}
	excluding := func(kinds ...string) *plan.ProtectionPlan {
		p := most()
		p.Spec.Exclusions.Kinds = kinds
		return p
	}
	return []notFrozenCase{
		{"a label change is not", most(),
			update(gvkDeployment, deployment("web", nil, 2, "app=shop:1"), deployment("web", map[string]string{"x": "y"}, 2, "app=shop:1")),
			"UPDATE of Deployment shop/web is not changing container images, scaling or restarting rollouts"},
		{"reordering containers is not an image change", most(),
			update(gvkDeployment, deployment("web", nil, 2, "a=x:1", "b=y:1"), deployment("web", nil, 2, "b=y:1", "a=x:1")),
			"UPDATE of Deployment shop/web is not changing container images, scaling or restarting rollouts"},
		{"a status update is never matched", most(), func() Request {
			r := update(gvkDeployment, deployment("web", nil, 2, "a=x:1"), deployment("web", nil, 3, "a=x:2"))
			r.Subresource = "status"
			return r
		}(), "no template of the plan freezes UPDATE of Deployment shop/web (status)"},
		{"a namespace out of scope is not", most(),
			func() Request { r := scaleReq(gvkDeployment, "web", 1, 2); r.Namespace = "other"; return r }(),
			`namespace "other" is not in the plan's scope`},
		{"an excluded kind is not", excluding("Deployment"),
			update(gvkDeployment, deployment("web", nil, 2, "app=shop:1"), deployment("web", nil, 2, "app=shop:2")),
			"kind Deployment is excluded from the plan"},
		{"an excluded kind's /scale is not", excluding("Deployment"), scaleReq(gvkDeployment, "web", 1, 2),
			"kind Deployment is excluded from the plan"},
		{"the HPA scaling through /scale is not", most(), as(scaleReq(gvkDeployment, "web", 1, 2), hpa),
			"system:serviceaccount:kube-system:horizontal-pod-autoscaler is exempt (controllers running in kube-system (ReplicaSet, Job, CronJob, garbage collector, HPA, namespace, node lifecycle, ...)): Kubernetes' own control plane is never frozen"},
		{"the garbage collector deleting a Deployment is not", most(), as(del(gvkDeployment, deployment("web", nil, 1)), gc),
			"system:serviceaccount:kube-system:generic-garbage-collector is exempt (controllers running in kube-system (ReplicaSet, Job, CronJob, garbage collector, HPA, namespace, node lifecycle, ...)): Kubernetes' own control plane is never frozen"},
		{"a kubelet is not", most(), as(update(gvkPod, pod("p", "a=x:1"), pod("p", "a=x:2")), kubelet),
			"system:node:worker-1 is exempt (kubelets): Kubernetes' own control plane is never frozen"},
		{"the controller manager is not", most(), as(scaleReq(gvkStatefulSet, "db", 1, 2), controller),
			"system:kube-controller-manager is exempt (the controller manager): Kubernetes' own control plane is never frozen"},
		{"creating a Pod is not (not a default kind of create)", most(), create(gvkPod, pod("p", "a=x:1")),
			"no template of the plan freezes CREATE of Pod shop/p"},
		{"creating a ConfigMap is not an edit", most(), create(gvkConfigMap, configMap("cfg", nil, obj{"a": "1"})),
			"no template of the plan freezes CREATE of ConfigMap shop/cfg"},
		{"a ConfigMap label change is not", most(),
			update(gvkConfigMap, configMap("cfg", nil, obj{"a": "1"}), configMap("cfg", map[string]string{"x": "y"}, obj{"a": "1"})),
			"UPDATE of ConfigMap shop/cfg is not editing ConfigMap data"},
		{"immutable: false where it was missing is not an edit", most(),
			update(gvkConfigMap, configMap("cfg", nil, obj{"a": "1"}), func() obj { o := configMap("cfg", nil, obj{"a": "1"}); o["immutable"] = false; return o }()),
			"UPDATE of ConfigMap shop/cfg is not editing ConfigMap data"},
		{"a Lease is never frozen", most(), update(gvkLease, typed("coordination.k8s.io/v1", "Lease", obj{"metadata": meta("leader", nil)}),
			typed("coordination.k8s.io/v1", "Lease", obj{"metadata": meta("leader", nil), "spec": obj{"holderIdentity": "b"}})),
			"no template of the plan freezes UPDATE of Lease shop/leader"},
		{"a PVC label change is not", most(), update(gvkPVC, pvc("data", "1Gi"), func() obj {
			o := pvc("data", "1Gi")
			o["metadata"] = meta("data", map[string]string{"x": "y"})
			return o
		}()),
			"UPDATE of PersistentVolumeClaim shop/data is not resizing PersistentVolumeClaims"},
	}
}

func TestExplain_WhatIsNotFrozen(t *testing.T) {
	for _, tt := range notFrozenCases() {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Explain(Input{Plan: tt.plan, Now: now}, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(Decision{Reason: tt.reason}, d); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExplain_ScalingDirection(t *testing.T) {
	p := namespacePlan(plan.ModeEnforce, []string{"shop"}, tplWith("scaling", "direction", "up"))
	up, _ := Explain(Input{Plan: p, Now: now}, scaleReq(gvkDeployment, "web", 2, 3))
	down, _ := Explain(Input{Plan: p, Now: now}, scaleReq(gvkDeployment, "web", 3, 2))
	if !up.Blocked || down.Blocked {
		t.Errorf("direction up: scaling up blocked=%v (want true), down blocked=%v (want false)", up.Blocked, down.Blocked)
	}
	if down.Reason != "UPDATE of Deployment shop/web (scale) is not scaling up" {
		t.Errorf("reason = %q", down.Reason)
	}
}

type applicationCase struct {
	name    string
	req     Request
	blocked bool
	rule    string
	reason  string
}

// applicationsPlan is an enforcing plan on checkout, with one named
// exclusion.
func applicationsPlan() *plan.ProtectionPlan {
	p := appPlan(plan.ModeEnforce, tpl("image-change"), tpl("scaling"), tpl("create"))
	p.Spec.Exclusions.Resources = []plan.ResourceRef{{Kind: "Deployment", Name: "legacy", Namespace: "shop"}}
	return p
}

func applicationCases() []applicationCase {
	other := map[string]string{"app": "search", "tier": "web"}
	return []applicationCase{
		{"an image change of the application is blocked",
			update(gvkDeployment, deployment("web", checkoutLabels, 2, "a=x:1"), deployment("web", checkoutLabels, 2, "a=x:2")), true, "template-images",
			"refused by rule template-images of policy shop/checkout-freeze-image-change"},
		{"removing the application's label in the same update is still blocked",
			update(gvkDeployment, deployment("web", checkoutLabels, 2, "a=x:1"), deployment("web", nil, 2, "a=x:2")), true, "template-images",
			"refused by rule template-images of policy shop/checkout-freeze-image-change"},
		{"an object of another application is not",
			update(gvkDeployment, deployment("web", other, 2, "a=x:1"), deployment("web", other, 2, "a=x:2")), false, "",
			"Deployment shop/web belongs to none of the plan's applications"},
		{"kubectl scale of the application's Deployment (parent labels) is blocked",
			scaleReq(gvkDeployment, "web", 1, 2), true, "replicas-deployments-scale",
			"refused by rule replicas-deployments-scale of policy shop/checkout-freeze-scaling"},
		{"kubectl scale of another Deployment is not",
			func() Request { r := scaleReq(gvkDeployment, "web", 1, 2); r.Labels = other; return r }(), false, "",
			"Deployment shop/web belongs to none of the plan's applications"},
		{"an excluded resource is not",
			update(gvkDeployment, deployment("legacy", checkoutLabels, 2, "a=x:1"), deployment("legacy", checkoutLabels, 2, "a=x:2")), false, "",
			"Deployment shop/legacy is excluded from the plan"},
		{"an excluded resource's /scale is not",
			scaleReq(gvkDeployment, "legacy", 1, 2), false, "", "Deployment shop/legacy is excluded from the plan"},
		{"creating an object of the application is blocked",
			create(gvkDeployment, deployment("new", checkoutLabels, 1, "a=x:1")), true, "create",
			"refused by rule create of policy shop/checkout-freeze-create"},
		{"creating an object outside the application is not",
			create(gvkDeployment, deployment("new", nil, 1, "a=x:1")), false, "",
			"Deployment shop/new belongs to none of the plan's applications"},
		{"removing the application's label alone is refused (scope guard)",
			update(gvkDeployment, deployment("web", checkoutLabels, 2, "a=x:1"), deployment("web", nil, 2, "a=x:1")), true, "scope-guard",
			"refused by rule scope-guard of policy shop/checkout-freeze-image-change"},
		{"moving to a tier the selector does not select is refused (scope guard)",
			update(gvkDeployment, deployment("web", checkoutLabels, 2, "a=x:1"), deployment("web", map[string]string{"app": "checkout", "tier": "batch"}, 2, "a=x:1")),
			true, "scope-guard", "refused by rule scope-guard of policy shop/checkout-freeze-image-change"},
		{"adding a label to an object of the application is not",
			update(gvkDeployment, deployment("web", checkoutLabels, 2, "a=x:1"), deployment("web", map[string]string{"app": "checkout", "tier": "web", "x": "y"}, 2, "a=x:1")),
			false, "", "UPDATE of Deployment shop/web is not changing container images, moving resources out of application checkout or scaling"},
		{"relabelling an object of another application is not",
			update(gvkDeployment, deployment("web", other, 2, "a=x:1"), deployment("web", nil, 2, "a=x:1")), false, "",
			"Deployment shop/web belongs to none of the plan's applications"},
		{"an object that left the application before the freeze is out of scope",
			update(gvkDeployment, deployment("web", nil, 2, "a=x:1"), deployment("web", nil, 2, "a=x:2")), false, "",
			"Deployment shop/web belongs to none of the plan's applications"},
	}
}

func TestExplain_ApplicationsScope(t *testing.T) {
	p := applicationsPlan()
	for _, tt := range applicationCases() {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Explain(Input{Plan: p, Applications: []plan.Application{checkoutApp()}, Now: now}, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if d.Blocked != tt.blocked || d.Rule != tt.rule || d.Reason != tt.reason {
				t.Errorf("got blocked=%v rule=%q reason=%q", d.Blocked, d.Rule, d.Reason)
			}
		})
	}
}

func TestExplain_MessagesAndNames(t *testing.T) {
	p := namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("scaling"))
	d, err := Explain(Input{Plan: p, Now: now}, scaleReq(gvkDeployment, "web", 1, 2))
	if err != nil {
		t.Fatal(err)
	}
	want := Decision{
		Blocked: true, Template: "scaling", Rule: "replicas", Namespace: "shop", Policy: "summer-freeze-scaling",
		Message: "scaling is frozen by protection plan Summer freeze until 2026-07-24 06:00 CEST",
		Reason:  "refused by rule replicas of policy shop/summer-freeze-scaling",
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("enforce (-want +got):\n%s", diff)
	}
	p.Spec.Mode = plan.ModeAudit
	d, _ = Explain(Input{Plan: p, Now: now}, scaleReq(gvkDeployment, "web", 1, 2))
	if d.Message != "would be blocked by protection plan Summer freeze: scaling" || !d.Audited || d.Blocked {
		t.Errorf("audit: %+v", d)
	}
}

func TestExplain_InactivePlanHasNoPolicies(t *testing.T) {
	p := namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("scaling"))
	p.Status.Phase = plan.PhaseScheduled
	d, err := Explain(Input{Plan: p, Now: now}, scaleReq(gvkDeployment, "web", 1, 2))
	if err != nil || d.Blocked || d.Reason != `the plan is not active (phase "scheduled"): it deploys no policies` {
		t.Errorf("got %+v, %v", d, err)
	}
}

func TestExplain_ScopeGuardMessages(t *testing.T) {
	leave := update(gvkDeployment, deployment("web", checkoutLabels, 2, "a=x:1"), deployment("web", nil, 2, "a=x:1"))
	want := map[plan.Mode]string{
		plan.ModeEnforce: "moving Deployment web out of application checkout is frozen by protection plan Checkout freeze until 2026-07-24 06:00 CEST",
		plan.ModeAudit:   "would be blocked by protection plan Checkout freeze: moving Deployment web out of application checkout",
	}
	for _, target := range Targets() {
		for mode, msg := range want {
			p := appPlan(mode, tpl("scaling"))
			d, err := Explain(Input{Plan: p, Applications: []plan.Application{checkoutApp()}, Now: now, Target: target}, leave)
			if err != nil {
				t.Fatal(err)
			}
			if d.Message != msg || d.Rule != "scope-guard" || d.Blocked != (mode == plan.ModeEnforce) {
				t.Errorf("%s %s: %+v", target, mode, d)
			}
		}
	}
}

// With several applications in a namespace, each has its guard, and the
// message names the application the object leaves.
func TestExplain_ScopeGuardPerApplication(t *testing.T) {
	p := appPlan(plan.ModeEnforce, tpl("scaling"))
	p.Spec.Scope.Applications = []string{"checkout", "search"}
	search := plan.Application{Name: "search", Namespaces: []string{"shop"},
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "search"}}}
	in := Input{Plan: p, Applications: []plan.Application{checkoutApp(), search}, Now: now}
	d, err := Explain(in, update(gvkDeployment, deployment("idx", map[string]string{"app": "search"}, 1, "a=x:1"), deployment("idx", nil, 1, "a=x:1")))
	if err != nil {
		t.Fatal(err)
	}
	if d.Rule != "scope-guard-2" || d.Message != "moving Deployment idx out of application search is frozen by protection plan Checkout freeze until 2026-07-24 06:00 CEST" {
		t.Errorf("%+v", d)
	}
}
