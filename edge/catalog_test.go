package edge

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestCatalog(t *testing.T) {
	var names []Name
	for _, d := range Catalog() {
		names = append(names, d.Name)
		assert.NotEmpty(t, d.Title, d.Name)
		assert.NotEmpty(t, d.Touches, d.Name)
		for _, tc := range d.Touches {
			_, err := tokens(tc.Pointer)
			assert.NoError(t, err, "%s: %s", d.Name, tc.Pointer)
		}
	}
	assert.Equal(t, []Name{SuspendCronJobs, PauseArgoCDSync, SuspendFlux, ScaleTo}, names)

	c := Catalog()
	c[0].Touches[0].Pointer = "/changed"
	assert.Equal(t, "/spec/suspend", Catalog()[0].Touches[0].Pointer, "the caller's copy is its own")

	assert.Equal(t, []schema.GroupVersionKind{Deployment, StatefulSet, HPA, CronJob},
		Kinds([]Action{{Name: ScaleTo}, {Name: SuspendCronJobs}, {Name: "nope"}}),
		"Kinds lists what to gather: written kinds, then read ones, each once")
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		actions []Action
		want    []string // "type field"
	}{
		{"no actions are valid", nil, nil},
		{"every catalog action once is valid", []Action{{Name: SuspendCronJobs}, {Name: PauseArgoCDSync}, {Name: SuspendFlux}, {Name: ScaleTo, Replicas: ptr(int32(0))}}, nil},
		{"an unknown action names its name", []Action{{Name: "delete-everything"}}, []string{"Unsupported value spec.edgeActions[0].name"}},
		{"an action listed twice names the second", []Action{{Name: SuspendFlux}, {Name: SuspendFlux}}, []string{"Duplicate value spec.edgeActions[1].name"}},
		{"scale-to without replicas names replicas", []Action{{Name: ScaleTo}}, []string{"Required value spec.edgeActions[0].replicas"}},
		{"scale-to with negative replicas names replicas", []Action{{Name: ScaleTo, Replicas: ptr(int32(-1))}}, []string{"Invalid value spec.edgeActions[0].replicas"}},
		{"replicas on another action are forbidden", []Action{{Name: SuspendCronJobs, Replicas: ptr(int32(1))}}, []string{"Forbidden spec.edgeActions[0].replicas"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range Validate(tt.actions, field.NewPath("spec", "edgeActions")) {
				got = append(got, e.Type.String()+" "+e.Field)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
