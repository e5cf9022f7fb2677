package edge

import (
	"fmt"
	"net/http"
)

// LimitError is a start refused before any mutation because its
// participants or its journal exceed the limits. Its code is 413.
type LimitError struct {
	// What is "participants" or "journal bytes".
	What       string
	Got, Limit int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("edge actions: %d %s exceed the limit of %d; nothing was changed (narrow the scope or raise the limit)", e.Got, e.What, e.Limit)
}

// HTTPCode is 413.
func (e *LimitError) HTTPCode() int { return http.StatusRequestEntityTooLarge }

// JournalError is a journal that cannot be read (corrupt or of an unknown
// version). Its code is 500: the journal is the operator's own, and
// nothing is restored from a journal that cannot be trusted.
type JournalError struct {
	Reason string
}

func (e *JournalError) Error() string { return "edge actions journal: " + e.Reason }

// HTTPCode is 500.
func (e *JournalError) HTTPCode() int { return http.StatusInternalServerError }
