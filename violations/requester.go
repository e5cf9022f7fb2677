package violations

import (
	"encoding/base64"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The message of a write an exemption admitted (render's record policy)
// is "exempt requester <name> admitted by protection plan <plan>: <what>",
// where <name> is "base64:<name in base64>" with kyverno (Kyverno
// evaluates messages as templates, so the name travels encoded) and the
// plain name with the CEL targets.
const (
	recordPrefix  = "exempt requester "
	recordBase64  = "base64:"
	recordInfix   = " admitted by protection plan "
	maxRequester  = 256
	requesterTail = "…"
)

// RecordRequester is the requester a record's message names, decoded and
// made safe to show: one line (control characters dropped), at most 256
// characters. "" when the message is not a record's, or its base64 is
// not.
func RecordRequester(message string) string {
	rest, ok := strings.CutPrefix(message, recordPrefix)
	if !ok {
		return ""
	}
	name, _, ok := strings.Cut(rest, recordInfix)
	if !ok {
		return ""
	}
	if enc, ok := strings.CutPrefix(name, recordBase64); ok {
		raw, err := base64.StdEncoding.DecodeString(enc)
		if err != nil || !utf8.Valid(raw) {
			return ""
		}
		name = string(raw)
	}
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, name)
	if utf8.RuneCountInString(name) > maxRequester {
		name = string([]rune(name)[:maxRequester]) + requesterTail
	}
	return name
}
