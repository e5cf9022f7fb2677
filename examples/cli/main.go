// Command protectctl lints and previews protection plans offline: it
// validates a plan file, renders the policies it would have in the cluster
// at an instant, lists its window's intervals (and writes them as an
// iCalendar file), explains whether a change would be blocked, lists
// the template catalog, and lints plans' schedules together (lint). It
// embeds the library as any user would: the library computes, protectctl
// reads files and writes the answers.
//
//	protectctl render -f plans/holiday-freeze.yaml --now 2026-12-25T12:00:00+01:00
//
// See README.md for every command and its exit codes.
package main

import (
	"os"
	_ "time/tzdata" // windows and explain --now use the plans' zones whatever the machine holds
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
