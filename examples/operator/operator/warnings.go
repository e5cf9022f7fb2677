package operator

import (
	"context"
	"slices"
	"sync"

	"k8s.io/client-go/rest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// The API server's warnings (its 299 Warning headers: Kyverno 1.19's
// deprecation of kyverno.io/v1 Policy and ClusterPolicy comes with every
// write of one) to the writes of a plan's pass are collected here and
// handed to package reconcile (Carried.Warnings), which decides what to
// show and when it was shown already (plan.ConditionAPIWarnings): the
// operator records the events, logs Output.Warnings and stores the
// condition. Warnings to any other request go to the handler the
// embedder set, or are logged once each.

// warnings are the warnings of the requests made with one context.
type warnings struct {
	mu   sync.Mutex
	list []string
}

type warningsKey struct{}

// collectWarnings returns a context whose requests' warnings go to the
// returned collector.
func collectWarnings(ctx context.Context) (context.Context, *warnings) {
	w := &warnings{}
	return context.WithValue(ctx, warningsKey{}, w), w
}

func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.list)
}

// warningHandler is the manager's client-go warning handler.
type warningHandler struct {
	fallback rest.WarningHandlerWithContext
}

func (h warningHandler) HandleWarningHeaderWithContext(ctx context.Context, code int, agent, text string) {
	if w, ok := ctx.Value(warningsKey{}).(*warnings); ok && code == 299 && text != "" {
		w.mu.Lock()
		w.list = append(w.list, text)
		w.mu.Unlock()
		return
	}
	h.fallback.HandleWarningHeaderWithContext(ctx, code, agent, text)
}

// withWarningHandler returns a copy of cfg whose warnings are collected
// for the plans' writes (collectWarnings), the rest going to cfg's own
// handler, or, when it has none, logged once each (controller-runtime's
// default logs every one).
func withWarningHandler(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	var fallback rest.WarningHandlerWithContext
	switch {
	case cfg.WarningHandlerWithContext != nil:
		fallback = cfg.WarningHandlerWithContext
	case cfg.WarningHandler != nil:
		fallback = legacyHandler{cfg.WarningHandler}
	default:
		fallback = ctrllog.NewKubeAPIWarningLogger(ctrllog.KubeAPIWarningLoggerOptions{Deduplicate: true})
	}
	cfg.WarningHandler = nil
	cfg.WarningHandlerWithContext = warningHandler{fallback: fallback}
	return cfg
}

type legacyHandler struct{ h rest.WarningHandler }

func (l legacyHandler) HandleWarningHeaderWithContext(_ context.Context, code int, agent, text string) {
	l.h.HandleWarningHeader(code, agent, text)
}
