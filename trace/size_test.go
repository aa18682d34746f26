// size_test.go: encodedSize against encoding/json, exact schema_version integers, RFC 3339 timestamps.

package trace

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// jsonSize is the length of encoding/json's compact encoding of v, HTML
// escaping off: what encodedSize must compute without encoding.
func jsonSize(t testing.TB, v any) int {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encoding %#v: %v", v, err)
	}
	return buf.Len() - 1 // Encode ends with a newline
}

func TestEncodedSize(t *testing.T) {
	tests := []struct {
		name   string
		v      any
		reason string
	}{
		{"null", nil, "4 bytes"},
		{"bools", []any{true, false}, "4 and 5 bytes"},
		{"number text", json.Number("-1.5e+10"), "written as is"},
		{"plain string", "hello", "quotes only"},
		{"short escapes", "\"\\\b\f\n\r\t", "two bytes each"},
		{"control bytes", "\x00\x01\x1f", "six bytes each"},
		{"no HTML escaping", "<a href='x'>&</a>", "HTML escaping is off"},
		{"DEL and slash", "\x7f/", "neither is escaped"},
		{"multi-byte", "é中😀", "UTF-8 as is"},
		{"line separators", "a\u2028b\u2029", "always escaped by encoding/json"},
		{"invalid UTF-8", "a\xffb\xe4\xb8", "each bad byte becomes \\ufffd"},
		{"object", map[string]any{"a": json.Number("1"), "b\n": []any{}, "c": map[string]any{}}, "braces, colons, commas, escaped keys"},
		{"one member", map[string]any{"k": "v"}, "no comma"},
		{"array", []any{json.Number("1"), "x", nil, []any{json.Number("2")}}, "brackets and commas"},
		{"floats", []any{0.0, -0.0, 1.5, 1e21, 1e20, 1e-7, 1e-6, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64}, "ES6 formatting and its cut-offs"},
		{"float32", []any{float32(1e21), float32(3.4028235e38), float32(1e-7), float32(0.1)}, "float32 cut-offs"},
		{"ints", []any{0, -1, int64(math.MinInt64), int32(7)}, "integers"},
		{"other Go types", []any{uint8(200), map[string]string{"a": "b"}}, "outside the value model: encoding/json decides"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := jsonSize(t, tt.v)
			if got := encodedSize(tt.v, math.MaxInt); got != want {
				t.Errorf("encodedSize = %d, want %d (%s)", got, want, tt.reason)
			}
			if got := encodedSize(tt.v, want); got != want {
				t.Errorf("encodedSize at limit = %d, want %d: a size equal to the limit is not over it", got, want)
			}
		})
	}
}

func TestEncodedSizeStopsEarly(t *testing.T) {
	big := make([]any, 1000)
	for i := range big {
		big[i] = strings.Repeat("x", 1000)
	}
	v := map[string]any{"a": big}
	full := encodedSize(v, math.MaxInt)
	for _, limit := range []int{0, 1, 1000, 500000, full - 1} {
		got := encodedSize(v, limit)
		if got <= limit {
			t.Errorf("limit %d: got %d, want > limit", limit, got)
		}
		if got > limit+1010 {
			t.Errorf("limit %d: got %d, want the walk to stop within one element of the limit", limit, got)
		}
	}
	if got := encodedSize(v, full); got != full {
		t.Errorf("limit = size: got %d, want %d", got, full)
	}
	if raceDetector {
		return // allocation counts vary under the race detector
	}
	if allocs := testing.AllocsPerRun(10, func() { encodedSize(v, math.MaxInt) }); allocs != 0 {
		t.Errorf("encodedSize allocates %v times, want 0", allocs)
	}
}

func TestInteger(t *testing.T) {
	tests := []struct {
		in     string
		want   int64
		ok     bool
		reason string
	}{
		{"1", 1, true, "plain"},
		{"-0", 0, true, "negative zero"},
		{"0.000", 0, true, "zero with a fraction"},
		{"0e-999", 0, true, "zero with any exponent"},
		{"1.0", 1, true, "trailing zeros"},
		{"10e-1", 1, true, "exponent cancels a zero"},
		{"100E-2", 1, true, "upper-case E"},
		{"1e3", 1000, true, "positive exponent"},
		{"-2", -2, true, "negative"},
		{"1.5", 0, false, "fraction"},
		{"1e-1", 0, false, "negative exponent"},
		{"1.0000000000000000001", 0, false, "exact, not float64"},
		{"1e400", bigInt, true, "huge: clamped"},
		{"-123456789012345678901234567890", -bigInt, true, "clamped below"},
		{"999999999999999999", 999999999999999999, true, "18 digits fit"},
		{"1e99999999999999999999", bigInt, true, "saturated exponent"},
		{"1e-99999999999999999999", 0, false, "saturated negative exponent"},
	}
	for _, tt := range tests {
		got, ok := integer(json.Number(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("integer(json.Number(%q)) = %d, %v; want %d, %v (%s)", tt.in, got, ok, tt.want, tt.ok, tt.reason)
		}
	}
}

func TestIsRFC3339(t *testing.T) {
	tests := []struct {
		in     string
		want   bool
		reason string
	}{
		{"2026-02-18T10:30:00Z", true, "the spec's example"},
		{"2026-02-18T10:30:00.5+01:00", true, "fraction and offset"},
		{"2026-02-18T10:30:00.123456789012-00:00", true, "more than nanoseconds, unknown local offset"},
		{"2026-02-18t10:30:00z", true, "lower case allowed by RFC 3339 §5.6"},
		{"2024-02-29T00:00:00Z", true, "leap day"},
		{"2026-02-18T23:59:59+23:59", true, "largest offset"},
		{"2026-02-29T00:00:00Z", false, "no such day"},
		{"2026-13-01T00:00:00Z", false, "month 13"},
		{"2026-02-18T24:00:00Z", false, "hour 24"},
		{"2026-02-18T10:60:00Z", false, "minute 60"},
		{"2026-02-18T10:30:60Z", false, "a leap second is only at 23:59 UTC"},
		{"2016-12-31T23:59:60Z", true, "leap second (RFC 3339 §5.6 time-second 60)"},
		{"2016-12-31t23:59:60.25z", true, "leap second with a fraction, lower case"},
		{"2016-12-31T18:59:60-05:00", true, "leap second at 23:59 UTC through an offset"},
		{"2016-12-31T23:59:60+01:00", false, "leap second at 22:59 UTC"},
		{"2016-12-31T23:59:61Z", false, "second 61"},
		{"2026-02-18T10:30:00", false, "no offset"},
		{"2026-02-18T10:30Z", false, "no seconds"},
		{"2026-02-18 10:30:00Z", false, "space for T"},
		{"2026-02-18T1:30:00Z", false, "one-digit hour, which Go accepts"},
		{"2026-02-18T10:30:00,5Z", false, "comma fraction, which Go accepts"},
		{"2026-02-18T10:30:00.Z", false, "empty fraction"},
		{"2026-02-18T10:30:00+0100", false, "offset without colon"},
		{"2026-02-18T10:30:00+24:00", false, "offset hour 24"},
		{"2026-02-18T10:30:00+01:60", false, "offset minute 60"},
		{"2026-02-18T10:30:00ZZ", false, "trailing data"},
		{"+2026-02-18T10:30:00Z", false, "sign before year"},
		{"2026-02-18", false, "date only"},
		{"", false, "empty"},
	}
	for _, tt := range tests {
		if got := isRFC3339(tt.in); got != tt.want {
			t.Errorf("isRFC3339(%q) = %v, want %v (%s)", tt.in, got, tt.want, tt.reason)
		}
	}
}
