package report

import (
	"strings"
	"time"
)

// DefaultID is the ID Build gives the report of plan planID by trigger trig
// generated at now: "<plan ID>-<trigger>-<now, UTC, 20060102T150405Z>".
func DefaultID(planID string, trig Trigger, now time.Time) string {
	return planID + "-" + string(trig) + "-" + now.UTC().Format("20060102T150405Z")
}

// FileName is the name of report id's file in format f: "<id>.<ext>".
func FileName(id string, f Format) string { return id + "." + f.Extension() }

// Written finds, among the file names of a plan's reports, a report of
// plan planID by trigger trig with default IDs (DefaultID): the one a
// process that died after writing a final report, and before recording
// that it had, left behind. It returns its ID ("" when there is none) and
// whether it is whole (a file in every format). Of several, the most
// complete wins, then the earliest. A writer that finds a whole one does
// not write the report again; one found in part is written again under
// the same ID, so that a final report exists exactly once.
func Written(planID string, trig Trigger, names []string) (id string, whole bool) {
	prefix := planID + "-" + string(trig) + "-"
	formats := map[string]int{}
	for _, name := range names {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		for _, f := range Formats() {
			if rid, ok := strings.CutSuffix(name, "."+f.Extension()); ok {
				formats[rid]++
			}
		}
	}
	for rid, n := range formats {
		if id == "" || n > formats[id] || (n == formats[id] && rid < id) {
			id = rid
		}
	}
	return id, id != "" && formats[id] == len(Formats())
}
