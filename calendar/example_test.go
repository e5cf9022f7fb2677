package calendar_test

import (
	"os"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/calendar"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

func ExampleForPlan() {
	p := &plan.ProtectionPlan{
		ObjectMeta: metav1.ObjectMeta{Name: "release-freeze"},
		Spec: plan.Spec{
			Name:      "Release freeze",
			Scope:     plan.Scope{Namespaces: []string{"shop"}},
			Templates: []plan.TemplateRef{{Name: "image-change"}},
			Window: window.Spec{Type: window.TimeRange,
				StartAt: &metav1.Time{Time: time.Date(2026, 11, 16, 8, 0, 0, 0, time.UTC)},
				EndAt:   &metav1.Time{Time: time.Date(2026, 11, 20, 18, 0, 0, 0, time.UTC)}},
			Mode: plan.ModeEnforce,
		},
	}
	w, _ := window.Parse(p.Spec.Window)
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	cal := calendar.ForPlan(p, w.List(now, time.Time{}), now)
	var out strings.Builder
	_ = cal.Encode(&out)
	os.Stdout.WriteString(strings.ReplaceAll(out.String(), "\r\n", "\n"))
	// Output:
	// BEGIN:VCALENDAR
	// VERSION:2.0
	// PRODID:-//telark//protectionplans//EN
	// CALSCALE:GREGORIAN
	// METHOD:PUBLISH
	// X-WR-CALNAME:Change freeze: Release freeze
	// BEGIN:VEVENT
	// UID:release-freeze-1794816000@protectionplans.telark.io
	// DTSTAMP:20261101T090000Z
	// DTSTART:20261116T080000Z
	// DTEND:20261120T180000Z
	// SUMMARY:Change freeze (enforce): Release freeze
	// DESCRIPTION:Protection plan release-freeze\, mode enforce.\nFrozen: image-c
	//  hange.\nScope: namespaces shop.\nWindow: from 2026-11-16 08:00 to 2026-11-
	//  20 18:00 UTC.
	// TRANSP:TRANSPARENT
	// END:VEVENT
	// END:VCALENDAR
}
