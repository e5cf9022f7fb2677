//go:build e2e

package matrix

import (
	"context"
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/plan"
)

// storageClass is an expandable StorageClass: the API server refuses to
// resize a PVC whose class does not allow expansion before Kyverno is
// called (E2E.md), so a resize that a policy must refuse needs one.
const storageClass = "e2e-expandable"

// objSet is one set of fixture objects in a namespace: every door has its
// own object, so that each request of the matrix is independent of the
// others and each audited violation names the door that caused it.
type objSet struct {
	// prefix is put before every object name: "" for the set in scope,
	// "o-" for the objects of another application in the same namespace.
	prefix string
	// app is the value of app.kubernetes.io/instance on every object of
	// the set ("" for none: a namespaces scope).
	app string
	// peer is another application's name: the relabel door moves its
	// object there (for the set in scope, out of the frozen application;
	// for another application's set, into it).
	peer string
}

func (o objSet) name(base string) string { return o.prefix + base }

func (o objSet) labels() map[string]string {
	if o.app == "" {
		return nil
	}
	return map[string]string{plan.InstanceLabel: o.app}
}

// guardLabels are the labels of the guard doors' objects: the set's, and
// in a set without an application, a label of an application no plan
// names, so that removing or changing it is a real change everywhere.
func (o objSet) guardLabels() map[string]string {
	if o.app == "" {
		return map[string]string{plan.InstanceLabel: "loose"}
	}
	return o.labels()
}

func (o objSet) meta(ns, base string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: o.name(base), Labels: o.labels()}
}

// podSpec has two containers and an init container, so that set image can
// change either and a reorder can swap them.
func podSpec() corev1.PodSpec {
	return corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "init", Image: "busybox:1"}},
		Containers:     []corev1.Container{{Name: "app", Image: "nginx:1"}, {Name: "side", Image: "busybox:1"}},
	}
}

func template(name string, labels map[string]string) corev1.PodTemplateSpec {
	l := map[string]string{"e2e": name}
	maps.Copy(l, labels)
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: l}, Spec: podSpec()}
}

func selector(name string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{"e2e": name}}
}

func (o objSet) deployment(ns, base string) *appsv1.Deployment {
	m := o.meta(ns, base)
	if base == "d-unlabel" || base == "d-relabel" {
		m.Labels = o.guardLabels()
	}
	return &appsv1.Deployment{ObjectMeta: m, Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](1), Selector: selector(m.Name), Template: template(m.Name, o.labels()),
	}}
}

func (o objSet) statefulSet(ns, base string) *appsv1.StatefulSet {
	m := o.meta(ns, base)
	return &appsv1.StatefulSet{ObjectMeta: m, Spec: appsv1.StatefulSetSpec{
		Replicas: ptr.To[int32](1), ServiceName: m.Name, Selector: selector(m.Name), Template: template(m.Name, o.labels()),
	}}
}

func (o objSet) daemonSet(ns, base string) *appsv1.DaemonSet {
	m := o.meta(ns, base)
	return &appsv1.DaemonSet{ObjectMeta: m, Spec: appsv1.DaemonSetSpec{Selector: selector(m.Name), Template: template(m.Name, o.labels())}}
}

func (o objSet) cronJob(ns, base string) *batchv1.CronJob {
	m := o.meta(ns, base)
	t := template(m.Name, o.labels())
	t.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
	return &batchv1.CronJob{ObjectMeta: m, Spec: batchv1.CronJobSpec{
		Schedule:    "0 0 * * *",
		JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: t}},
	}}
}

func (o objSet) pod(ns, base string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: o.meta(ns, base), Spec: podSpec()}
}

func (o objSet) configMap(ns, base string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: o.meta(ns, base), Data: map[string]string{"k": "v1"}}
}

func (o objSet) secret(ns, base string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: o.meta(ns, base), Data: map[string][]byte{"k": []byte("v1")}}
}

func (o objSet) pvc(ns, base string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: o.meta(ns, base), Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		StorageClassName: ptr.To(storageClass),
		Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
	}}
}

func (o objSet) service(ns, base string) *corev1.Service {
	m := o.meta(ns, base)
	return &corev1.Service{ObjectMeta: m, Spec: corev1.ServiceSpec{
		Selector: map[string]string{"e2e": m.Name},
		Ports:    []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}},
	}}
}

// objects are the fixture objects of the set in ns: one per door (see
// doors), by base name.
func (o objSet) objects(ns string) []client.Object {
	var objs []client.Object
	for _, d := range doors {
		if !d.create {
			objs = append(objs, d.object(o, ns))
		}
	}
	return objs
}

// createObjects creates the set's objects in ns, then marks its PVCs Bound
// with a capacity (there is no controller-manager to bind them), so that a
// resize reaches admission.
func createObjects(ctx context.Context, c client.Client, ns string, o objSet) error {
	for _, obj := range o.objects(ns) {
		if err := c.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating %T %s/%s: %w", obj, ns, obj.GetName(), err)
		}
		if pvc, ok := obj.(*corev1.PersistentVolumeClaim); ok {
			pvc.Status.Phase = corev1.ClaimBound
			pvc.Status.AccessModes = pvc.Spec.AccessModes
			pvc.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}
			if err := c.Status().Update(ctx, pvc); err != nil {
				return fmt.Errorf("binding PVC %s/%s: %w", ns, pvc.Name, err)
			}
		}
	}
	return nil
}

// createStorageClass creates the expandable StorageClass once.
func createStorageClass(ctx context.Context, c client.Client) error {
	sc := &storagev1.StorageClass{
		ObjectMeta:           metav1.ObjectMeta{Name: storageClass},
		Provisioner:          "e2e.telark.io/none",
		AllowVolumeExpansion: ptr.To(true),
	}
	if err := c.Create(ctx, sc); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

func createNamespace(ctx context.Context, c client.Client, name string) error {
	err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
