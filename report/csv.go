package report

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/telark/protectionplans/violations"
)

// csvHeader names the columns of the CSV format, one violation a row.
var csvHeader = []string{
	"timestamp", "first_seen", "count", "decision", "result",
	"plan", "template", "policy_namespace", "policy", "rule",
	"api_version", "kind", "namespace", "name", "subresource",
	"message", "source", "key",
}

// writeCSV writes the violations as RFC 4180 CSV (CRLF line ends, fields
// quoted where needed) with a header row. A line break inside a cell (LF,
// CRLF or a lone CR) is written as CRLF inside the quoted field, and every
// cell goes through SpreadsheetSafe.
func writeCSV(w io.Writer, r Report) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	row := make([]string, len(csvHeader))
	for i := range r.Violations.Items {
		csvRow(row, &r.Violations.Items[i])
		for j, c := range row {
			row[j] = SpreadsheetSafe(csvLines(c))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvRow(row []string, v *violations.Violation) {
	row[0] = v.Timestamp.Format(time.RFC3339)
	row[1] = ""
	if !v.FirstSeen.IsZero() {
		row[1] = v.FirstSeen.Format(time.RFC3339)
	}
	row[2] = strconv.FormatInt(int64(max(v.Count, 1)), 10)
	row[3] = decision(v.Blocked)
	row[4] = string(v.Result)
	row[5] = v.Plan
	row[6] = v.Template
	row[7] = v.PolicyNamespace
	row[8] = v.Policy
	row[9] = v.Rule
	row[10] = v.Resource.APIVersion
	row[11] = v.Resource.Kind
	row[12] = v.Resource.Namespace
	row[13] = v.Resource.Name
	row[14] = v.Resource.Subresource
	row[15] = v.Message
	row[16] = string(v.Source)
	row[17] = v.Key
}

// csvLines turns CRLF and lone CRs into LF, which encoding/csv writes as
// CRLF (it would drop a lone CR).
func csvLines(s string) string {
	if !strings.ContainsRune(s, '\r') {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

func decision(blocked bool) string {
	if blocked {
		return "blocked"
	}
	return "audited"
}

// SpreadsheetSafe neutralises a CSV cell that a spreadsheet would read as
// a formula (OWASP "CSV Injection"): a cell whose first character is =, +,
// -, @, a TAB or a CR, or whose first character after any leading
// whitespace and invisible format characters (spaces, NBSP, zero-width
// spaces, byte order marks, bidirectional controls) is one of = + - @ or
// their full-width forms, gets a leading apostrophe. Spreadsheets show the
// apostrophe-prefixed text as text; a reader of the raw file sees the
// apostrophe. Every other cell is returned as it is, so a negative number
// also gains the apostrophe: the report has no signed numbers.
func SpreadsheetSafe(cell string) string {
	if cell == "" {
		return cell
	}
	switch cell[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + cell
	}
	for _, r := range cell {
		if isFormulaStart(r) {
			return "'" + cell
		}
		if !unicode.IsSpace(r) && !unicode.Is(unicode.Cf, r) && r != utf8.RuneError {
			return cell
		}
	}
	return cell
}

func isFormulaStart(r rune) bool {
	return strings.ContainsRune("=+-@\uFF1D\uFF0B\uFF0D\uFF20", r)
}
