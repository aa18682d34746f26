// compare_test.go: equality of values, numbers compared exactly by value.

package jsonpath

import (
	"encoding/json"
	"math"
	"testing"
)

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
		{"huge exponents compared exactly", n("1e999999999999999999999"), n("10e999999999999999999998"), true},
		{"huge exponents differ", n("1e999999999999999999999"), n("1e999999999999999999998"), false},
		{"float64 from code", 0.5, n("5e-1"), true},
		{"int from code", 3, n("3.0"), true},
		{"uint from code", uint8(7), 7.0, true},
		{"NaN is not a number", math.NaN(), math.NaN(), false},
		{"invalid json.Number", n("1x"), n("1"), false},
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
		if got := equal(tc.a, tc.b, 0); got != tc.want {
			t.Errorf("%s: equal(%v, %v) = %v, want %v", tc.why, tc.a, tc.b, got, tc.want)
		}
		if got := equal(tc.b, tc.a, 0); got != tc.want {
			t.Errorf("%s: equal(%v, %v) = %v, want %v (reversed)", tc.why, tc.b, tc.a, got, tc.want)
		}
	}
}
