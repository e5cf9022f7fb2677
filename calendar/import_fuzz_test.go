package calendar

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzImport: whatever the bytes, Import returns (no panic, no hang: the
// expansion is bounded), and what it returns is sorted and meets the
// range. Run longer with go test -fuzz FuzzImport ./calendar/.
func FuzzImport(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.ics")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add(cal(vevent("DTSTART;VALUE=DATE:20260101", "RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=31")))
	f.Add(cal(vevent("DTSTART:20260101T000000Z", "RRULE:FREQ=SECONDLY;INTERVAL=1")))
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		f.Fatal(err)
	}
	from := time.Date(2026, 3, 1, 0, 0, 0, 0, berlin)
	to := time.Date(2026, 11, 1, 0, 0, 0, 0, berlin)
	f.Fuzz(func(t *testing.T, data []byte) {
		occs, err := Import(data, berlin, from, to)
		if err != nil {
			return
		}
		for i, o := range occs {
			if o.End.Before(o.Start) {
				t.Fatalf("%+v ends before it starts", o)
			}
			if !o.Start.Before(to) || o.End.Before(from) {
				t.Fatalf("%+v does not meet [%s, %s)", o, from, to)
			}
			if i > 0 && o.Start.Before(occs[i-1].Start) {
				t.Fatalf("not sorted at %d", i)
			}
		}
	})
}
