package jsonschema

import (
	"encoding/json"
	"math"
	"testing"
)

// TestFloat: the one reading of a number as a double that the checks share (assert, trajectory).
func TestFloat(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want float64
		ok   bool
	}{
		{json.Number("1.5"), 1.5, true},
		{json.Number("-0"), math.Copysign(0, -1), true},
		{json.Number("1e-400"), 0, true}, // below the doubles: 0, as strconv reads it
		{json.Number("1e400"), 0, false}, // beyond them: not a number
		{json.Number("x"), 0, false},
		{2.5, 2.5, true},
		{math.NaN(), 0, false},
		{math.Inf(1), 0, false},
		{7, 7, true},
		{int64(-3), -3, true},
		{"1", 0, false},
		{nil, 0, false},
	} {
		got, ok := Float(tc.v)
		if ok != tc.ok || ok && (got != tc.want || math.Signbit(got) != math.Signbit(tc.want)) {
			t.Errorf("Float(%#v) = %v, %v; want %v, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}
