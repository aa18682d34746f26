// timestamp.go: the strict RFC 3339 date-time check for metadata.timestamp, and its reading as an instant.

package trace

import (
	"strings"
	"time"

	"attest-engine/jsonschema"
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
// "T" and "Z" may be lower case (§5.6 NOTE). The grammar and the ranges,
// including the day of the month in leap years and a leap second (second 60,
// time-second "00-58, 59, 60 based on leap second rules") at 23:59 UTC, are
// the date-time format's (jsonschema.IsDateTime); time.Parse alone is laxer,
// taking a one-digit hour and a ',' before the fraction, and refuses the
// leap second.
func isRFC3339(s string) bool { return jsonschema.IsDateTime(s) }

// ParseTimestamp reads a date-time that trace validation accepts as an
// instant. The time package has no leap second: 23:59:60 (and any fraction
// of it) reads as the last nanosecond of 23:59:59, so that instants keep
// their order against every other second.
func ParseTimestamp(s string) (time.Time, bool) {
	if !isRFC3339(s) {
		return time.Time{}, false
	}
	// The time package wants "T" and "Z" upper case; they are the only letters.
	s = strings.ToUpper(s)
	if s[17:19] == "60" {
		rest := s[19:]
		if rest[0] == '.' {
			rest = strings.TrimLeft(rest[1:], "0123456789")
		}
		s = s[:17] + "59.999999999" + rest
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}
