// format_time.go holds the date and time formats (validation spec §7.3.1): date-time, date, time and
// duration, as defined by RFC 3339 §5.6 and Appendix A.

package jsonschema

import (
	"regexp"
	"sync"
)

// digits2 reads two ASCII digits.
func digits2(s string) (int, bool) {
	if len(s) < 2 || !isDigit(s[0]) || !isDigit(s[1]) {
		return 0, false
	}
	return int(s[0]-'0')*10 + int(s[1]-'0'), true
}

// isDate checks RFC 3339 full-date = date-fullyear "-" date-month "-" date-mday, with the month's length.
func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	y1, ok1 := digits2(s[0:2])
	y2, ok2 := digits2(s[2:4])
	m, ok3 := digits2(s[5:7])
	d, ok4 := digits2(s[8:10])
	if !ok1 || !ok2 || !ok3 || !ok4 || m < 1 || m > 12 || d < 1 {
		return false
	}
	year := y1*100 + y2
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days = 29
	}
	return d <= days
}

// isTime checks RFC 3339 full-time = partial-time time-offset. A leap second (:60) is only valid at
// 23:59 UTC once the offset is applied.
func isTime(s string) bool {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, ok1 := digits2(s[0:2])
	m, ok2 := digits2(s[3:5])
	sec, ok3 := digits2(s[6:8])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return false
	}
	rest := s[8:]
	if rest[0] == '.' {
		i := 1
		for i < len(rest) && isDigit(rest[i]) {
			i++
		}
		if i == 1 {
			return false
		}
		rest = rest[i:]
	}
	offMin := 0
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, ok1 := digits2(rest[1:3])
		om, ok2 := digits2(rest[4:6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return false
		}
		offMin = oh*60 + om
		if rest[0] == '+' {
			offMin = -offMin
		}
	default:
		return false
	}
	if sec == 60 {
		utc := ((h*60+m+offMin)%(24*60) + 24*60) % (24 * 60)
		return utc == 23*60+59
	}
	return true
}

// IsDateTime reports whether s is an RFC 3339 §5.6 date-time = full-date "T" full-time, as the date-time
// format checks it: two-digit fields and a four-digit year, '.' before a fraction of any length, "Z" or a
// "+hh:mm"/"-hh:mm" offset, "T" and "Z" in either case (§5.6 NOTE), real days of the month, and a leap
// second (:60) only at 23:59 UTC.
func IsDateTime(s string) bool {
	return len(s) > 11 && (s[10] == 'T' || s[10] == 't') && isDate(s[:10]) && isTime(s[11:])
}

// durationRE is RFC 3339 Appendix A's duration grammar: units in order, weeks alone, no fractions.
// Compiled on first use: start-up time matters (an SDK spawns the engine per run).
var durationRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^P(?:[0-9]+W|(?:[0-9]+D|[0-9]+M(?:[0-9]+D)?|[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?)(?:T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S))?|T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S))$`)
})

func isDuration(s string) bool { return durationRE().MatchString(s) }
