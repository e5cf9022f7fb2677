package window_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/telark/protectionplans/window"
)

// mustFinish runs f and kills the test binary, with every goroutine's stack,
// if f has not returned within d: a window query that never returns must
// fail the suite, not hang it until the go test timeout (or allocate until
// the machine runs out of memory).
func mustFinish(tb testing.TB, d time.Duration, what string, f func()) {
	tb.Helper()
	timer := time.AfterFunc(d, func() {
		panic(fmt.Sprintf("%s did not return within %s", what, d))
	})
	defer timer.Stop()
	f()
}

// Go's zone bounds put the end of a year's last zone period on December 31
// of leap years, before the instant asked about (golang/go#81583): with Go's
// embedded zone database from 2028 on, with Debian's from 2040 on. The
// window maths once walked from period end to period end and never
// returned. Every query below must finish and agree with the reference.
func TestNewYearsEveOfLeapYears(t *testing.T) {
	nightly := recurring("", "0 22 * * *", "8h")
	newYear := recurring("", "0 0 31 12 *", "25h")
	halfHours := recurring("", "*/30 * * * *", "29m")
	for _, db := range zoneDBs(t) {
		for _, zone := range []string{"Europe/Berlin", "America/New_York", "Australia/Sydney", "UTC"} {
			for _, year := range []int{2028, 2040, 2096} {
				for name, spec := range map[string]window.Spec{"nightly 22:00 for 8h": nightly, "New Year's Eve for 25h": newYear, "every half hour for 29m": halfHours} {
					t.Run(fmt.Sprintf("%s/%s/%d/%s", db.name, zone, year, name), func(t *testing.T) {
						loc := db.loc(t, zone)
						spec.TimeZone = zone
						from := time.Date(year, 12, 25, 0, 0, 0, 0, time.UTC)
						to := time.Date(year+1, 1, 5, 0, 0, 0, 0, time.UTC)
						look := 24 * time.Hour
						w := mustParse(t, spec, window.WithLocation(loc), window.WithLookAround(look))
						r := newRefFrom(t, spec, readingsIn(loc, from.Add(-3*24*time.Hour), to.Add(3*24*time.Hour)))
						mustFinish(t, 10*time.Second, "window queries around New Year's Eve", func() {
							checkRange(t, w, r, from, to, look)
							for p := from.Add(look); p.Before(to.Add(-look)); p = p.Add(17 * time.Minute) {
								checkProbe(t, w, r, p, look)
							}
						})
					})
				}
			}
		}
	}
}

// In Go's embedded zone database, America/Ciudad_Juarez's transition table
// ends on 2022-11-30 (CST to MST), after its POSIX rule's last transition of
// that year (November 6): Go's zone bounds then start the MST period on
// November 6, over three weeks read in CST. Found by the full zone sweep:
// the nightly window's interval of the night of November 29 was reported
// with an open end.
func TestZoneRuleStartsBeforeTheTablesLastTransition(t *testing.T) {
	for _, db := range zoneDBs(t) {
		for name, spec := range map[string]window.Spec{"nightly 22:00 for 8h": recurring("", "0 22 * * *", "8h"), "every half hour for 29m": recurring("", "*/30 * * * *", "29m")} {
			t.Run(db.name+"/"+name, func(t *testing.T) {
				loc := db.loc(t, "America/Ciudad_Juarez")
				spec.TimeZone = "America/Ciudad_Juarez"
				from := time.Date(2022, 11, 1, 0, 0, 0, 0, time.UTC)
				to := time.Date(2023, 1, 5, 0, 0, 0, 0, time.UTC)
				look := 6 * time.Hour
				w := mustParse(t, spec, window.WithLocation(loc), window.WithLookAround(look))
				r := newRefFrom(t, spec, readingsIn(loc, from.Add(-2*24*time.Hour), to.Add(2*24*time.Hour)))
				mustFinish(t, 10*time.Second, "window queries in Ciudad Juárez", func() {
					for p := from.Add(look); p.Before(to.Add(-look)); p = p.Add(23 * time.Minute) {
						checkProbe(t, w, r, p, look)
					}
					checkRange(t, w, r, time.Date(2022, 11, 28, 0, 0, 0, 0, time.UTC), time.Date(2022, 12, 3, 0, 0, 0, 0, time.UTC), look)
				})
			})
		}
	}
}
