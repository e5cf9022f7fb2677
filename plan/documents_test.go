package plan

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDocuments(t *testing.T) {
	type doc struct {
		Index, Line int
		Data        string
	}
	cases := map[string]struct {
		stream string
		want   []doc
	}{
		"one document is the whole stream": {"a: 1\nb: 2\n", []doc{{1, 1, "a: 1\nb: 2\n"}}},
		"documents are split at --- lines, with the line each starts at": {
			"a: 1\n---\nb: 2\n--- # two\nc: 3",
			[]doc{{1, 1, "a: 1\n"}, {2, 3, "b: 2\n"}, {3, 5, "c: 3"}}},
		"documents of comments only are not counted": {
			"# header\n---\na: 1\n---\n# nothing\n---\nb: 2\n",
			[]doc{{1, 3, "a: 1\n"}, {2, 7, "b: 2\n"}}},
		"a leading --- starts the first document": {"---\na: 1\n", []doc{{1, 2, "a: 1\n"}}},
		"--- inside a line or followed by text is not a separator": {
			"a: ---\nb: |\n  ---x\n", []doc{{1, 1, "a: ---\nb: |\n  ---x\n"}}},
		"CRLF separators split too":                                  {"a: 1\r\n---\r\nb: 2\r\n", []doc{{1, 1, "a: 1\r\n"}, {2, 3, "b: 2\r\n"}}},
		"a stream of comments is one document, for Decode to refuse": {"# x\n---\n", []doc{{1, 1, "# x\n---\n"}}},
		"an empty stream is one empty document":                      {"", []doc{{1, 1, ""}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []doc
			for _, d := range Documents([]byte(tc.stream)) {
				got = append(got, doc{d.Index, d.Line, string(d.Data)})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A document's decode error is located in the stream.
func TestDocument_DecodeCountsLinesInTheStream(t *testing.T) {
	docs := Documents([]byte(planYAML + "---\n" + "spec:\n  name: x\n    mode: audit\n"))
	if len(docs) != 2 {
		t.Fatalf("%d documents", len(docs))
	}
	var p ProtectionPlan
	if err := docs[0].Decode(&p); err != nil {
		t.Fatal(err)
	}
	err := docs[1].Decode(&p)
	var de *DecodeError
	if !errors.As(err, &de) || de.Line != strings.Count(planYAML, "\n")+4 {
		t.Errorf("err %v, want a *DecodeError at line %d", err, strings.Count(planYAML, "\n")+4)
	}
}
