package report

import (
	"html/template"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/telark/protectionplans/violations"
)

// marksTemplate is the part of html.tmpl that wrote the violation marks
// before marksSVG, in the same context (inside an SVG in the body).
const marksTemplate = `<body><svg class="chart" xmlns="http://www.w3.org/2000/svg">
{{- range .Blocked}}
<rect class="mk-blocked" x="{{.X}}" y="{{.Y}}" width="{{.Size}}" height="{{.Size}}"><title>{{.Title}}</title></rect>
{{- if .Count}}
<text class="mk-count" x="{{.CountX}}" y="{{.CY}}" dy="4">{{.Count}}</text>
{{- end}}
{{- end}}
{{- range .Audited}}
<circle class="mk-audited" cx="{{.CX}}" cy="{{.CY}}" r="5"><title>{{.Title}}</title></circle>
{{- if .Count}}
<text class="mk-count" x="{{.CountX}}" y="{{.CY}}" dy="4">{{.Count}}</text>
{{- end}}
{{- end}}
</svg></body>`

func TestMarksSVG_IsWhatTheTemplateWrote(t *testing.T) {
	hostile := "<script>alert(\"x'+y\")</script> & \x00 \ufdd0 \uffff \xff 中文 a+b=c\n…"
	at := time.Date(2026, 7, 20, 22, 0, 31, 0, time.UTC)
	plain := &violations.Violation{Message: "changing container images is frozen",
		Resource: violations.Resource{Kind: "Deployment", Namespace: "shop", Name: "checkout-01"}}
	evil := &violations.Violation{Message: hostile,
		Resource: violations.Resource{Kind: hostile, Namespace: hostile, Name: hostile, Subresource: hostile}}
	one := markTip{first: at, last: at, n: 1, what: "blocked", shown: [3]*violations.Violation{plain}}
	many := markTip{first: at, last: at.Add(time.Hour), n: 7, what: "audited", shown: [3]*violations.Violation{plain, evil, plain}, more: true}
	tests := []struct {
		name             string
		blocked, audited []svgMark
	}{
		{"no marks", nil, nil},
		{"one blocked mark without a count", []svgMark{{X: "10", Y: "20", CX: "15", CY: "25", Size: "10", tip: one}}, nil},
		{"marks of both rows with counts", []svgMark{{X: "10", Y: "20", CX: "15", CY: "25", Size: "10", tip: many, Count: "7", CountX: "23"}},
			[]svgMark{{X: "1", Y: "2", CX: "3", CY: "4", Size: "10", tip: one}, {X: "5", Y: "6", CX: "7", CY: "8", Size: "10", tip: many, Count: "12", CountX: "9"}}},
		{"hostile text in every field", []svgMark{{X: hostile, Y: hostile, CX: hostile, CY: hostile, Size: hostile, tip: many, Count: hostile, CountX: hostile}},
			[]svgMark{{X: hostile, Y: hostile, CX: hostile, CY: hostile, Size: hostile, tip: many, Count: hostile, CountX: hostile}}},
	}
	tmpl := template.Must(template.New("marks").Parse(marksTemplate))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want strings.Builder
			if err := tmpl.Execute(&want, timelineView{Blocked: tt.blocked, Audited: tt.audited}); err != nil {
				t.Fatal(err)
			}
			got := `<body><svg class="chart" xmlns="http://www.w3.org/2000/svg">` + string(marksSVG(tt.blocked, tt.audited)) + "\n</svg></body>"
			if got != want.String() {
				t.Errorf("marksSVG wrote\n%q\nthe template wrote\n%q", got, want.String())
			}
		})
	}
}

