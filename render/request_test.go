package render_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// scaleReview is kubectl scale of a Deployment, as the API server sends
// it to a webhook.
const scaleReview = `{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
  "uid": "1", "kind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
  "resource": {"group": "apps", "version": "v1", "resource": "deployments"}, "subResource": "scale",
  "name": "payments-api", "namespace": "payments", "operation": "UPDATE",
  "userInfo": {"username": "alice", "groups": ["developers"]},
  "object": {"apiVersion": "autoscaling/v1", "kind": "Scale", "spec": {"replicas": 6}},
  "oldObject": {"apiVersion": "autoscaling/v1", "kind": "Scale", "spec": {"replicas": 3}}}}`

func TestDecodeRequest(t *testing.T) {
	deployment := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	cases := map[string]struct {
		doc  string
		opts []plan.DecodeOption
		want render.Request
	}{
		"a small request of a catalog kind gets its group and version": {
			doc: "operation: DELETE\nkind: Deployment\nnamespace: shop\nuser: alice\noldObject: {metadata: {name: checkout}}\n",
			want: render.Request{Operation: render.OpDelete, Kind: deployment, Namespace: "shop",
				UserInfo: render.UserInfo{Username: "alice"}, OldObject: map[string]any{"metadata": map[string]any{"name": "checkout"}}},
		},
		"a small request's apiVersion is taken as written": {
			doc:  "operation: CREATE\napiVersion: example.com/v1\nkind: Widget\nnamespace: shop\nuser: alice\n",
			want: render.Request{Operation: render.OpCreate, Kind: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, Namespace: "shop", UserInfo: render.UserInfo{Username: "alice"}},
		},
		"a small request's kind outside the catalog has no group": {
			doc:  "operation: CREATE\nkind: Widget\nnamespace: shop\nuser: alice\n",
			want: render.Request{Operation: render.OpCreate, Kind: schema.GroupVersionKind{Kind: "Widget"}, Namespace: "shop", UserInfo: render.UserInfo{Username: "alice"}},
		},
		"a small request's operation may be written in lower case, its parent's labels are the labels": {
			doc: "operation: update\nkind: Deployment\nsubresource: scale\nnamespace: payments\nname: payments-api\nuser: alice\ngroups: [developers]\nparentLabels: {app: payments}\n",
			want: render.Request{Operation: render.OpUpdate, Kind: deployment, Subresource: "scale", Namespace: "payments", Name: "payments-api",
				Labels: map[string]string{"app": "payments"}, UserInfo: render.UserInfo{Username: "alice", Groups: []string{"developers"}}},
		},
		"a small request may be JSON": {
			doc:  `{"operation": "DELETE", "kind": "ConfigMap", "namespace": "shop", "user": "bob"}`,
			opts: []plan.DecodeOption{plan.WithFormat(plan.FormatJSON)},
			want: render.Request{Operation: render.OpDelete, Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Namespace: "shop", UserInfo: render.UserInfo{Username: "bob"}},
		},
		"a review of /scale is read as the parent's kind, as Kyverno sees it": {
			doc: scaleReview,
			want: render.Request{Operation: render.OpUpdate, Kind: deployment, Subresource: "scale", Namespace: "payments", Name: "payments-api",
				UserInfo:  render.UserInfo{Username: "alice", Groups: []string{"developers"}},
				Object:    map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale", "spec": map[string]any{"replicas": float64(6)}},
				OldObject: map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale", "spec": map[string]any{"replicas": float64(3)}}},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := render.DecodeRequest([]byte(c.doc), c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeRequest_Errors(t *testing.T) {
	review := func(request string) string {
		return `{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": ` + request + `}`
	}
	cases := map[string]struct {
		doc string
		// err is the message; decode says it is plan.Decode's, else a
		// *render.RequestError.
		err    string
		decode bool
	}{
		"a request without a user is refused": {
			doc: "operation: UPDATE\nkind: Deployment\nnamespace: shop\n",
			err: "missing user",
		},
		"every missing field is named, and why a namespace is needed": {
			doc: "name: checkout\n",
			err: "missing operation, kind, namespace (plans freeze namespaced objects), user",
		},
		"a review names the missing fields by their paths": {
			doc: review(`{"uid": "1", "operation": "DELETE", "kind": {"version": "v1", "kind": "Pod"}}`),
			err: "missing request.namespace (plans freeze namespaced objects), request.userInfo.username",
		},
		"an operation that is not one is refused": {
			doc: "operation: PATCH\nkind: Deployment\nnamespace: shop\nuser: alice\n",
			err: `operation "PATCH": want CREATE, UPDATE or DELETE`,
		},
		"a review of another version is refused": {
			doc: `{"apiVersion": "admission.k8s.io/v1beta1", "kind": "AdmissionReview", "request": {"uid": "1"}}`,
			err: `apiVersion "admission.k8s.io/v1beta1": want admission.k8s.io/v1`,
		},
		"a review without a version is refused": {
			doc: `{"kind": "AdmissionReview", "request": {"uid": "1"}}`,
			err: "missing apiVersion",
		},
		"a review without a request is refused": {
			doc: `{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}`,
			err: "request: required",
		},
		"a review whose object is not an object is refused": {
			doc: review(`{"uid": "1", "operation": "CREATE", "kind": {"version": "v1", "kind": "Pod"}, "namespace": "shop",
				"userInfo": {"username": "alice"}, "object": [1, 2]}`),
			err: "request.object: not an object: json: cannot unmarshal array into Go value of type map[string]interface {}",
		},
		"a document that is not YAML is refused": {
			doc: "operation: [\n",
			err: "not YAML or JSON: error converting YAML to JSON: yaml: line 1: did not find expected node content",
		},
		"an unknown field is a decoding problem, with its path": {
			doc: "operation: UPDATE\nkind: Deployment\nnamespace: shop\nuser: alice\nobjekt: {}\n",
			err: "objekt: unknown field", decode: true,
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := render.DecodeRequest([]byte(c.doc))
			if err == nil {
				t.Fatal("no error")
			}
			var re *render.RequestError
			var de *plan.DecodeError
			switch {
			case c.decode && !errors.As(err, &de):
				t.Errorf("%T %v, want a *plan.DecodeError", err, err)
			case !c.decode && !errors.As(err, &re):
				t.Errorf("%T %v, want a *render.RequestError", err, err)
			}
			if c.decode {
				if got := de.Problems[0].String(); got != c.err {
					t.Errorf("problem %q, want %q", got, c.err)
				}
			} else if err.Error() != c.err {
				t.Errorf("error %q, want %q", err, c.err)
			}
			if code := plan.CodeOf(err); code != http.StatusBadRequest {
				t.Errorf("code %d, want 400", code)
			}
		})
	}
}

func TestKindOfResource(t *testing.T) {
	cases := map[string]struct {
		group, resource string
		want            string
		ok              bool
	}{
		"deployments are apps Deployments":       {"apps", "deployments", "Deployment", true},
		"pods are core Pods":                     {"", "pods", "Pod", true},
		"a resource of another group is unknown": {"extensions", "deployments", "", false},
		"replicasets are not in the catalog":     {"apps", "replicasets", "", false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			k, ok := render.KindOfResource(c.group, c.resource)
			if ok != c.ok || k.Kind != c.want {
				t.Errorf("KindOfResource(%q, %q) = %q, %v; want %q, %v", c.group, c.resource, k.Kind, ok, c.want, c.ok)
			}
		})
	}
}

func TestRequest_Summary(t *testing.T) {
	cases := map[string]struct {
		req  render.Request
		want string
	}{
		"a subresource follows its parent": {
			render.Request{Operation: render.OpUpdate, Kind: schema.GroupVersionKind{Kind: "Deployment"}, Subresource: "scale",
				Namespace: "payments", Name: "payments-api", UserInfo: render.UserInfo{Username: "alice"}},
			"UPDATE Deployment payments/payments-api (scale) by alice",
		},
		"the name is read from the old object when the request names none": {
			render.Request{Operation: render.OpDelete, Kind: schema.GroupVersionKind{Kind: "ConfigMap"}, Namespace: "shop",
				OldObject: map[string]any{"metadata": map[string]any{"name": "settings"}}, UserInfo: render.UserInfo{Username: "bob"}},
			"DELETE ConfigMap shop/settings by bob",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := c.req.Summary(); got != c.want {
				t.Errorf("Summary() = %q, want %q", got, c.want)
			}
		})
	}
}

