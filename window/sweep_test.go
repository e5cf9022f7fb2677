package window_test

import (
	"fmt"
	"hash/fnv"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/telark/protectionplans/window"
)

// The zone sweep: every zone of every zone database, every transition and
// every New Year (December 31 and January 1) from 1970 to 2100. Active,
// Containing, NextEdge and Occurrences must return, agree with the
// minute-by-minute reference, and stay within the bounds below.
//
// By default it samples the years: 2028 (the first leap year Go's own zone
// bounds break on, golang/go#81583), 2040 (the first with Debian's) and one
// year per zone chosen by its name. PROTECTIONPLANS_WINDOW_SWEEP=full sweeps
// every year from 1970 to 2100; hack/test.sh runs it in its own step.
// -short and -race sweep a few zones only.

const (
	sweepFirstYear = 1970
	sweepLastYear  = 2100
	sweepLook      = 6 * time.Hour
	// Bounds per query, stated and asserted: bytes allocated (measured on
	// every site's first probe) and wall time (every query; the median and
	// 99th percentile are asserted, the maximum only against a hang,
	// because another process can take the CPU for a while).
	sweepMaxBytes  = 64 << 10
	sweepMaxMedian = 100 * time.Microsecond
	sweepMaxP99    = time.Millisecond
	sweepMaxAny    = 100 * time.Millisecond
)

var sweepSpecs = []struct {
	name string
	spec window.Spec
}{
	{"nightly 22:00 for 8h", recurring("", "0 22 * * *", "8h")},
	{"every half hour for 29m", recurring("", "*/30 * * * *", "29m")},
	{"02:30 for 1h", recurring("", "30 2 * * *", "1h")},
	{"New Year's Eve 23:00 for 2h", recurring("", "0 23 31 12 *", "2h")},
}

// sweepYears returns the years swept in zone.
func sweepYears(zone string) []int {
	if os.Getenv("PROTECTIONPLANS_WINDOW_SWEEP") == "full" {
		var ys []int
		for y := sweepFirstYear; y <= sweepLastYear; y++ {
			ys = append(ys, y)
		}
		return ys
	}
	h := fnv.New32a()
	h.Write([]byte(zone))
	return []int{2028, 2040, sweepFirstYear + int(h.Sum32()%(sweepLastYear-sweepFirstYear+1))}
}

// zoneTransitions lists the instants in [from, to) at which loc's offset
// changes. It walks zone bounds, stepping to the next UTC day where Go's
// bounds do not move forward.
func zoneTransitions(loc *time.Location, from, to time.Time) []time.Time {
	var out []time.Time
	off := func(u int64) int { _, o := time.Unix(u, 0).In(loc).Zone(); return o }
	for u, i := from.Unix(), 0; u < to.Unix() && i < 100000; i++ {
		_, end := time.Unix(u, 0).In(loc).ZoneBounds()
		if end.IsZero() {
			break
		}
		e := end.Unix()
		if e <= u {
			e = (u/86400 + 1) * 86400
		}
		if e < to.Unix() && off(e-1) != off(e) {
			out = append(out, time.Unix(e, 0).UTC())
		}
		u = e
	}
	return out
}

// sweepSites returns the instants swept in one zone, grouped into sites:
// instants less than two days apart share one reference.
func sweepSites(loc *time.Location, years []int) [][]time.Time {
	var points []time.Time
	for _, y := range years {
		from := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
		points = append(points, zoneTransitions(loc, from, from.AddDate(1, 0, 0))...)
		points = append(points,
			time.Date(y, 12, 31, 0, 0, 0, 0, time.UTC),
			time.Date(y, 12, 31, 12, 0, 0, 0, time.UTC),
			time.Date(y, 12, 31, 23, 59, 0, 0, time.UTC),
			time.Date(y+1, 1, 1, 0, 0, 0, 0, loc),
		)
	}
	slices.SortFunc(points, func(a, b time.Time) int { return a.Compare(b) })
	var sites [][]time.Time
	for _, p := range points {
		if n := len(sites); n > 0 && p.Sub(sites[n-1][len(sites[n-1])-1]) < 48*time.Hour {
			sites[n-1] = append(sites[n-1], p)
			continue
		}
		sites = append(sites, []time.Time{p})
	}
	return sites
}

