package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/telark/protectionplans/violations"
)

// Format is a report file format. It is a closed set.
type Format string

const (
	// HTML is one self-contained page: inline CSS and SVG, no scripts, no
	// external assets; it prints well.
	HTML Format = "html"
	// Markdown renders well on GitHub.
	Markdown Format = "markdown"
	// JSON is the versioned schema (SchemaVersion).
	JSON Format = "json"
	// CSV is the violations, one per row, safe to open in a spreadsheet.
	CSV Format = "csv"
)

// Formats lists every format.
func Formats() []Format { return []Format{HTML, Markdown, JSON, CSV} }

// ParseFormat reads a format name as a query parameter or a file
// extension gives it: html, markdown (or md), json, csv; case does not
// matter. Anything else is an *InputError (400).
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "html", "htm":
		return HTML, nil
	case "markdown", "md":
		return Markdown, nil
	case "json":
		return JSON, nil
	case "csv":
		return CSV, nil
	}
	return "", &InputError{Field: "format", Value: s, Reason: `must be "html", "markdown", "json" or "csv"`}
}

// ContentType is the media type to serve f with.
func (f Format) ContentType() string {
	switch f {
	case HTML:
		return "text/html; charset=utf-8"
	case Markdown:
		return "text/markdown; charset=utf-8"
	case JSON:
		return "application/json"
	case CSV:
		return "text/csv; charset=utf-8; header=present"
	}
	return "application/octet-stream"
}

// Extension is the file extension of f, without the dot.
func (f Format) Extension() string {
	if f == Markdown {
		return "md"
	}
	return string(f)
}

// Render returns r written in format f.
func Render(r Report, f Format) ([]byte, error) {
	var buf bytes.Buffer
	if err := Write(&buf, r, f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write writes r to w in format f. An unknown format is an *InputError
// (400); other errors are w's.
func Write(w io.Writer, r Report, f Format) error {
	switch f {
	case HTML:
		return writeHTML(w, r)
	case Markdown:
		return writeMarkdown(w, r)
	case JSON:
		return writeJSON(w, r)
	case CSV:
		return writeCSV(w, r)
	}
	return &InputError{Field: "format", Value: string(f), Reason: `must be "html", "markdown", "json" or "csv"`}
}

// itemsAnchor is where the violations go in the indented report: a JSON
// string cannot hold a raw newline, so this text occurs only here.
const itemsAnchor = "\"violations\": {\n    \"items\": []"

// writeJSON writes the report indented, one violation a line, with a final
// newline. Indenting 5,000 violations field by field would take four times
// as long as marshaling them, so the report is indented without its
// violations, which are then written in place compactly. HTML characters
// stay escaped (\u003c), so the file is safe to embed.
func writeJSON(w io.Writer, r Report) error {
	items := r.Violations.Items
	r.Violations.Items = []violations.Violation{}
	head, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	at := bytes.Index(head, []byte(itemsAnchor))
	if at < 0 {
		return errors.New("report: JSON layout changed: the violations anchor is missing")
	}
	at += len(itemsAnchor) - 1 // before the "]"
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(head[:at])
	var item bytes.Buffer
	enc := json.NewEncoder(&item)
	for i := range items {
		item.Reset()
		if err := enc.Encode(&items[i]); err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n      ")
		bw.Write(bytes.TrimSuffix(item.Bytes(), []byte("\n")))
	}
	if len(items) > 0 {
		bw.WriteString("\n    ")
	}
	bw.Write(head[at:])
	bw.WriteByte('\n')
	return bw.Flush()
}
