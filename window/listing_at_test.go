package window_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/window"
)

// Issue 17: the windows table says which interval is active now, as
// argocd proj windows list does.
func TestWindow_ListAtMarksTheActiveInterval(t *testing.T) {
	from := when(t, "Mon Nov 2 2026 00:00 UTC")
	nightly := recurring("UTC", "0 22 * * *", "8h")
	cases := map[string]struct {
		spec     window.Spec
		from, to time.Time
		now      time.Time
		opts     []window.Option
		active   string
	}{
		"the night that holds now is active": {
			spec: nightly, from: from, to: from.Add(48 * time.Hour), now: when(t, "Mon Nov 2 2026 23:00 UTC"),
			active: "no yes no"},
		"the start is inclusive": {
			spec: nightly, from: from, to: from.Add(48 * time.Hour), now: when(t, "Mon Nov 2 2026 22:00 UTC"),
			active: "no yes no"},
		"the end is exclusive: nothing is active at 06:00": {
			spec: nightly, from: from, to: from.Add(48 * time.Hour), now: when(t, "Mon Nov 2 2026 06:00 UTC"),
			active: "no no no"},
		"now outside the range marks nothing": {
			spec: nightly, from: from, to: from.Add(24 * time.Hour), now: when(t, "Fri Nov 6 2026 23:00 UTC"),
			active: "no no"},
		"an interval open past the look-around is active when it holds now": {
			spec: recurring("UTC", "0 0 * * *", "24h"), from: from, to: from.Add(time.Hour),
			opts: []window.Option{window.WithLookAround(48 * time.Hour)}, now: from.Add(30 * time.Minute),
			active: "yes"},
		"a permanent window without a start is active": {
			spec: window.Spec{Type: window.Permanent}, from: from, to: from.Add(time.Hour), now: from,
			active: "yes"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			w := mustParse(t, c.spec, c.opts...)
			l := w.ListAt(c.from, c.to, c.now)
			header, rows := l.Table()
			if header[len(header)-1] != "ACTIVE" || !l.Now.Equal(c.now) {
				t.Errorf("header %v, now %v", header, l.Now)
			}
			var got []string
			for _, r := range rows {
				got = append(got, r[len(r)-1])
			}
			if diff := cmp.Diff(c.active, strings.Join(got, " ")); diff != "" {
				t.Errorf("ACTIVE column (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseInstant(t *testing.T) {
	berlin := time.FixedZone("", 3600)
	cases := map[string]struct {
		in   string
		want time.Time
		err  string
	}{
		"an RFC 3339 time":                 {in: "2026-12-25T12:00:00+01:00", want: time.Date(2026, 12, 25, 12, 0, 0, 0, berlin)},
		"a date is its midnight in UTC":    {in: "2026-12-25", want: time.Date(2026, 12, 25, 0, 0, 0, 0, time.UTC)},
		"a word is refused with its field": {in: "tomorrow", err: `--now: Invalid value: "tomorrow": is neither an RFC 3339 time (2026-12-25T12:00:00+01:00) nor a date (2026-12-25, midnight UTC)`},
		"a time without a zone is refused": {in: "2026-12-25T12:00:00", err: `--now: Invalid value: "2026-12-25T12:00:00": is neither`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := window.ParseInstant(field.NewPath("--now"), c.in)
			var ie *window.InstantError
			switch {
			case c.err == "" && (err != nil || !got.Equal(c.want)):
				t.Errorf("got %v, %v; want %v", got, err, c.want)
			case c.err != "" && (!errors.As(err, &ie) || !strings.HasPrefix(err.Error(), c.err) || ie.HTTPCode() != 400):
				t.Errorf("err %v, want %s", err, c.err)
			}
		})
	}
}
