package violations

import (
	"strings"
	"testing"
)

func TestFromEvents_LeavesProbesOut(t *testing.T) {
	idx := fixtureIndex(t)
	for _, tc := range []struct {
		name, fixture string
	}{
		{"the refused dry-runs of a kyverno.io/v1 Policy against the probe object are no violation", "dryrun-v1"},
		{"the refused dry-runs of a NamespacedValidatingPolicy against the probe object are no violation", "dryrun-nvpol"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := coreEvents(t, tc.fixture)
			real, err := FromEvents(idx, evs)
			if err != nil || len(real.Violations) == 0 {
				t.Fatalf("the recorded dry-runs give %d violations (%v): the test proves nothing", len(real.Violations), err)
			}
			for i := range evs {
				e := &evs[i]
				e.Message = strings.ReplaceAll(e.Message, "/web:", "/"+ProbeName+":")
				e.Message = strings.ReplaceAll(e.Message, "/web ", "/"+ProbeName+" ")
				if e.Related != nil && e.Related.Name == "web" {
					e.Related.Name = ProbeName
				}
				if e.InvolvedObject.Name == "web" {
					e.InvolvedObject.Name = ProbeName
				}
			}
			b, err := FromEvents(idx, evs)
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Violations) != 0 || b.Probes != len(evs) {
				t.Errorf("got %d violations and %d probes from %d events, want 0 and %d: %+v", len(b.Violations), b.Probes, len(evs), len(evs), b.Violations)
			}
		})
	}
}
