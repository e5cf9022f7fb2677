package kube

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/render"
)

// mapperOf serves the kinds of targets.
func mapperOf(t *testing.T, targets ...render.Target) meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	for _, tt := range targets {
		kinds, err := render.KindsOf(tt)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range kinds {
			m.Add(k, meta.RESTScopeNamespace)
		}
	}
	return m
}

// failingMapper cannot reach the API server.
type failingMapper struct{ meta.RESTMapper }

func (failingMapper) RESTMapping(schema.GroupKind, ...string) (*meta.RESTMapping, error) {
	return nil, errors.New("connection refused")
}

func TestResolveTarget(t *testing.T) {
	tests := []struct {
		name    string
		mapper  meta.RESTMapper
		target  render.Target
		want    render.Target
		wantErr bool
	}{
		{name: "auto on a cluster with Kyverno 1.19 is kyverno-cel", mapper: mapperOf(t, render.TargetKyverno, render.TargetKyvernoCEL, render.TargetVAP), target: render.TargetAuto, want: render.TargetKyvernoCEL},
		{name: "auto on a cluster without Kyverno's CRDs is vap", mapper: mapperOf(t, render.TargetVAP), target: render.TargetAuto, want: render.TargetVAP},
		{name: "a target named on the command line is kept whatever is served", mapper: mapperOf(t, render.TargetVAP), target: render.TargetKyverno, want: render.TargetKyverno},
		{name: "auto on a cluster that cannot be asked is an error, not vap", mapper: failingMapper{}, target: render.TargetAuto, wantErr: true},
		{name: "auto on a cluster serving no target is an error", mapper: mapperOf(t), target: render.TargetAuto, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolveTarget(tt.mapper, tt.target)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ResolveTarget = %+v, want an error", got)
				}
				return
			}
			if err != nil || got.Target != tt.want {
				t.Errorf("ResolveTarget = %+v, %v; want %s", got, err, tt.want)
			}
		})
	}
}
