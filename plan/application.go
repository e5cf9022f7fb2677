package plan

import (
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ErrApplicationNotFound is what an ApplicationResolver wraps when the
// application does not exist: validation then answers 400 (the plan names
// an unknown application) instead of 503 (the lookup failed).
var ErrApplicationNotFound = errors.New("application not found")

// Application is what an application name in a plan's scope resolves to.
// The embedder knows what an application is (an Argo CD Application, a Helm
// release, a label convention); the library only needs these three facts.
type Application struct {
	// Name is the application's name as written in the plan.
	Name string `json:"name"`
	// Namespaces are the namespaces its resources live in.
	Namespaces []string `json:"namespaces"`
	// Selector selects its resources by label. Policies match it, and read
	// the parent's labels for /scale (a Scale object has no labels).
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	// Members are the resources it owns, as known when resolved. Named
	// resource exclusions must name members.
	Members []ResourceRef `json:"members,omitempty"`
}

// ApplicationResolver resolves an application name. It is implemented by
// the embedder. A name that does not exist returns an error for which
// errors.Is(err, ErrApplicationNotFound) holds; any other error means the
// lookup itself failed (and validation answers 503).
type ApplicationResolver interface {
	ResolveApplication(name string) (Application, error)
}

// ApplicationResolverFunc adapts a function to ApplicationResolver.
type ApplicationResolverFunc func(name string) (Application, error)

// ResolveApplication calls f.
func (f ApplicationResolverFunc) ResolveApplication(name string) (Application, error) {
	return f(name)
}

var _ ApplicationResolver = ApplicationResolverFunc(nil)