type sweepStats struct {
	durs     []time.Duration
	maxBytes uint64
	maxWhat  string
}

func (s *sweepStats) time(f func()) {
	t0 := time.Now()
	f()
	s.durs = append(s.durs, time.Since(t0))
}

func (s *sweepStats) bytes(what string, f func()) {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	if n := b.TotalAlloc - a.TotalAlloc; n > s.maxBytes {
		s.maxBytes, s.maxWhat = n, what
	}
}

func TestZoneSweep(t *testing.T) {
	start := time.Now()
	var st sweepStats
	queries, sites, zones := 0, 0, 0
	for _, db := range zoneDBs(t) {
		names := db.zones
		if testing.Short() || raceEnabled {
			names = []string{"Europe/Berlin", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe", "America/Santiago", "Pacific/Apia"}
		}
		for _, zone := range names {
			zones++
			loc := db.loc(t, zone)
			var ws []*window.Window
			var specs []window.Spec
			for _, sp := range sweepSpecs {
				spec := sp.spec
				spec.TimeZone = zone
				specs = append(specs, spec)
				ws = append(ws, mustParse(t, spec, window.WithLocation(loc), window.WithLookAround(sweepLook)))
			}
			for _, site := range sweepSites(loc, sweepYears(zone)) {
				sites++
				margin := 2*sweepLook + 9*time.Hour
				rs := readingsIn(loc, site[0].Add(-margin), site[len(site)-1].Add(margin))
				for i, w := range ws {
					r := newRefFrom(t, specs[i], rs)
					what := fmt.Sprintf("%s zone database, %s, %s", db.name, zone, sweepSpecs[i].name)
					for j, p := range site {
						mustFinish(t, 10*time.Second, what, func() {
							if j == 0 {
								st.bytes(what+", Active at "+show(p), func() { w.Active(p) })
								st.bytes(what+", NextEdge at "+show(p), func() { w.NextEdge(p) })
								st.bytes(what+", Containing at "+show(p), func() { w.Containing(p) })
								st.bytes(what+", Occurrences around "+show(p), func() { w.Occurrences(p.Add(-sweepLook), p.Add(sweepLook)) })
							}
							for _, d := range []time.Duration{0, -time.Second, time.Second, -30 * time.Minute, 30 * time.Minute, -3 * time.Hour, 3 * time.Hour} {
								q := p.Add(d)
								st.time(func() { sweepProbe(t, what, w, r, q) })
								queries += 3
							}
							st.time(func() { sweepRange(t, what, w, r, p.Add(-sweepLook), p.Add(sweepLook)) })
							queries++
						})
					}
				}
			}
		}
	}
	slices.Sort(st.durs)
	n := len(st.durs)
	med, p99, worst := st.durs[n/2], st.durs[n*99/100], st.durs[n-1]
	t.Logf("swept %d zones, %d sites, %d queries in %s; per probe (3 queries) or range: median %s, p99 %s, max %s; most bytes in one query %d (%s)",
		zones, sites, queries, time.Since(start).Round(time.Millisecond), med, p99, worst, st.maxBytes, st.maxWhat)
	if st.maxBytes > sweepMaxBytes {
		t.Errorf("a query allocated %d bytes, over the bound of %d: %s", st.maxBytes, sweepMaxBytes, st.maxWhat)
	}
	if med > sweepMaxMedian || p99 > sweepMaxP99 || worst > sweepMaxAny {
		t.Errorf("query times: median %s (bound %s), p99 %s (bound %s), max %s (bound %s)", med, sweepMaxMedian, p99, sweepMaxP99, worst, sweepMaxAny)
	}
}

// sweepProbe and sweepRange are checkProbe and checkRange with the zone and
// window named in a failure.
func sweepProbe(t *testing.T, what string, w *window.Window, r ref, p time.Time) {
	t.Helper()
	defer func() {
		if t.Failed() {
			t.Logf("(in the %s)", what)
		}
	}()
	checkProbe(t, w, r, p, sweepLook)
}

func sweepRange(t *testing.T, what string, w *window.Window, r ref, from, to time.Time) {
	t.Helper()
	defer func() {
		if t.Failed() {
			t.Logf("(in the %s)", what)
		}
	}()
	checkRange(t, w, r, from, to, sweepLook)
}
