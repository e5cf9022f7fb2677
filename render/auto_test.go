package render

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestChooseTarget(t *testing.T) {
	kinds := func(ts ...Target) []schema.GroupVersionKind {
		var out []schema.GroupVersionKind
		for _, tt := range ts {
			k, err := KindsOf(tt)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, k...)
		}
		return out
	}
	vapOnly := kinds(TargetVAP)
	tests := []struct {
		name   string
		served []schema.GroupVersionKind
		want   Target
	}{
		{name: "a cluster with Kyverno 1.19 (both Kyverno APIs) and VAP picks kyverno-cel", served: kinds(TargetKyverno, TargetKyvernoCEL, TargetVAP), want: TargetKyvernoCEL},
		{name: "a cluster with no Kyverno picks vap", served: vapOnly, want: TargetVAP},
		{name: "a cluster with an old Kyverno (kyverno.io/v1 only) and VAP picks vap, not the deprecated API", served: kinds(TargetKyverno, TargetVAP), want: TargetVAP},
		{name: "a cluster with kyverno.io/v1 and nothing else picks kyverno", served: kinds(TargetKyverno), want: TargetKyverno},
		{name: "Kyverno's CEL policies without VAP still pick kyverno-cel", served: kinds(TargetKyvernoCEL), want: TargetKyvernoCEL},
		{name: "a VAP without its binding kind is not vap", served: vapOnly[:1], want: ""},
		{name: "kinds of no target are ignored", served: append([]schema.GroupVersionKind{{Group: "apps", Version: "v1", Kind: "Deployment"}}, vapOnly...), want: TargetVAP},
		{name: "a cluster serving no target's kinds is refused", served: nil, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ChooseTarget(tt.served)
			if tt.want == "" {
				var none *NoTargetServedError
				if !errors.As(err, &none) || none.HTTPCode() != 503 {
					t.Fatalf("ChooseTarget = %+v, %v; want a *NoTargetServedError", got, err)
				}
				return
			}
			if err != nil || got.Target != tt.want || got.Reason == "" {
				t.Errorf("ChooseTarget = %+v, %v; want %s with a reason", got, err, tt.want)
			}
		})
	}
}

func TestTargetAutoIsNotRendered(t *testing.T) {
	if Supported(TargetAuto) {
		t.Error("Supported(auto): auto must be resolved by ChooseTarget, never rendered")
	}
	if _, err := resolveTarget(""); err != nil {
		t.Errorf("the library's own default changed: %v", err)
	}
	if got, _ := resolveTarget(""); got != TargetKyverno {
		t.Errorf("render.Input with no target renders %s, want kyverno (the product documentation's default)", got)
	}
}
