package operator

import (
	"context"
	"slices"
	"testing"

	"k8s.io/client-go/rest"
)

// recordingHandler records the warnings it is handed.
type recordingHandler struct{ got *[]string }

func (r recordingHandler) HandleWarningHeaderWithContext(_ context.Context, _ int, _, text string) {
	*r.got = append(*r.got, text)
}

func TestWarningHandler(t *testing.T) {
	const deprecated = "kyverno.io/v1 Policy is deprecated and will be removed in a future release"
	cases := map[string]struct {
		collect      bool
		code         int
		wantCollect  []string
		wantFallback []string
	}{
		"a warning to a plan's write is collected for reconcile, not logged": {
			collect: true, code: 299, wantCollect: []string{deprecated},
		},
		"a warning to any other request goes to the embedder's handler": {
			code: 299, wantFallback: []string{deprecated},
		},
		"a header that is not a warning (code other than 299) is not collected": {
			collect: true, code: 199, wantFallback: []string{deprecated},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var fallback []string
			cfg := withWarningHandler(&rest.Config{WarningHandlerWithContext: recordingHandler{&fallback}})
			ctx, w := context.Background(), (*warnings)(nil)
			if c.collect {
				ctx, w = collectWarnings(ctx)
			}
			cfg.WarningHandlerWithContext.HandleWarningHeaderWithContext(ctx, c.code, "", deprecated)
			if w != nil && !slices.Equal(w.all(), c.wantCollect) {
				t.Errorf("collected %q, want %q", w.all(), c.wantCollect)
			}
			if !slices.Equal(fallback, c.wantFallback) {
				t.Errorf("the embedder's handler got %q, want %q", fallback, c.wantFallback)
			}
		})
	}
}

func TestWarningHandlerKeepsALegacyHandler(t *testing.T) {
	var got []string
	legacy := rest.WarningHandler(legacyRecorder{&got})
	cfg := withWarningHandler(&rest.Config{WarningHandler: legacy})
	if cfg.WarningHandler != nil {
		t.Error("the legacy handler is still set beside the new one")
	}
	cfg.WarningHandlerWithContext.HandleWarningHeaderWithContext(context.Background(), 299, "", "w")
	if !slices.Equal(got, []string{"w"}) {
		t.Errorf("the embedder's legacy handler got %q", got)
	}
}

type legacyRecorder struct{ got *[]string }

func (l legacyRecorder) HandleWarningHeader(_ int, _, text string) { *l.got = append(*l.got, text) }
