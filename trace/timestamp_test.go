// timestamp_test.go: metadata.timestamp read as an instant, leap seconds included.

package trace

import (
	"strings"
	"testing"
	"time"
)

// TestParseTimestamp: what validation accepts reads as an instant; a leap
// second reads as the last nanosecond of 23:59:59, in order between its
// neighbours.
func TestParseTimestamp(t *testing.T) {
	read := func(s string) time.Time {
		t.Helper()
		at, ok := ParseTimestamp(s)
		if !ok {
			t.Fatalf("ParseTimestamp(%q) failed", s)
		}
		return at
	}
	last := time.Date(2016, 12, 31, 23, 59, 59, 999999999, time.UTC)
	for _, s := range []string{"2016-12-31T23:59:60Z", "2016-12-31t23:59:60.5z", "2016-12-31T18:59:60.999-05:00"} {
		if got := read(s); !got.Equal(last) {
			t.Errorf("ParseTimestamp(%q) = %v, want %v", s, got, last)
		}
	}
	before, after := read("2016-12-31T23:59:59.5Z"), read("2017-01-01T00:00:00Z")
	if leap := read("2016-12-31T23:59:60Z"); !before.Before(leap) || !leap.Before(after) {
		t.Errorf("leap second %v is not between %v and %v", leap, before, after)
	}
	if got := read("2026-02-18t10:30:00.5+01:00"); !got.Equal(time.Date(2026, 2, 18, 9, 30, 0, 5e8, time.UTC)) {
		t.Errorf("got %v", got)
	}
	for _, s := range []string{"2016-12-31T23:58:60Z", "2026-02-18T1:30:00Z", ""} {
		if _, ok := ParseTimestamp(s); ok {
			t.Errorf("ParseTimestamp(%q) succeeded; validation refuses it", s)
		}
	}
}

// FuzzParseTimestamp: a trace's metadata.timestamp is untrusted text;
// ParseTimestamp never panics, and reads as an instant exactly what
// validation accepts (isRFC3339), as time.Parse reads it when the
// second is not a leap second.
func FuzzParseTimestamp(f *testing.F) {
	for _, s := range []string{"2016-12-31T23:59:60Z", "2016-12-31t23:59:60.5z", "2016-12-31T18:59:60.999-05:00",
		"2026-02-18T10:30:00.123+02:00", "2026-02-18T1:30:00Z", "2016-12-31T23:58:60Z", "", "2026-02-30T10:30:00Z",
		"2026-02-18T10:30:60.Z", "2026-02-18T24:00:00Z", "2026-02-18T10:30:00+24:00", "0000-01-01T00:00:00-00:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		at, ok := ParseTimestamp(s)
		if ok != isRFC3339(s) {
			t.Fatalf("ParseTimestamp(%q) ok = %v, isRFC3339 = %v", s, ok, !ok)
		}
		if !ok || strings.ToUpper(s)[17:19] == "60" {
			return
		}
		want, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s))
		if err != nil || !at.Equal(want) {
			t.Fatalf("ParseTimestamp(%q) = %v; time.Parse: %v, %v", s, at, want, err)
		}
	})
}
