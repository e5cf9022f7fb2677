//go:build race

package window_test

// raceEnabled: the race detector slows the zone sweep tenfold and finds
// nothing there (it runs in one goroutine), so under -race it runs short.
const raceEnabled = true
