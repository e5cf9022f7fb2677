package main

import (
	"encoding/json"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/telark/protectionplans/render"
)

// smallRequest is the short request file explain reads besides an
// AdmissionReview:
//
//	operation: UPDATE            # CREATE, UPDATE or DELETE
//	apiVersion: apps/v1          # optional for the catalog's kinds
//	kind: Deployment             # for a subresource, the parent's kind
//	subresource: scale           # optional
//	namespace: shop
//	name: checkout               # optional when an object has one
//	user: alice
//	groups: [developers]         # optional
//	parentLabels: {app: checkout} # /scale: the parent's labels
//	object: {...}                # the new object (not on DELETE)
//	oldObject: {...}             # the old object (not on CREATE)
type smallRequest struct {
	Operation    string            `json:"operation"`
	APIVersion   string            `json:"apiVersion,omitempty"`
	Kind         string            `json:"kind"`
	Subresource  string            `json:"subresource,omitempty"`
	Namespace    string            `json:"namespace"`
	Name         string            `json:"name,omitempty"`
	User         string            `json:"user"`
	Groups       []string          `json:"groups,omitempty"`
	ParentLabels map[string]string `json:"parentLabels,omitempty"`
	Object       map[string]any    `json:"object,omitempty"`
	OldObject    map[string]any    `json:"oldObject,omitempty"`
}

// loadRequest reads --request: an admission.k8s.io/v1 AdmissionReview
// (what the API server sends a webhook) or a smallRequest. Either is
// decoded strictly; anything wrong with it is a usage error.
func (a *app) loadRequest(name string) (render.Request, error) {
	data, err := a.readFile("--request", name)
	if err != nil {
		return render.Request{}, err
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return render.Request{}, requestError(name, fmt.Errorf("not YAML or JSON: %v", err))
	}
	if head.Kind == "AdmissionReview" {
		var review admissionv1.AdmissionReview
		if err := decode(name, data, &review); err != nil {
			return render.Request{}, requestError(name, fileError(name, err))
		}
		req, err := fromReview(review)
		if err != nil {
			return render.Request{}, requestError(name, err)
		}
		return req, nil
	}
	var small smallRequest
	if err := decode(name, data, &small); err != nil {
		return render.Request{}, requestError(name, fileError(name, err))
	}
	req, err := fromSmall(small)
	if err != nil {
		return render.Request{}, requestError(name, err)
	}
	return req, nil
}

func requestError(name string, err error) error {
	msg := err.Error()
	if !strings.HasPrefix(msg, name) {
		msg = name + ": " + msg
	}
	return usageErrorf("--request %s", msg)
}

func fromReview(review admissionv1.AdmissionReview) (render.Request, error) {
	if review.APIVersion != admissionv1.SchemeGroupVersion.String() {
		return render.Request{}, fmt.Errorf("apiVersion %q: want %s", review.APIVersion, admissionv1.SchemeGroupVersion)
	}
	r := review.Request
	if r == nil {
		return render.Request{}, fmt.Errorf("request: required")
	}
	req := render.Request{
		Operation:   render.Operation(r.Operation),
		Kind:        schema.GroupVersionKind{Group: r.Kind.Group, Version: r.Kind.Version, Kind: r.Kind.Kind},
		Subresource: r.SubResource,
		Namespace:   r.Namespace,
		Name:        r.Name,
		UserInfo:    render.UserInfo{Username: r.UserInfo.Username, Groups: r.UserInfo.Groups},
	}
	// For /scale the API server sends the Scale's kind; Kyverno, and so
	// the rules, see the parent's kind, which the resource names.
	if r.SubResource != "" {
		if k, ok := kindOfResource(r.Resource.Group, r.Resource.Resource); ok {
			req.Kind = schema.GroupVersionKind{Group: k.Group, Version: r.Resource.Version, Kind: k.Kind}
		}
	}
	var err error
	if req.Object, err = rawObject(r.Object, "request.object"); err != nil {
		return render.Request{}, err
	}
	if req.OldObject, err = rawObject(r.OldObject, "request.oldObject"); err != nil {
		return render.Request{}, err
	}
	return req, checkRequest(req)
}

// kindOfResource finds a catalog kind by its group and plural resource.
func kindOfResource(group, resource string) (render.Kind, bool) {
	for _, k := range render.KnownKinds() {
		if k.Group == group && k.Resource == resource {
			return k, true
		}
	}
	return render.Kind{}, false
}

func rawObject(raw runtime.RawExtension, path string) (map[string]any, error) {
	if len(raw.Raw) == 0 || string(raw.Raw) == "null" {
		return nil, nil
	}
	var obj map[string]any
	if err := json.Unmarshal(raw.Raw, &obj); err != nil {
		return nil, fmt.Errorf("%s: not an object: %v", path, err)
	}
	return obj, nil
}

func fromSmall(s smallRequest) (render.Request, error) {
	gvk := schema.FromAPIVersionAndKind(s.APIVersion, s.Kind)
	if s.APIVersion == "" {
		for _, k := range render.KnownKinds() {
			if k.Kind == s.Kind {
				gvk = schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
			}
		}
	}
	req := render.Request{
		Operation:   render.Operation(strings.ToUpper(s.Operation)),
		Kind:        gvk,
		Subresource: s.Subresource,
		Namespace:   s.Namespace,
		Name:        s.Name,
		Labels:      s.ParentLabels,
		Object:      s.Object,
		OldObject:   s.OldObject,
		UserInfo:    render.UserInfo{Username: s.User, Groups: s.Groups},
	}
	return req, checkRequest(req)
}

// checkRequest refuses a request explain cannot say anything true about.
func checkRequest(r render.Request) error {
	var missing []string
	if r.Operation == "" {
		missing = append(missing, "operation")
	}
	if r.Kind.Kind == "" {
		missing = append(missing, "kind")
	}
	if r.Namespace == "" {
		missing = append(missing, "namespace (plans freeze namespaced objects)")
	}
	if r.UserInfo.Username == "" {
		missing = append(missing, "user")
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing %s", strings.Join(missing, ", "))
	}
	switch r.Operation {
	case render.OpCreate, render.OpUpdate, render.OpDelete, "CONNECT":
	default:
		return fmt.Errorf("operation %q: want CREATE, UPDATE or DELETE", r.Operation)
	}
	return nil
}
