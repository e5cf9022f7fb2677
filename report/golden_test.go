package report

import "testing"

// TestGolden_NightlyRun writes the nightly run's final report in every
// format.
func TestGolden_NightlyRun(t *testing.T) {
	r := mustBuild(t, nightlyInput(t))
	for _, f := range Formats() {
		t.Run(string(f), func(t *testing.T) {
			checkGolden(t, "nightly_run.golden."+f.Extension(), mustRender(t, r, f))
		})
	}
}
