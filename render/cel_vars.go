package render

import (
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// The variables of a CEL policy (spec.variables): named expressions that
// validations share. Both Kyverno and the API server evaluate a variable
// only when an expression reads it, so a variable that reads the old
// object is never evaluated on CREATE when every reader is guarded by the
// operation.

// Variable names.
const (
	// varSubresource is the request's subresource, "" for the resource
	// itself: request.subResource is absent, not empty, on a plain request.
	varSubresource = "subresource"
	// varOldLabels and varNewLabels are the labels of the old and new
	// objects, empty when they have none.
	varOldLabels = "oldLabels"
	varNewLabels = "newLabels"
	// varParentLabels (kyverno-cel) are the labels of a /scale request's
	// parent, read with Kyverno's resource.Get (namespace implied).
	varParentLabels = "parentLabels"
)

// celVarExpressions are the expressions of the fixed variables.
var celVarExpressions = map[string]string{
	varSubresource:  `request.?subResource.orValue("")`,
	varOldLabels:    "oldObject.metadata.?labels.orValue({})",
	varNewLabels:    "object.metadata.?labels.orValue({})",
	varParentLabels: `resource.Get((request.resource.group == "" ? "" : request.resource.group + "/") + request.resource.version, request.resource.resource, request.?name.orValue("")).metadata.?labels.orValue({})`,
}

// podSpecNames name the pod spec paths in image variables.
var podSpecNames = map[string]string{podSpecTemplate: "Template", podSpecCronJob: "CronJob", podSpecPod: "Pod"}

// imagesVar names the variable listing the "name=image" pairs of the pod
// spec at path of the new or old object, e.g. newTemplateImages.
func imagesVar(side, path string) string { return side + podSpecNames[path] + "Images" }

// imagesExpression lists the "name=image" pairs of every container, init
// container and ephemeral container of the pod spec at path. The object
// is read as dyn: a policy matches kinds whose pod specs live at different
// paths (Pods and Deployments), and the API server type-checks every
// validation against every kind it matches.
func imagesExpression(side, path string) string {
	obj := "object"
	if side == "old" {
		obj = "oldObject"
	}
	spec := "dyn(" + obj + ")"
	for _, step := range strings.Split(path, ".") {
		spec += ".?" + step
	}
	var lists []string
	for _, l := range []string{"containers", "initContainers", "ephemeralContainers"} {
		lists = append(lists, spec+".?"+l+`.orValue([]).map(c, c.name + "=" + c.?image.orValue(""))`)
	}
	return strings.Join(lists, " + ")
}

// celVars records the variables a policy's expressions read.
type celVars struct {
	used []string
}

// use records a variable and returns the expression that reads it.
func (v *celVars) use(name string) string {
	if !slices.Contains(v.used, name) {
		v.used = append(v.used, name)
	}
	return "variables." + name
}

// declarations are the variables used, in a fixed order: the fixed ones,
// then the image lists by path and side.
func (v *celVars) declarations() []admissionregistrationv1.Variable {
	var out []admissionregistrationv1.Variable
	for _, name := range []string{varSubresource, varOldLabels, varNewLabels, varParentLabels} {
		if slices.Contains(v.used, name) {
			out = append(out, admissionregistrationv1.Variable{Name: name, Expression: celVarExpressions[name]})
		}
	}
	for _, path := range []string{podSpecTemplate, podSpecCronJob, podSpecPod} {
		for _, side := range []string{"new", "old"} {
			if name := imagesVar(side, path); slices.Contains(v.used, name) {
				out = append(out, admissionregistrationv1.Variable{Name: name, Expression: imagesExpression(side, path)})
			}
		}
	}
	return out
}
