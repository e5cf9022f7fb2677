// Package kube reads, from a cluster, the facts the library's decisions
// take as input: the namespaces, the release and excluded namespaces, the
// categories, the objects applications resolve from, the managed policies,
// and the PolicyViolation events and PolicyReports violations are read
// from. The operator and the server share it, and the flags that say where
// those facts are (Facts.RegisterFlags).
//
// It only reads. A kind the cluster does not serve (Kyverno, or its report
// CRDs, not installed) is an empty result, with an error IsNotServed
// recognises where the caller has to know; every other failure is returned
// wrapped, saying what could not be read. What an error means to a caller
// (a 503, a skipped pass) is the caller's.
package kube

import (
	"errors"
	"flag"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// Defaults of the flags, and the ConfigMap keys.
const (
	DefaultReleaseNamespace    = "telark-system"
	DefaultExcludedNamespaces  = "kube-system,kube-public,kube-node-lease"
	DefaultCategoriesConfigMap = "protectionplans-categories"
	// ExcludedKey is the excluded-namespace ConfigMap's key when
	// Excluded.Key is empty.
	ExcludedKey = "namespaces"
	// CategoriesKey holds the custom categories, a JSON list.
	CategoriesKey = "categories.json"
)

// Facts say where the facts shared by the operator and the server are.
type Facts struct {
	// ReleaseNamespace is where the product runs: plans may not freeze
	// it, and the categories ConfigMap lives there.
	ReleaseNamespace string
	// Excluded are the namespaces plans may not target.
	Excluded Excluded
	// CategoriesConfigMap is the name, in ReleaseNamespace, of the
	// ConfigMap of the custom categories; empty means
	// DefaultCategoriesConfigMap.
	CategoriesConfigMap string
}

// Excluded are the namespaces plans may not target: a fixed list and,
// when ConfigMap is set, the list under its key Key (ExcludedKey when
// empty): names separated by commas, spaces or new lines, read on every
// call of Reader.Excluded.
type Excluded struct {
	Static    []string
	ConfigMap *types.NamespacedName
	Key       string
}

// CategoriesRef is the categories ConfigMap's namespace and name.
func (f Facts) CategoriesRef() types.NamespacedName {
	name := f.CategoriesConfigMap
	if name == "" {
		name = DefaultCategoriesConfigMap
	}
	return types.NamespacedName{Namespace: f.ReleaseNamespace, Name: name}
}

// RegisterFlags sets f to the defaults and registers on fs the flags that
// set it: --release-namespace, --excluded-namespaces and
// --excluded-namespaces-configmap (NAMESPACE/NAME; a malformed value fails
// fs.Parse).
func (f *Facts) RegisterFlags(fs *flag.FlagSet) {
	f.Excluded.Static = SplitNames(DefaultExcludedNamespaces)
	fs.StringVar(&f.ReleaseNamespace, "release-namespace", DefaultReleaseNamespace,
		"the namespace the product runs in: never frozen; holds the categories ConfigMap")
	fs.Var((*namesValue)(&f.Excluded.Static), "excluded-namespaces",
		"`namespaces` plans may not target, comma-separated")
	fs.Var(refValue{&f.Excluded.ConfigMap}, "excluded-namespaces-configmap",
		"`NAMESPACE/NAME` of a ConfigMap whose key \"namespaces\" lists more excluded namespaces (read on every validation; while unreadable, the server answers 503 to namespace-scoped plans)")
}

// SplitNames splits a list of names separated by commas, spaces, tabs or
// new lines.
func SplitNames(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\n' || r == '\t' || r == '\r'
	})
}

type namesValue []string

func (v *namesValue) String() string {
	if v == nil {
		return ""
	}
	return strings.Join(*v, ",")
}

func (v *namesValue) Set(s string) error {
	*v = slices.Clip(SplitNames(s))
	return nil
}

type refValue struct{ ref **types.NamespacedName }

func (v refValue) String() string {
	if v.ref == nil || *v.ref == nil {
		return ""
	}
	return (*v.ref).String()
}

func (v refValue) Set(s string) error {
	if s == "" {
		*v.ref = nil
		return nil
	}
	ns, name, ok := strings.Cut(s, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return errors.New("must be NAMESPACE/NAME")
	}
	*v.ref = &types.NamespacedName{Namespace: ns, Name: name}
	return nil
}
