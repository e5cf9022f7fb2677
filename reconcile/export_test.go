package reconcile

// SetCalendarReader replaces the reader passes expand calendars with,
// until the returned restore is called.
func SetCalendarReader(r CalendarReader) (restore func()) {
	old := readCalendar
	readCalendar = r
	return func() { readCalendar = old }
}
