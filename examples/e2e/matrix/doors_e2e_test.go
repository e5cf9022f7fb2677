//go:build e2e

package matrix

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// A door is one way of making one change: a kubectl command or an API
// request, against its own object. Each door knows how to run itself (with
// a server dry-run when it can) and which admission request Kyverno sees,
// so that render.Explain can be asked about the very same request.
type door struct {
	id string
	// how says what runs, for the table.
	how string
	// base is the name of the door's object (prefixed by the object set).
	base string
	gvk  schema.GroupVersionKind
	// real doors cannot be dry runs: kubectl debug and kubectl rollout
	// restart have no --dry-run.
	real bool
	// build builds the door's object: a fixture created before the plans,
	// or, for a create door, the object the door creates.
	build func(o objSet, ns, base string) client.Object
	// create is true for a door that creates its object.
	create bool
	// run makes the change; dry asks for a server dry-run.
	run func(ctx context.Context, x *runner, ns, name string, o objSet, dry bool) error
	// change is the admission request the change is, from the object as it
	// was before (nil for a create); changeSet is the same for a change
	// that depends on the object set (the relabel door).
	change    func(old map[string]any) change
	changeSet func(o objSet, old map[string]any) change
}

// changeOf is the admission request of the door on set o.
func (d door) changeOf(o objSet, old map[string]any) change {
	if d.changeSet != nil {
		return d.changeSet(o, old)
	}
	return d.change(old)
}

// change is what an admission request says about a change.
type change struct {
	op          render.Operation
	subresource string
	object      map[string]any
	oldObject   map[string]any
}

var (
	gvkDeployment  = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	gvkStatefulSet = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}
	gvkDaemonSet   = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}
	gvkCronJob     = schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "CronJob"}
	gvkPod         = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	gvkConfigMap   = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	gvkSecret      = schema.GroupVersionKind{Version: "v1", Kind: "Secret"}
	gvkPVC         = schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolumeClaim"}
	gvkService     = schema.GroupVersionKind{Version: "v1", Kind: "Service"}
)

// Pod spec paths of the workload kinds.
var (
	templatePodSpec = []string{"spec", "template", "spec"}
	cronJobPodSpec  = []string{"spec", "jobTemplate", "spec", "template", "spec"}
	podPodSpec      = []string{"spec"}
)

