package edge

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestJournalSecret(t *testing.T) {
	d := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Active: active, Live: []*unstructured.Unstructured{cronJob(t, "shop", "report", "u1", "5", nil)}})
	s, err := JournalSecret("protectionplans-system", *d.Journal, Limits{})
	require.NoError(t, err)
	assert.Equal(t, "edge-journal-plan-uid", s.Name)
	assert.Equal(t, "plan-uid", s.Labels[LabelPlan])

	t.Run("the journal reads back as it was written", func(t *testing.T) {
		j, err := JournalOf(s)
		require.NoError(t, err)
		assert.Equal(t, d.Journal.Entries, j.Entries)
		assert.True(t, d.Journal.Start.Equal(j.Start))
	})
	t.Run("no Secret is no journal", func(t *testing.T) {
		j, err := JournalOf(nil)
		assert.NoError(t, err)
		assert.Nil(t, j)
	})
	t.Run("a journal of another version is refused, never half-read", func(t *testing.T) {
		s := s.DeepCopy()
		s.Data[JournalKey] = []byte(`{"version":"edge.protectionplans.telark.io/v0","entries":[]}`)
		_, err := JournalOf(s)
		var je *JournalError
		require.True(t, errors.As(err, &je))
		assert.Equal(t, http.StatusInternalServerError, je.HTTPCode())
		_, err = Decide(Input{Journal: &Journal{Version: "v0"}})
		assert.True(t, errors.As(err, &je))
	})
	t.Run("a Secret without the journal's key is an error naming it", func(t *testing.T) {
		s := s.DeepCopy()
		delete(s.Data, JournalKey)
		_, err := JournalOf(s)
		assert.ErrorContains(t, err, "has no journal.json")
	})
	t.Run("a journal over the byte limit is refused before it is written", func(t *testing.T) {
		_, err := JournalSecret("ns", *d.Journal, Limits{MaxJournalBytes: 10})
		var le *LimitError
		assert.True(t, errors.As(err, &le))
	})
}