// TestMarkTip_SaysWhatItSaidBefore holds a tooltip's text to what
// violationMarks wrote before it kept the parts.
func TestMarkTip_SaysWhatItSaidBefore(t *testing.T) {
	at := time.Date(2026, 7, 20, 22, 0, 31, 0, time.UTC)
	v := func(i int) *violations.Violation {
		return &violations.Violation{Message: "m" + strconv.Itoa(i), Resource: violations.Resource{Kind: "Pod", Namespace: "ns", Name: "p", Subresource: "exec"}}
	}
	before := func(tip markTip) string { // the code violationMarks ran before
		title := fmtTime(tip.first) + " UTC · " + plural(int64(tip.n), tip.what+" change", tip.what+" changes")
		if tip.n > 1 {
			title = fmtTime(tip.first) + " → " + fmtTime(tip.last) + " UTC · " + plural(int64(tip.n), tip.what+" change", tip.what+" changes")
		}
		for _, x := range tip.shown {
			if x != nil {
				title += "\n" + resourceLabel(x.Resource) + ": " + x.Message
			}
		}
		if tip.more {
			title += "\n…"
		}
		return title
	}
	tests := []struct {
		name string
		tip  markTip
	}{
		{"one violation", markTip{first: at, last: at, n: 1, what: "blocked", shown: [3]*violations.Violation{v(1)}}},
		{"three violations", markTip{first: at, last: at.Add(time.Minute), n: 3, what: "audited", shown: [3]*violations.Violation{v(1), v(2), v(3)}}},
		{"more than three violations", markTip{first: at, last: at.Add(time.Hour), n: 9, what: "blocked", shown: [3]*violations.Violation{v(1), v(2), v(3)}, more: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := (svgMark{tip: tt.tip}).Title(), before(tt.tip); got != want {
				t.Errorf("Title() = %q, before it was %q", got, want)
			}
		})
	}
}

// violationRowsBefore is violationRows as it was written before it wrote
// cells piece by piece: the reference its output must keep.
func violationRowsBefore(items []violations.Violation) string {
	var b strings.Builder
	cell := func(class, text string) {
		b.WriteString("<td")
		if class != "" {
			b.WriteString(` class="` + class + `"`)
		}
		b.WriteByte('>')
		b.WriteString(template.HTMLEscapeString(text))
		b.WriteString("</td>")
	}
	for i := range items {
		x := &items[i]
		b.WriteString("\n<tr>")
		cell("time", fmtTime(x.Timestamp))
		if x.Blocked {
			b.WriteString(`<td><span class="pill blocked">■ blocked</span></td>`)
		} else {
			b.WriteString(`<td><span class="pill audited">○ audited</span></td>`)
		}
		cell("", resourceLabel(x.Resource))
		cell("", policyLabel(x))
		cell("num", strconv.Itoa(int(max(x.Count, 1))))
		cell("msg", x.Message)
		b.WriteString("</tr>")
	}
	return b.String()
}

func TestViolationRows_WritesWhatItWroteBefore(t *testing.T) {
	hostile := "<script>alert(\"x'+y\")</script> & \x00 \ufdd0 \xff 中文 a+b=c\n…"
	tests := []struct {
		name  string
		items []violations.Violation
	}{
		{"no violations", nil},
		{"the benchmark's violations", bigInput(t, 50).Violations},
		{"a violation with every optional field empty and no time", []violations.Violation{{}}},
		{"times of years outside four digits and in another zone", []violations.Violation{
			{Timestamp: time.Date(12026, 1, 2, 3, 4, 5, 0, time.UTC)}, {Timestamp: time.Date(-44, 3, 15, 12, 0, 0, 0, time.UTC)},
			{Timestamp: time.Date(9, 12, 31, 23, 59, 59, 999, time.FixedZone("east", 5*3600))},
			{Timestamp: time.Date(2026, 1, 1, 0, 30, 0, 0, time.FixedZone("west", -3600))}}},
		{"hostile text in every field", []violations.Violation{{
			Policy: hostile, PolicyNamespace: hostile, Rule: hostile, Message: hostile, Count: -3, Blocked: true,
			Timestamp: time.Date(2026, 7, 20, 22, 0, 31, 5, time.FixedZone("x", 3600)),
			Resource:  violations.Resource{Kind: hostile, Namespace: hostile, Name: hostile, Subresource: hostile},
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := string(violationRows(tt.items)), violationRowsBefore(tt.items); got != want {
				t.Errorf("violationRows wrote\n%q\nbefore it wrote\n%q", got, want)
			}
		})
	}
}