// doors, in the order of the table.
var doors = []door{
	{id: "scale-kubectl", how: "kubectl scale deployment --replicas=3", base: "d-scale", gvk: gvkDeployment,
		build: objSet.deploymentObj, run: kubectlRun("scale", "deployment/%s", "--replicas=3"), change: scaleTo(3)},
	{id: "scale-subresource", how: "PUT deployments/scale (replicas 4)", base: "d-scale-api", gvk: gvkDeployment,
		build: objSet.deploymentObj, run: scaleSubresource(4), change: scaleTo(4)},
	{id: "scale-sts-kubectl", how: "kubectl scale statefulset --replicas=3", base: "s-scale", gvk: gvkStatefulSet,
		build: objSet.statefulSetObj, run: kubectlRun("scale", "statefulset/%s", "--replicas=3"), change: scaleTo(3)},
	{id: "replicas-patch", how: "PATCH deployment spec.replicas=4", base: "d-replicas", gvk: gvkDeployment,
		build: objSet.deploymentObj, run: mergePatch(gvkDeployment, `{"spec":{"replicas":4}}`),
		change: update(func(o map[string]any) { set(o, int64(4), "spec", "replicas") })},
	{id: "image-deployment", how: "kubectl set image deployment app=nginx:2", base: "d-image", gvk: gvkDeployment,
		build: objSet.deploymentObj, run: kubectlRun("set", "image", "deployment/%s", "app=nginx:2"),
		change: update(setImage(templatePodSpec, "containers", "app", "nginx:2"))},
	{id: "image-deployment-init", how: "kubectl set image deployment init=busybox:2 (initContainer)", base: "d-init", gvk: gvkDeployment,
		build: objSet.deploymentObj, run: kubectlRun("set", "image", "deployment/%s", "init=busybox:2"),
		change: update(setImage(templatePodSpec, "initContainers", "init", "busybox:2"))},
	{id: "image-reorder", how: "PATCH deployment: swap the two containers", base: "d-reorder", gvk: gvkDeployment,
		build: objSet.deploymentObj, run: reorderContainers, change: update(reverseContainers)},
	{id: "image-statefulset", how: "kubectl set image statefulset app=nginx:2", base: "s-image", gvk: gvkStatefulSet,
		build: objSet.statefulSetObj, run: kubectlRun("set", "image", "statefulset/%s", "app=nginx:2"),
		change: update(setImage(templatePodSpec, "containers", "app", "nginx:2"))},
	{id: "image-daemonset", how: "kubectl set image daemonset app=nginx:2", base: "ds-image", gvk: gvkDaemonSet,
		build: objSet.daemonSetObj, run: kubectlRun("set", "image", "daemonset/%s", "app=nginx:2"),
		change: update(setImage(templatePodSpec, "containers", "app", "nginx:2"))},
	{id: "image-cronjob", how: "kubectl set image cronjob app=nginx:2", base: "cj-image", gvk: gvkCronJob,
		build: objSet.cronJobObj, run: kubectlRun("set", "image", "cronjob/%s", "app=nginx:2"),
		change: update(setImage(cronJobPodSpec, "containers", "app", "nginx:2"))},
	{id: "image-pod", how: "kubectl set image pod app=nginx:2", base: "p-image", gvk: gvkPod,
		build: objSet.podObj, run: kubectlRun("set", "image", "pod/%s", "app=nginx:2"),
		change: update(setImage(podPodSpec, "containers", "app", "nginx:2"))},
	{id: "image-pod-init", how: "kubectl set image pod init=busybox:2 (initContainer)", base: "p-init", gvk: gvkPod,
		build: objSet.podObj, run: kubectlRun("set", "image", "pod/%s", "init=busybox:2"),
		change: update(setImage(podPodSpec, "initContainers", "init", "busybox:2"))},
	{id: "debug-pod", how: "kubectl debug pod --image=busybox:1 (ephemeral container)", base: "p-debug", gvk: gvkPod, real: true,
		build: objSet.podObj, run: kubectlRun("debug", "pod/%s", "--image=busybox:1", "--container=dbg"),
		change: addEphemeral},
	{id: "restart-deployment", how: "kubectl rollout restart deployment", base: "d-restart", gvk: gvkDeployment, real: true,
		build: objSet.deploymentObj, run: kubectlRun("rollout", "restart", "deployment/%s"), change: update(restartedAt)},
	{id: "restart-daemonset", how: "kubectl rollout restart daemonset", base: "ds-restart", gvk: gvkDaemonSet, real: true,
		build: objSet.daemonSetObj, run: kubectlRun("rollout", "restart", "daemonset/%s"), change: update(restartedAt)},
	{id: "label-deployment", how: "PATCH deployment: add a label", base: "d-label", gvk: gvkDeployment,
		build: objSet.deploymentObj, run: mergePatch(gvkDeployment, `{"metadata":{"labels":{"touched":"yes"}}}`),
		change: update(func(o map[string]any) { set(o, "yes", "metadata", "labels", "touched") })},
	{id: "unlabel-deployment", how: "PATCH deployment: remove app.kubernetes.io/instance", base: "d-unlabel", gvk: gvkDeployment,
		build: objSet.deploymentObj, run: mergePatch(gvkDeployment, `{"metadata":{"labels":{"`+plan.InstanceLabel+`":null}}}`),
		change: update(func(o map[string]any) {
			labels, _ := lookup(o, "metadata", "labels").(map[string]any)
			delete(labels, plan.InstanceLabel)
		})},
	{id: "relabel-deployment", how: "PATCH deployment: app.kubernetes.io/instance set to another application", base: "d-relabel", gvk: gvkDeployment,
		build: objSet.deploymentObj, run: relabel,
		changeSet: func(s objSet, old map[string]any) change {
			return update(func(o map[string]any) { set(o, s.peer, "metadata", "labels", plan.InstanceLabel) })(old)
		}},
	{id: "configmap-edit", how: "PATCH configmap data", base: "cm-edit", gvk: gvkConfigMap,
		build: objSet.configMapObj, run: mergePatch(gvkConfigMap, `{"data":{"k":"v2"}}`),
		change: update(func(o map[string]any) { set(o, "v2", "data", "k") })},
	{id: "configmap-label", how: "PATCH configmap: add a label", base: "cm-label", gvk: gvkConfigMap,
		build: objSet.configMapObj, run: mergePatch(gvkConfigMap, `{"metadata":{"labels":{"touched":"yes"}}}`),
		change: update(func(o map[string]any) { set(o, "yes", "metadata", "labels", "touched") })},
	{id: "configmap-delete", how: "DELETE configmap", base: "cm-delete", gvk: gvkConfigMap,
		build: objSet.configMapObj, run: deleteObject(gvkConfigMap), change: deletion},
	{id: "configmap-create", how: "POST configmap", base: "cm-new", gvk: gvkConfigMap,
		build: objSet.configMapObj, create: true, run: createObject(objSet.configMapObj, "cm-new")},
	{id: "secret-edit", how: "PATCH secret data", base: "sec-edit", gvk: gvkSecret,
		build: objSet.secretObj, run: mergePatch(gvkSecret, `{"data":{"k":"`+base64.StdEncoding.EncodeToString([]byte("v2"))+`"}}`),
		change: update(func(o map[string]any) { set(o, base64.StdEncoding.EncodeToString([]byte("v2")), "data", "k") })},
	{id: "secret-delete", how: "DELETE secret", base: "sec-delete", gvk: gvkSecret,
		build: objSet.secretObj, run: deleteObject(gvkSecret), change: deletion},
	{id: "pvc-resize", how: "PATCH PVC storage 1Gi -> 2Gi (Bound, expandable class)", base: "pvc-resize", gvk: gvkPVC,
		build: objSet.pvcObj, run: mergePatch(gvkPVC, `{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}`),
		change: update(func(o map[string]any) { set(o, "2Gi", "spec", "resources", "requests", "storage") })},
	{id: "pvc-delete", how: "DELETE PVC", base: "pvc-delete", gvk: gvkPVC,
		build: objSet.pvcObj, run: deleteObject(gvkPVC), change: deletion},
	{id: "pvc-create", how: "POST PVC", base: "pvc-new", gvk: gvkPVC,
		build: objSet.pvcObj, create: true, run: createObject(objSet.pvcObj, "pvc-new")},
	{id: "deployment-create", how: "POST deployment", base: "d-new", gvk: gvkDeployment,
		build: objSet.deploymentObj, create: true, run: createObject(objSet.deploymentObj, "d-new")},
	{id: "deployment-delete", how: "kubectl delete deployment", base: "d-delete", gvk: gvkDeployment,
		build: objSet.deploymentObj, run: kubectlRun("delete", "deployment/%s"), change: deletion},
	{id: "service-delete", how: "DELETE service", base: "svc-delete", gvk: gvkService,
		build: objSet.serviceObj, run: deleteObject(gvkService), change: deletion},
}

