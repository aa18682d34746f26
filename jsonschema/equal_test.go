// equal_test.go checks Equal, the JSON equality shared with jsonpath and assert, and its hash.

package jsonschema

import (
	"encoding/json"
	"math"
	"testing"
)

// TestEqual covers Equal, the JSON equality that JSONPath filters (RFC 9535 §2.3.5.2.2) and the assertion
// layers share with const, enum and uniqueItems; equal values must also hash equally.
func TestEqual(t *testing.T) {
	n := func(s string) json.Number { return json.Number(s) }
	tests := []struct {
		why  string
		a, b any
		want bool
	}{
		{"same text", n("89.99"), n("89.99"), true},
		{"trailing zero", n("1"), n("1.0"), true},
		{"exponent", n("1e2"), n("100"), true},
		{"negative exponent", n("8999e-2"), n("89.99"), true},
		{"upper-case E and plus", n("1.5E+1"), n("15"), true},
		{"zero and minus zero", n("0"), n("-0"), true},
		{"zero with exponent", n("0e10"), n("0.000"), true},
		{"sign", n("-1"), n("1"), false},
		{"beyond float64 precision", n("9007199254740993"), n("9007199254740992"), false},
		{"closer than float64 can tell", n("0.1"), n("0.10000000000000001"), false},
		{"beyond float64 range", n("1e400"), n("2e400"), false},
		{"huge exponents compared exactly", n("1e999999999999999999999"), n("10e999999999999999999998"), true},
		{"huge exponents differ", n("1e999999999999999999999"), n("1e999999999999999999998"), false},
		{"huge negative exponents differ", n("1e-999999999999999999999"), n("1e-999999999999999999998"), false},
		{"exponent written long, held short", n("0.1e1000000000000001"), n("1e1000000000000000"), true},
		{"exponent past the limit by a shift", n("100e999999999999999"), n("1e1000000000000001"), true},
		{"float64 from code", 0.5, n("5e-1"), true},
		{"float32 as the float64 it converts to", float32(0.1), n("0.10000000149011612"), true},
		{"float32 and float64", float32(0.5), 0.5, true},
		{"float32 is not its float32 text", float32(0.1), n("0.1"), false},
		{"int from code", 3, n("3.0"), true},
		{"uint from code", uint8(7), 7.0, true},
		{"int16 from code", int16(-2), n("-2"), true},
		{"NaN is not a number", math.NaN(), math.NaN(), false},
		{"infinity is not a number", math.Inf(1), math.Inf(1), false},
		{"invalid json.Number", n("1x"), n("1"), false},
		{"invalid json.Number is not zero", n("1x"), n("0"), false},
		{"leading zero is not JSON", n("01"), n("1"), false},
		{"number and string", n("1"), "1", false},
		{"null and absent-like nil", nil, nil, true},
		{"bools", true, false, false},
		{"arrays by element", []any{n("1"), "a"}, []any{n("1.0"), "a"}, true},
		{"arrays of different length", []any{n("1")}, []any{n("1"), n("1")}, false},
		{"objects by member", map[string]any{"a": n("2")}, map[string]any{"a": n("2e0")}, true},
		{"objects with other names", map[string]any{"a": nil}, map[string]any{"b": nil}, false},
		{"unknown Go type", struct{}{}, struct{}{}, false},
	}
	for _, tc := range tests {
		if got := Equal(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: Equal(%v, %v) = %v, want %v", tc.why, tc.a, tc.b, got, tc.want)
		}
		if got := Equal(tc.b, tc.a); got != tc.want {
			t.Errorf("%s: Equal(%v, %v) = %v, want %v (reversed)", tc.why, tc.b, tc.a, got, tc.want)
		}
		if tc.want && hashJSON(tc.a) != hashJSON(tc.b) {
			t.Errorf("%s: equal values %v and %v hash differently", tc.why, tc.a, tc.b)
		}
	}
}
