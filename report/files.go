package report

import (
	"slices"
	"time"
)

// DefaultID is the ID Build gives the report of plan planID by trigger trig
// generated at now: "<plan ID>-<trigger>-<now, UTC, 20060102T150405Z>".
func DefaultID(planID string, trig Trigger, now time.Time) string {
	return planID + "-" + string(trig) + "-" + now.UTC().Format("20060102T150405Z")
}

// FileName is the name of report id's file in format f: "<id>.<ext>".
func FileName(id string, f Format) string { return id + "." + f.Extension() }

// Whole reports whether names, the file names of a plan's reports
// directory, hold report id in every format: a writer that finds a
// report whole does not write it again (a final report exists once); one
// found in part is written again under the same ID.
func Whole(id string, names []string) bool {
	for _, f := range Formats() {
		if !slices.Contains(names, FileName(id, f)) {
			return false
		}
	}
	return true
}
