package report

import (
	"strings"
	"time"

	"github.com/telark/protectionplans/plan"
)

// UnverifiedPeriods are the periods of a run whose freeze was not verified
// (issue 21): from each EnforcementChanged timeline event whose reason is
// not Enforced to the next EnforcementChanged event (or runEnd). The
// event's message is "<Reason>: <message>" (health.RecordEnforcement);
// events are read oldest first.
func UnverifiedPeriods(events []TimelineEvent, runEnd time.Time) []UnhealthyPeriod {
	var out []UnhealthyPeriod
	var open *UnhealthyPeriod
	closeAt := func(t time.Time) {
		if open == nil {
			return
		}
		open.End = t
		open.Seconds = int64(t.Sub(open.Start).Round(time.Second) / time.Second)
		out = append(out, *open)
		open = nil
	}
	for _, ev := range events {
		if ev.Type != plan.EventEnforcementChanged {
			continue
		}
		closeAt(ev.Time)
		reason, msg, _ := strings.Cut(ev.Message, ": ")
		if reason == "Enforced" || reason == "NotEnforcing" {
			continue
		}
		open = &UnhealthyPeriod{Start: ev.Time, Reason: reason, Message: msg}
	}
	if open != nil && runEnd.After(open.Start) {
		closeAt(runEnd)
	}
	return out
}