func doorByID(id string) door {
	i := slices.IndexFunc(doors, func(d door) bool { return d.id == id })
	if i < 0 {
		panic("no door " + id)
	}
	return doors[i]
}

// Object builders with the signature doors use.
func (o objSet) deploymentObj(ns, base string) client.Object  { return o.deployment(ns, base) }
func (o objSet) statefulSetObj(ns, base string) client.Object { return o.statefulSet(ns, base) }
func (o objSet) daemonSetObj(ns, base string) client.Object   { return o.daemonSet(ns, base) }
func (o objSet) cronJobObj(ns, base string) client.Object     { return o.cronJob(ns, base) }
func (o objSet) podObj(ns, base string) client.Object         { return o.pod(ns, base) }
func (o objSet) configMapObj(ns, base string) client.Object   { return o.configMap(ns, base) }
func (o objSet) secretObj(ns, base string) client.Object      { return o.secret(ns, base) }
func (o objSet) pvcObj(ns, base string) client.Object         { return o.pvc(ns, base) }
func (o objSet) serviceObj(ns, base string) client.Object     { return o.service(ns, base) }

// object returns the door's object in the set.
func (d door) object(o objSet, ns string) client.Object { return d.build(o, ns, d.base) }

// ---- running doors ----

// runner runs doors against the harness.
type runner struct {
	s *suite
}

func kubectlRun(verb string, args ...string) func(context.Context, *runner, string, string, objSet, bool) error {
	return func(ctx context.Context, x *runner, ns, name string, _ objSet, dry bool) error {
		full := []string{"-n", ns, verb}
		for _, a := range args {
			if a == "deployment/%s" || a == "statefulset/%s" || a == "daemonset/%s" || a == "cronjob/%s" || a == "pod/%s" {
				a = fmt.Sprintf(a, name)
			}
			full = append(full, a)
		}
		if dry {
			full = append(full, "--dry-run=server")
		}
		_, stderr, err := x.s.env.Kubectl(ctx, full...)
		if w, ok := ctx.Value(warningsKey{}).(*warnings); ok {
			for _, line := range strings.Split(stderr, "\n") {
				if text, ok := strings.CutPrefix(line, "Warning: "); ok {
					w.add(text)
				}
			}
		}
		return err // it carries kubectl's stderr
	}
}

func mergePatch(gvk schema.GroupVersionKind, patch string) func(context.Context, *runner, string, string, objSet, bool) error {
	return func(ctx context.Context, x *runner, ns, name string, _ objSet, dry bool) error {
		obj := &metav1.PartialObjectMetadata{}
		obj.SetGroupVersionKind(gvk)
		obj.SetNamespace(ns)
		obj.SetName(name)
		var opts []client.PatchOption
		if dry {
			opts = append(opts, client.DryRunAll)
		}
		return x.s.c.Patch(ctx, obj, client.RawPatch("application/merge-patch+json", []byte(patch)), opts...)
	}
}

