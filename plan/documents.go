package plan

import (
	"bytes"
	"errors"
)

// Document is one document of a YAML stream (Documents).
type Document struct {
	// Index is the document's position in the stream, from 1, counting
	// the documents that hold more than comments.
	Index int
	// Line is the line of the stream where the document starts, from 1.
	Line int
	// Data is the document's text.
	Data []byte
}

// Documents splits a YAML stream at its "---" separator lines (a line
// "---", maybe followed by spaces or a comment, as kubectl reads
// streams) into the documents that hold more than comments, in order. A
// stream without any such document is one document, all of data, which
// Decode refuses as empty. A JSON object is one document.
func Documents(data []byte) []Document {
	var (
		out   []Document
		start = 0 // byte offset of the current document
		line  = 1 // line of the current document's start
		n     = 1 // line being read
	)
	flush := func(end int) {
		if doc := data[start:end]; hasContent(doc) {
			out = append(out, Document{Index: len(out) + 1, Line: line, Data: doc})
		}
	}
	for off := 0; off < len(data); n++ {
		end := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if end >= 0 {
			next = off + end + 1
		}
		if isSeparator(data[off:next]) {
			flush(off)
			start, line = next, n+1
		}
		off = next
	}
	flush(len(data))
	if len(out) == 0 {
		return []Document{{Index: 1, Line: 1, Data: data}}
	}
	return out
}

func isSeparator(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("---"))
	if !ok {
		return false
	}
	rest = bytes.TrimSpace(rest)
	return len(rest) == 0 || rest[0] == '#'
}

// Decode decodes the document with Decode. The line of a *DecodeError is
// counted in the stream, not in the document.
func (d Document) Decode(into any, opts ...DecodeOption) error {
	err := Decode(bytes.NewReader(d.Data), into, opts...)
	var de *DecodeError
	if errors.As(err, &de) && de.Line > 0 {
		de.Line += d.Line - 1
	}
	return err
}
