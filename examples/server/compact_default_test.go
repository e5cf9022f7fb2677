package main

import (
	"strings"
	"testing"
)

// TestCompactFlagAgreesWithTheOperator: the server's --compact says which
// layout the operator renders, for the health refresh of a plan whose
// status does not record it; its default is the operator's (compact,
// issue 25).
func TestCompactFlagAgreesWithTheOperator(t *testing.T) {
	var stderr strings.Builder
	run([]string{"--help"}, &stderr)
	usage := stderr.String()
	i := strings.Index(usage, "-compact")
	if i < 0 {
		t.Fatalf("no --compact in the usage:\n%s", usage)
	}
	entry, _, _ := strings.Cut(usage[i:], "\n  -")
	if !strings.Contains(entry, "(default true)") {
		t.Errorf("--compact does not default to the operator's compact layout:\n%s", entry)
	}
}