func deleteObject(gvk schema.GroupVersionKind) func(context.Context, *runner, string, string, objSet, bool) error {
	return func(ctx context.Context, x *runner, ns, name string, _ objSet, dry bool) error {
		obj := &metav1.PartialObjectMetadata{}
		obj.SetGroupVersionKind(gvk)
		obj.SetNamespace(ns)
		obj.SetName(name)
		var opts []client.DeleteOption
		if dry {
			opts = append(opts, client.DryRunAll)
		}
		return x.s.c.Delete(ctx, obj, opts...)
	}
}

func scaleSubresource(replicas int32) func(context.Context, *runner, string, string, objSet, bool) error {
	return func(ctx context.Context, x *runner, ns, name string, _ objSet, dry bool) error {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		sc := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: autoscalingv1.ScaleSpec{Replicas: replicas}}
		opts := []client.SubResourceUpdateOption{client.WithSubResourceBody(sc)}
		if dry {
			opts = append(opts, client.DryRunAll)
		}
		return x.s.c.SubResource("scale").Update(ctx, d, opts...)
	}
}

// relabel moves the object to the set's peer application.
func relabel(ctx context.Context, x *runner, ns, name string, o objSet, dry bool) error {
	patch := `{"metadata":{"labels":{"` + plan.InstanceLabel + `":"` + o.peer + `"}}}`
	return mergePatch(gvkDeployment, patch)(ctx, x, ns, name, o, dry)
}

func reorderContainers(ctx context.Context, x *runner, ns, name string, _ objSet, dry bool) error {
	return mergePatch(gvkDeployment,
		`{"spec":{"template":{"spec":{"containers":[{"name":"side","image":"busybox:1"},{"name":"app","image":"nginx:1"}]}}}}`)(ctx, x, ns, name, objSet{}, dry)
}

// createObject creates the object build makes (create doors only).
func createObject(build func(objSet, string, string) client.Object, base string) func(context.Context, *runner, string, string, objSet, bool) error {
	return func(ctx context.Context, x *runner, ns, _ string, o objSet, dry bool) error {
		var opts []client.CreateOption
		if dry {
			opts = append(opts, client.DryRunAll)
		}
		return x.s.c.Create(ctx, build(o, ns, base), opts...)
	}
}

// ---- admission requests ----

func update(f func(map[string]any)) func(map[string]any) change {
	return func(old map[string]any) change {
		obj := runtime.DeepCopyJSON(old)
		f(obj)
		return change{op: render.OpUpdate, object: obj, oldObject: old}
	}
}

func deletion(old map[string]any) change {
	return change{op: render.OpDelete, oldObject: old}
}

// scaleTo is a /scale request: the API server sends autoscaling/v1 Scale
// objects; Kyverno, and so Explain, sees the parent's kind.
func scaleTo(n int64) func(map[string]any) change {
	return func(old map[string]any) change {
		meta, _ := old["metadata"].(map[string]any)
		cur, _ := lookup(old, "spec", "replicas").(int64)
		scale := func(r int64) map[string]any {
			return map[string]any{
				"apiVersion": "autoscaling/v1", "kind": "Scale",
				"metadata": map[string]any{"name": meta["name"], "namespace": meta["namespace"]},
				"spec":     map[string]any{"replicas": r},
			}
		}
		return change{op: render.OpUpdate, subresource: "scale", object: scale(n), oldObject: scale(cur)}
	}
}

func setImage(podSpec []string, list, container, image string) func(map[string]any) {
	return func(o map[string]any) {
		cs, _ := lookup(o, append(slices.Clone(podSpec), list)...).([]any)
		for _, c := range cs {
			if m, _ := c.(map[string]any); m["name"] == container {
				m["image"] = image
			}
		}
	}
}

func reverseContainers(o map[string]any) {
	cs, _ := lookup(o, "spec", "template", "spec", "containers").([]any)
	slices.Reverse(cs)
}

func restartedAt(o map[string]any) {
	set(o, "2026-07-20T10:00:00Z", "spec", "template", "metadata", "annotations", "kubectl.kubernetes.io/restartedAt")
}

func addEphemeral(old map[string]any) change {
	obj := runtime.DeepCopyJSON(old)
	spec, _ := obj["spec"].(map[string]any)
	eph, _ := spec["ephemeralContainers"].([]any)
	spec["ephemeralContainers"] = append(eph, map[string]any{"name": "dbg", "image": "busybox:1"})
	return change{op: render.OpUpdate, subresource: "ephemeralcontainers", object: obj, oldObject: old}
}

// lookup is the value at path in o, nil when there is none.
func lookup(o map[string]any, path ...string) any {
	v, _, _ := unstructured.NestedFieldNoCopy(o, path...)
	return v
}

func set(o map[string]any, v any, path ...string) {
	cur := o
	for _, p := range path[:len(path)-1] {
		next, ok := cur[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[p] = next
		}
		cur = next
	}
	cur[path[len(path)-1]] = v
}
