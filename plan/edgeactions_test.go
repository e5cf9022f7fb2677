package plan

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telark/protectionplans/edge"
)

func TestValidate_EdgeActions(t *testing.T) {
	p := holiday()
	p.Spec.EdgeActions = []edge.Action{{Name: edge.SuspendCronJobs}, {Name: edge.ScaleTo}}
	err := Validate(p, testEnv(at("Tue Dec 1 2026 00:00 UTC")))
	var ve *ValidationError
	require.True(t, errors.As(err, &ve), "got %v", err)
	require.Len(t, ve.Errs, 1)
	assert.Equal(t, "spec.edgeActions[1].replicas", ve.Errs[0].Field)
	assert.Equal(t, 400, CodeOf(err))

	n := int32(0)
	p.Spec.EdgeActions[1].Replicas = &n
	assert.NoError(t, Validate(p, testEnv(at("Tue Dec 1 2026 00:00 UTC"))))
}