func TestDecision_VerdictAndPolicyRef(t *testing.T) {
	cases := map[string]struct {
		d       render.Decision
		target  render.Target
		verdict string
		ref     string
	}{
		"a blocked request names its namespaced policy": {
			render.Decision{Blocked: true, Namespace: "shop", Policy: "freeze-create"}, render.TargetKyverno, "blocked", "shop/freeze-create",
		},
		"an audited request names its namespaced CEL policy": {
			render.Decision{Audited: true, Namespace: "shop", Policy: "freeze-create"}, render.TargetKyvernoCEL, "audited", "shop/freeze-create",
		},
		"a ValidatingAdmissionPolicy is cluster-scoped": {
			render.Decision{Blocked: true, Namespace: "shop", Policy: "freeze-create-shop"}, render.TargetVAP, "blocked", "freeze-create-shop",
		},
		"an exempt requester's write names the record policy": {
			render.Decision{Exempt: true, Namespace: "shop", Policy: "freeze-exempt"}, render.TargetKyverno, "exempt", "shop/freeze-exempt",
		},
		"an admitted request names no policy": {
			render.Decision{Reason: "no template applies"}, render.TargetKyverno, "admitted", "",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := c.d.Verdict(); got != c.verdict {
				t.Errorf("Verdict() = %q, want %q", got, c.verdict)
			}
			if got := c.d.PolicyRef(c.target); got != c.ref {
				t.Errorf("PolicyRef() = %q, want %q", got, c.ref)
			}
		})
	}
}

func ExampleDecodeRequest() {
	req, err := render.DecodeRequest([]byte(scaleReview))
	if err != nil {
		panic(err)
	}
	fmt.Println(req.Summary())
	fmt.Println(req.Kind)

	_, err = render.DecodeRequest([]byte("operation: UPDATE\nkind: Deployment\n"))
	fmt.Println(err, plan.CodeOf(err))
	// Output:
	// UPDATE Deployment payments/payments-api (scale) by alice
	// apps/v1, Kind=Deployment
	// missing namespace (plans freeze namespaced objects), user 400
}
