package render

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// AnnotationTemplateHashes is on every object of a compact policy: its
// templates' hashes, "<template>=<hash>" joined by commas in the plan's
// order (TemplatePart.Hash). It is not part of the canonical form
// (HashOf): it follows from the spec, and leaving it out keeps the render
// hash of a compact policy what it was before the annotation existed, so
// no policy is re-applied for it alone.
const AnnotationTemplateHashes = "telark.io/template-hashes"

// TemplatePart is one template of a compact policy (Policy.Parts).
type TemplatePart struct {
	// Template is the catalog name of the template.
	Template string
	// Hash is "sha256:" and the hex SHA-256 of the spec (its canonical
	// JSON) of the template's own policy as the standard layout renders it
	// in the namespace (its first object: the Policy, ValidatingPolicy or
	// ValidatingAdmissionPolicy). It changes exactly when what the
	// template asks of the namespace does, and is the same in every
	// namespace the plan's scope renders alike.
	Hash string
	// Rules is how many entries of the policy's rule list (RuleList) are
	// the template's: the parts hold the list in order, each template's
	// rules and scope guards together.
	Rules int
}

// withParts adds the parts of a compact policy: each template's spec is
// rendered for the namespace as the standard layout renders it (spec is
// the translator's), hashed and its rules counted. Namespaces of the same
// scope key share their specs (protos, as eachPolicy shares them) and so
// their parts: a plan over 2,000 namespaces hashes nine specs, not
// 18,000. The translators read c.compact when they build a spec, so it is
// off while they do.
func (c *compiled) withParts(p Policy, ns nsScope, protos map[string]*specProto,
	spec func(u policyUnit, ns nsScope) (*specProto, error)) (Policy, error) {
	pp, ok := c.parts[ns.key]
	if !ok {
		var err error
		if pp, err = c.partsOf(ns, protos, spec); err != nil {
			return Policy{}, err
		}
		if c.parts == nil {
			c.parts = map[string]policyParts{}
		}
		c.parts[ns.key] = pp
	}
	for _, o := range p.Objects {
		md := o.Object["metadata"].(map[string]any) // renderedObject's own
		ann, _ := md["annotations"].(map[string]any)
		if ann == nil {
			ann = map[string]any{}
			md["annotations"] = ann
		}
		ann[AnnotationTemplateHashes] = pp.hashes
	}
	p.Parts = pp.parts // shared by the namespaces of the key, as Templates is
	return p, nil
}

// policyParts are the parts of the compact policies of a scope key, and
// their annotation.
type policyParts struct {
	parts  []TemplatePart
	hashes string
}

func (c *compiled) partsOf(ns nsScope, protos map[string]*specProto,
	spec func(u policyUnit, ns nsScope) (*specProto, error)) (policyParts, error) {
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
				return policyParts{}, err
			}
			protos[key] = proto
		}
		sum := sha256.Sum256(proto.json)
		rules, _, _ := ruleListOf(proto.spec)
		parts[i] = TemplatePart{Template: bt.name, Hash: hashPrefix + hex.EncodeToString(sum[:]), Rules: len(rules)}
	}
	return policyParts{parts: parts, hashes: TemplateHashes(parts)}, nil
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
