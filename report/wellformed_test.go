package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// The HTML is written so that it is also well-formed XML (void elements
// self-closed, every element closed, only XML's entities): a strict XML
// decoder reads the whole page, and the timeline SVG on its own.

func wellFormedCases(t *testing.T) map[string][]byte {
	return map[string][]byte{
		"the nightly run":   mustRender(t, mustBuild(t, nightlyInput(t)), HTML),
		"hostile text":      mustRender(t, mustBuild(t, hostileInput(t)), HTML),
		"an empty run":      mustRender(t, mustBuild(t, Input{Plan: activeNamespacesPlan(), Trigger: TriggerManual, Now: at("Thu Jul 23 2026 08:00:00")}), HTML),
		"5000 violations":   mustRender(t, mustBuild(t, bigInput(t, 5000)), HTML),
		"a canceled run":    mustRender(t, mustBuild(t, canceledInput(t)), HTML),
		"a run of 3 months": mustRender(t, mustBuild(t, longRunInput(t)), HTML),
		"edge actions":      mustRender(t, mustBuild(t, edgeRunInput(t)), HTML),
	}
}

func TestHTML_IsWellFormed(t *testing.T) {
	for name, doc := range wellFormedCases(t) {
		t.Run(name, func(t *testing.T) {
			checkXML(t, doc)
			svg := chartSVG(t, doc)
			root := checkXML(t, svg)
			if root.Space != "http://www.w3.org/2000/svg" || root.Local != "svg" {
				t.Errorf("the chart's root is {%s}%s, want an SVG element", root.Space, root.Local)
			}
			checkStructure(t, doc)
		})
	}
}

// checkXML reads doc with a strict XML decoder and returns the name of
// its root element.
func checkXML(t *testing.T, doc []byte) xml.Name {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	dec.Strict = true
	var root xml.Name
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			line, col := dec.InputPos()
			t.Fatalf("not well-formed at %d:%d: %v", line, col, err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				root = x.Name
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if depth != 0 {
		t.Fatalf("%d elements left open", depth)
	}
	return root
}

// chartSVG cuts the run's picture out of the page.
func chartSVG(t *testing.T, doc []byte) []byte {
	t.Helper()
	s := string(doc)
	i := strings.Index(s, `<svg class="chart"`)
	j := strings.Index(s[max(i, 0):], "</svg>")
	if i < 0 || j < 0 {
		t.Fatal("the page has no chart")
	}
	return []byte(s[i : i+j+len("</svg>")])
}

// checkStructure parses the page as a browser does and checks its outline:
// one h1, the sections in order, one chart, no script.
func checkStructure(t *testing.T, doc []byte) {
	t.Helper()
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	var h2 []string
	for n := range root.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		count[n.Data]++
		if n.Data == "h2" && n.FirstChild != nil {
			h2 = append(h2, n.FirstChild.Data)
		}
	}
	// The optional sections, in their place when the run has them.
	want := []string{"The run at a glance", "Configuration", "Timeline", "Health"}
	for _, optional := range []string{"Break-glass grants", "Edge actions"} {
		if slices.Contains(h2, optional) {
			want = append(want, optional)
		}
	}
	want = append(want, "Violations")
	if strings.Join(h2, "|") != strings.Join(want, "|") {
		t.Errorf("sections %q, want %q", h2, want)
	}
	if count["h1"] != 1 || count["script"] != 0 || count["style"] != 1 || count["main"] != 1 {
		t.Errorf("elements %v: want one h1, main and style, no script", count)
	}
	if count["table"] < 4 {
		t.Errorf("%d tables, want at least scope, templates, timeline and phases", count["table"])
	}
}
