package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The iCalendar encoding (folding, escaping, stable UIDs, hostile text)
// is package calendar's and tested there; these check that windows --ics
// writes it, to a file or to standard output.

// icsOf runs windows with --ics into a temporary file and returns it.
func icsOf(t *testing.T, args ...string) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.ics")
	res := protectctl(t, "", append(args, "--ics", path)...)
	if res.code != 0 {
		t.Fatalf("exit status %d: %s", res.code, res.stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestICS_Golden(t *testing.T) {
	cases := map[string]struct {
		golden string
		args   []string
	}{
		"a time range is one event": {"ics_holiday",
			[]string{"windows", "-f", holiday, "--now", "2026-11-01T10:00:00Z"}},
		"a nightly window is an event per night in the range": {"ics_nightly",
			[]string{"windows", "-f", nightly, "--now", "2026-10-22T10:00:00Z", "--from", "2026-10-23T00:00:00Z", "--to", "2026-10-27T00:00:00Z"}},
		"a permanent window's event ends with the range": {"ics_permanent",
			[]string{"windows", "-f", "testdata/permanent.yaml", "--now", "2026-11-20T00:00:00Z"}},
		"hostile text stays inside its values": {"ics_hostile",
			[]string{"windows", "-f", "testdata/hostile.yaml", "--now", "2026-03-01T00:00:00Z", "--from", "2026-03-07T00:00:00Z", "--to", "2026-03-10T00:00:00Z"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			golden(t, c.golden, string(icsOf(t, c.args...)))
		})
	}
}

// The table goes to standard output as usual beside --ics FILE; --ics -
// writes the calendar there instead.
func TestICS_ToStandardOutput(t *testing.T) {
	args := []string{"windows", "-f", holiday, "--now", "2026-11-01T10:00:00Z"}
	res := protectctl(t, "", append(args, "--ics", "-")...)
	if res.code != 0 {
		t.Fatalf("exit status %d: %s", res.code, res.stderr)
	}
	if file := icsOf(t, args...); !bytes.Equal([]byte(res.stdout), file) {
		t.Errorf("standard output is not the calendar:\n%s", res.stdout)
	}
}
