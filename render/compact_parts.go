package render

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// AnnotationTemplateHashes is on every object of a compact policy: its
// templates' render hashes, "<template>=<hash>" joined by commas in the
// plan's order, each the hash (Policy.Hash) of the policy the standard
// layout renders for that template in the same namespace. It is not part
// of the canonical form (HashOf): it follows from the spec, and leaving it
// out keeps the render hash of a compact policy what it was before the
// annotation existed, so no policy is re-applied for it alone.
const AnnotationTemplateHashes = "telark.io/template-hashes"

// TemplatePart is one template of a compact policy (Policy.Parts).
type TemplatePart struct {
	// Template is the catalog name of the template.
	Template string
	// Hash is the render hash the standard layout gives the template's
	// own policy in the same namespace.
	Hash string
	// Rules is how many entries of the policy's rule list (RuleList) are
	// the template's: the parts hold the list in order, each template's
	// rules and scope guards together.
	Rules int
}

// withParts adds the parts of a compact policy: each template is rendered
// for the namespace as the standard layout renders it (spec and policy are
// the translator's, and the specs are shared between namespaces through
// protos as eachPolicy shares them), its hash kept and its rules counted.
// The translators read c.compact when they build a spec, so it is off
// while they do.
func (c *compiled) withParts(p Policy, ns nsScope, protos map[string]*specProto,
	spec func(u policyUnit, ns nsScope) (*specProto, error),
	policy func(u policyUnit, ns nsScope, proto *specProto) (Policy, error)) (Policy, error) {
	c.compact = false
	defer func() { c.compact = true }()
	parts := make([]TemplatePart, len(c.templates))
	for i, bt := range c.templates {
		u := templateUnit(bt, ns)
		key := u.template + "\x00" + ns.key
		proto := protos[key]
		if proto == nil {
			var err error
			if proto, err = spec(u, ns); err != nil {
				return Policy{}, err
			}
			protos[key] = proto
		}
		own, err := policy(u, ns, proto)
		if err != nil {
			return Policy{}, err
		}
		rules, _, _ := ruleListOf(proto.spec)
		parts[i] = TemplatePart{Template: bt.name, Hash: own.Hash, Rules: len(rules)}
	}
	hashes := TemplateHashes(parts)
	for _, o := range p.Objects {
		md := o.Object["metadata"].(map[string]any) // renderedObject's own
		ann, _ := md["annotations"].(map[string]any)
		if ann == nil {
			ann = map[string]any{}
			md["annotations"] = ann
		}
		ann[AnnotationTemplateHashes] = hashes
	}
	p.Parts = parts
	return p, nil
}

// TemplateHashes writes the AnnotationTemplateHashes value of parts.
func TemplateHashes(parts []TemplatePart) string {
	var b strings.Builder
	for i, pt := range parts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(pt.Template)
		b.WriteByte('=')
		b.WriteString(pt.Hash)
	}
	return b.String()
}

// ParseTemplateHashes reads an AnnotationTemplateHashes value: the
// templates' hashes by template name. An entry without "=" or with an
// empty template or hash, or a template listed twice, is an error naming
// it; the empty value is no template.
func ParseTemplateHashes(v string) (map[string]string, error) {
	out := map[string]string{}
	if v == "" {
		return out, nil
	}
	for i, e := range strings.Split(v, ",") {
		t, h, ok := strings.Cut(e, "=")
		switch {
		case !ok || t == "" || h == "":
			return nil, fmt.Errorf("render: annotation %s: entry %d (%q) is not <template>=<hash>", AnnotationTemplateHashes, i+1, e)
		case out[t] != "":
			return nil, fmt.Errorf("render: annotation %s: template %q is listed twice", AnnotationTemplateHashes, t)
		}
		out[t] = h
	}
	return out, nil
}

// RuleList returns the rule list of a rendered policy object and the path
// of its field: spec.rules for a kyverno.io/v1 policy, spec.validations
// for a ValidatingAdmissionPolicy or a policies.kyverno.io/v1
// ValidatingPolicy (one validation per rule). ok is false for an object
// with neither (a VAP binding). The list is the object's own (read-only:
// see Policy.Objects); TemplatePart.Rules counts its entries.
func RuleList(obj *unstructured.Unstructured) (list []any, field string, ok bool) {
	if obj == nil {
		return nil, "", false
	}
	spec, _ := obj.Object["spec"].(map[string]any)
	return ruleListOf(spec)
}

func ruleListOf(spec map[string]any) ([]any, string, bool) {
	for _, f := range []string{"rules", "validations"} {
		if l, ok := spec[f].([]any); ok {
			return l, "spec." + f, true
		}
	}
	return nil, "", false
}
