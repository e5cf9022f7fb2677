package window_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/telark/protectionplans/window"
)

// fuzzZones are the zones the query fuzzer picks from: transitions at
// midnight (Santiago, Havana), half-hour DST (Lord Howe), the southern
// hemisphere, a dateline jump (Apia), and UTC.
var fuzzZones = []string{"UTC", "Europe/Berlin", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe", "America/Santiago", "America/Havana", "Pacific/Apia"}

// FuzzParse: any spec either compiles or is refused with a *ParseError whose
// every problem names a field under spec.window; Validate agrees with Parse;
// Describe never fails on what Parse accepted.
func FuzzParse(f *testing.F) {
	f.Add("recurring", "Europe/Berlin", "0 22 * * *", "8h", "")
	f.Add("recurring", "America/New_York", "*/15 1-3 * * 1-5", "20m", "30 2 * * 0")
	f.Add("recurring", "Local", "@every 1h", "0s", "")
	f.Add("time_range", "", "", "", "")
	f.Add("permanent", "Mars/Olympus", "0 0 31 2 *", "169h", "TZ=UTC 0 0 * * *")
	f.Fuzz(func(t *testing.T, typ, zone, cron1, dur, cron2 string) {
		spec := window.Spec{Type: window.Type(typ), TimeZone: zone}
		for _, c := range []string{cron1, cron2} {
			if c != "" {
				spec.Schedules = append(spec.Schedules, window.Schedule{Cron: c, Duration: dur})
			}
		}
		w, err := window.Parse(spec)
		verrs := window.Validate(spec, nil)
		if err == nil {
			if len(verrs) > 0 {
				t.Fatalf("Parse accepted %+v, Validate refused it: %v", spec, verrs)
			}
			_ = w.Describe()
			return
		}
		var perr *window.ParseError
		if !errors.As(err, &perr) || len(perr.Errs) == 0 {
			t.Fatalf("Parse(%+v) = %v, want a *ParseError with problems", spec, err)
		}
		if perr.HTTPCode() != 400 {
			t.Fatalf("HTTPCode = %d, want 400", perr.HTTPCode())
		}
		for _, fe := range perr.Errs {
			if !strings.HasPrefix(fe.Field, "spec.window.") {
				t.Fatalf("problem %q does not name a field under spec.window", fe.Error())
			}
		}
		if len(verrs) != len(perr.Errs) {
			t.Fatalf("Validate found %d problems, Parse %d", len(verrs), len(perr.Errs))
		}
	})
}

// FuzzQueries: a recurring window of up to two schedules, in one of the
// fuzzZones, queried at an instant from 1970 to 2100, agrees with the
// minute-by-minute reference (Active, Containing, NextEdge and Occurrences)
// and returns within a second.
func FuzzQueries(f *testing.F) {
	f.Add(uint8(1), "0 22 * * *", uint16(480), "", uint16(0), int64(1861916400)) // Berlin, Dec 31 2028
	f.Add(uint8(2), "30 2 * * *", uint16(60), "*/15 1-3 * * *", uint16(20), int64(1793602800))
	f.Add(uint8(4), "30 1 * * 0", uint16(90), "0 2 * * *", uint16(1), int64(1775350800))
	f.Add(uint8(5), "0 0 * * *", uint16(1440), "59 23 * * *", uint16(2), int64(2240611200))
	f.Add(uint8(7), "0 23 31 12 *", uint16(120), "", uint16(0), int64(1325332800)) // Apia skips Dec 30 2011
	f.Fuzz(func(t *testing.T, zi uint8, cron1 string, min1 uint16, cron2 string, min2 uint16, at int64) {
		const look = 12 * time.Hour
		zone := fuzzZones[int(zi)%len(fuzzZones)]
		lo, hi := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), time.Date(2100, 12, 31, 0, 0, 0, 0, time.UTC).Unix()
		p := time.Unix(lo+mod(at, hi-lo), 0).UTC()
		spec := window.Spec{Type: window.Recurring, TimeZone: zone}
		// Durations up to 24h keep the reference's range, and so each
		// execution, short.
		for i, c := range []string{cron1, cron2} {
			m := []uint16{min1, min2}[i]
			if c != "" || i == 0 {
				spec.Schedules = append(spec.Schedules, window.Schedule{Cron: c, Duration: (time.Duration(m%1440+1) * time.Minute).String()})
			}
		}
		w, err := window.Parse(spec, window.WithLookAround(look))
		if err != nil {
			return // FuzzParse checks refusals
		}
		margin := 2*look + 26*time.Hour
		r := newRefFrom(t, spec, readingsIn(w.Location(), p.Add(-margin), p.Add(margin)))
		mustFinish(t, time.Second, "window queries", func() {
			checkProbe(t, w, r, p, look)
			checkRange(t, w, r, p.Add(-look/2), p.Add(look/2), look)
		})
	})
}

// FuzzShapedQueries: an allow window or a window with exceptions (a date
// near the instant, a schedule), in one of the fuzzZones, queried at an
// instant from 1970 to 2100, agrees with the pointwise reference.
func FuzzShapedQueries(f *testing.F) {
	f.Add(uint8(1), "0 22 * * *", uint16(480), false, int8(0), "30 2 * * *", uint16(60), int64(1861916400))
	f.Add(uint8(5), "0 0 * * *", uint16(1440), true, int8(1), "", uint16(0), int64(1793602800))
	f.Add(uint8(6), "0 9 * * 1-5", uint16(480), true, int8(-1), "0 12 * * *", uint16(60), int64(1775350800))
	f.Add(uint8(7), "0 23 * * *", uint16(120), false, int8(0), "", uint16(0), int64(1325332800)) // Apia skips Dec 30 2011
	f.Fuzz(func(t *testing.T, zi uint8, cron1 string, min1 uint16, outside bool, day int8, cron2 string, min2 uint16, at int64) {
		const look = 12 * time.Hour
		zone := fuzzZones[int(zi)%len(fuzzZones)]
		lo, hi := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), time.Date(2100, 12, 31, 0, 0, 0, 0, time.UTC).Unix()
		p := time.Unix(lo+mod(at, hi-lo), 0).UTC()
		spec := window.Spec{Type: window.Recurring, TimeZone: zone,
			Schedules: []window.Schedule{{Cron: cron1, Duration: (time.Duration(min1%1440+1) * time.Minute).String()}}}
		if outside {
			spec.Freeze = window.FreezeOutside
		}
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		spec.Except = []window.Exception{{Date: p.In(loc).AddDate(0, 0, int(day%3)).Format(time.DateOnly)}}
		if cron2 != "" {
			spec.Except = append(spec.Except, window.Exception{Schedule: &window.Schedule{Cron: cron2, Duration: (time.Duration(min2%1440+1) * time.Minute).String()}})
		}
		w, err := window.Parse(spec, window.WithLookAround(look))
		if err != nil {
			return // FuzzParse checks refusals
		}
		margin := 2*look + 4*24*time.Hour
		from, to := p.Add(-margin), p.Add(margin)
		r := newShapedRefFrom(t, spec, loc, readingsIn(loc, from, to), from, to)
		mustFinish(t, time.Second, "window queries", func() {
			checkProbe(t, w, r, p, look)
			checkRange(t, w, r, p.Add(-look/2), p.Add(look/2), look)
		})
	})
}

func mod(a, n int64) int64 {
	if m := a % n; m >= 0 {
		return m
	}
	return a%n + n
}
