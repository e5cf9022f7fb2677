package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestHelperProcess is protectctl itself when the test binary is started
// with PROTECTCTL_HELPER_PROCESS=1: the arguments after "--" are its
// command line. Other tests run it as a subprocess to give it an
// environment (ZONEINFO) and limits (ulimit -v) of its own.
func TestHelperProcess(t *testing.T) {
	if os.Getenv("PROTECTCTL_HELPER_PROCESS") != "1" {
		return
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Exit(run(args, os.Stdin, os.Stdout, os.Stderr))
}

// The New Year's Eve time bomb (issue 15): Go's zone bounds go wrong on
// December 31 of leap years, from 2028 with Go's embedded zone database
// and from 2040 with Debian's, and the window maths once allocated without
// bound there. protectctl windows over those New Years must print the
// nightly intervals in well under a second, with 2 GB of address space,
// whichever zone database the process loads.
func TestWindowsOverNewYearsEveOfLeapYears(t *testing.T) {
	dbs := map[string]string{"go": filepath.Join(runtime.GOROOT(), "lib", "time", "zoneinfo.zip")}
	if _, err := os.Stat("/usr/share/zoneinfo/Europe/Berlin"); err == nil {
		dbs["system"] = "/usr/share/zoneinfo"
	} else {
		t.Log("no system zone database in /usr/share/zoneinfo: only Go's is tried")
	}
	limit := "ulimit -v 2000000; "
	if raceEnabled {
		// The race detector reserves terabytes of address space.
		limit = ""
		t.Log("-race: run without ulimit -v (hack/test.sh also runs this test without -race)")
	}
	for db, zoneinfo := range dbs {
		for _, year := range []int{2028, 2040} {
			t.Run(db+"/"+time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC).Format("2006"), func(t *testing.T) {
				from := time.Date(year, 12, 25, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
				to := time.Date(year+1, 1, 5, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				cmd := exec.CommandContext(ctx, "bash", "-c", limit+`exec "$0" "$@"`, os.Args[0], "-test.run=^TestHelperProcess$", "--",
					"windows", "-f", nightly, "--now", "2026-12-01T00:00:00Z", "--from", from, "--to", to)
				cmd.Env = append(os.Environ(), "PROTECTCTL_HELPER_PROCESS=1", "ZONEINFO="+zoneinfo)
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				start := time.Now()
				err := cmd.Run()
				took := time.Since(start)
				if err != nil {
					t.Fatalf("protectctl windows: %v (after %s)\nstderr: %s", err, took, errb.String())
				}
				// Every night from December 24 (it reaches into the range)
				// to January 4, 22:00 to 06:00 Berlin time, and nothing else.
				if n := strings.Count(out.String(), " UTC   8h       no\n"); n != 12 {
					t.Fatalf("want 12 nightly intervals, got %d:\n%s", n, out.String())
				}
				for d := time.Date(year, 12, 24, 0, 0, 0, 0, time.UTC); d.Year() == year || d.Day() < 5; d = d.AddDate(0, 0, 1) {
					night := d.Format("Mon 2006-01-02") + " 22:00 CET   " + d.AddDate(0, 0, 1).Format("Mon 2006-01-02") + " 06:00 CET"
					if !strings.Contains(out.String(), night) {
						t.Fatalf("missing the night %q:\n%s", night, out.String())
					}
				}
				t.Logf("%s zone database, %d: %s", db, year, took.Round(time.Millisecond))
				if took > 5*time.Second {
					t.Errorf("protectctl windows took %s; it prints in well under a second when the machine is not loaded", took)
				}
			})
		}
	}
}
