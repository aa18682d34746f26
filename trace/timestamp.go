// timestamp.go: the strict RFC 3339 date-time check for metadata.timestamp.

package trace

import "attest-engine/jsonschema"

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
// including the day of the month in leap years, are the date-time format's
// (jsonschema.IsDateTime); time.Parse alone is laxer, taking a one-digit hour
// and a ',' before the fraction. Leap seconds (second 60), which the format
// accepts at 23:59 UTC, are rejected here, a deviation: Go cannot represent
// them, and assert parses the timestamp with the time package.
func isRFC3339(s string) bool {
	return jsonschema.IsDateTime(s) && s[17:19] != "60" // the seconds of a date-time
}
