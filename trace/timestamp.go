// timestamp.go: the strict RFC 3339 date-time check for metadata.timestamp.

package trace

import (
	"strings"
	"time"
)

// isRFC3339 reports whether s is an RFC 3339 §5.6 date-time:
//
//	date-time = full-date "T" full-time
//	full-date = date-fullyear "-" date-month "-" date-mday       ; 4, 2, 2 digits
//	full-time = partial-time time-offset
//	partial-time = time-hour ":" time-minute ":" time-second [time-secfrac]
//	time-secfrac = "." 1*DIGIT
//	time-offset = "Z" / time-numoffset                           ; ("+" / "-") hh ":" mm
//
// "T" and "Z" may be lower case (§5.6 NOTE). The grammar is checked here
// because time.Parse alone is laxer: it takes a one-digit hour and a ','
// before the fraction. time.Parse then checks the ranges, including the day
// of the month in leap years. Leap seconds (second 60) are rejected, a
// deviation: Go cannot represent them.
func isRFC3339(s string) bool {
	const shape = "dddd-dd-ddTdd:dd:dd" // then an optional fraction and the offset
	if len(s) < len(shape)+1 {
		return false
	}
	for i := 0; i < len(shape); i++ {
		c := s[i]
		switch shape[i] {
		case 'd':
			if !isDigit(c) {
				return false
			}
		case 'T':
			if c != 'T' && c != 't' {
				return false
			}
		default:
			if c != shape[i] {
				return false
			}
		}
	}
	rest := s[len(shape):]
	if rest[0] == '.' {
		n := 1
		for n < len(rest) && isDigit(rest[n]) {
			n++
		}
		if n == 1 {
			return false
		}
		rest = rest[n:]
	}
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':' &&
		isDigit(rest[1]) && isDigit(rest[2]) && isDigit(rest[4]) && isDigit(rest[5]):
		if (rest[1]-'0')*10+rest[2]-'0' > 23 || rest[4] > '5' {
			return false // time-hour is 00-23, time-minute 00-59
		}
	default:
		return false
	}
	if s[10] == 't' || s[len(s)-1] == 'z' {
		s = strings.ToUpper(s) // only T and Z can be letters here
	}
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}
