package window

// Wall-clock arithmetic. A wall time is a local reading expressed as seconds
// since 1970-01-01 00:00 of the local calendar (as if the reading were UTC);
// a wall day is floor(wall / 86400). Instants are Unix seconds. An instant u
// in a zone period with offset off reads wall u+off.

const (
	secondsPerDay = 86400
	nsPerSecond   = int64(1e9)
	nsPerMinute   = 60 * nsPerSecond
	nsPerDay      = secondsPerDay * nsPerSecond
)

// floorDiv divides rounding towards negative infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// civil returns the proleptic Gregorian month (1-12), day of month (1-31)
// and weekday (0 = Sunday) of wall day d (Howard Hinnant's days-to-civil).
func civil(d int64) (month, dom, wd int) {
	z := d + 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	dom = int(doy - (153*mp+2)/5 + 1)
	month = int(mp + 3)
	if month > 12 {
		month -= 12
	}
	wd = int(d%7+11) % 7 // 1970-01-01 was a Thursday (4)
	return month, dom, wd
}

// dayKeys is the number of distinct (month, day of month, weekday) triples.
const dayKeys = 12 * 31 * 7

// dayKey indexes a (month, day of month, weekday) triple.
func dayKey(month, dom, wd int) int {
	return ((month-1)*31+dom-1)*7 + wd
}

// daysIn is the longest length of each month (February in a leap year).
var daysIn = [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
