// number_test.go checks exact number arithmetic past float64 and int64, at a cost linear in the text.

package jsonschema

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

func TestCompareHugeExponents(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1e999999999999999999999", "1e999999999999999999998", 1},
		{"-1e999999999999999999999", "-1e999999999999999999998", -1},
		{"1e-999999999999999999999", "1e-999999999999999999998", -1},
		{"1e1000000000000001", "9e1000000000000000", 1},
		{"1e-1000000000000001", "1e-1000000000000000", -1},
		{"1e10000000000000000", "1e1000000000000000", 1},
		{"1e100000000000000000", "1e99999999999999999", 1},
		{"1e1000000000000000000000", "999e999999999999999999997", 1},
		{"1e1000000000000000000000", "-1e1000000000000000000000", 1},
		{"1e-1000000000000000000000", "1e1000000000000000000000", -1},
	}
	for _, tc := range tests {
		if got, ok := CompareNumbers(json.Number(tc.a), json.Number(tc.b)); !ok || got != tc.want {
			t.Errorf("CompareNumbers(%s, %s) = %d, %v; want %d", tc.a, tc.b, got, ok, tc.want)
		}
	}
}

func TestIntegerExact(t *testing.T) {
	tests := []struct {
		v    any
		want int64
		ok   bool
	}{
		{json.Number("2.0"), 2, true},
		{json.Number("2e0"), 2, true},
		{json.Number("-20e-1"), -2, true},
		{json.Number("1.0000000000000000001"), 0, false},
		{json.Number("9223372036854775807"), math.MaxInt64, true},
		{json.Number("9223372036854775808"), math.MaxInt64, true},
		{json.Number("-9223372036854775808"), math.MinInt64, true},
		{json.Number("-1e99999999999999999999"), math.MinInt64, true},
		{json.Number("1e-99999999999999999999"), 0, false},
		{json.Number("01"), 0, false},
		{1e300, math.MaxInt64, true},
		{-1e300, math.MinInt64, true},
		{2.5, 0, false},
		{math.NaN(), 0, false},
		{uint64(math.MaxUint64), math.MaxInt64, true},
		{"2", 0, false},
	}
	for _, tc := range tests {
		if got, ok := Integer(tc.v); got != tc.want || ok != tc.ok {
			t.Errorf("Integer(%v) = %d, %v; want %d, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}

// TestHugeExponentsStayLinear: an exponent a trace can make megabytes long is compared digit by digit, not
// converted to big.Int, which is quadratic (seconds for one megabyte).
func TestHugeExponentsStayLinear(t *testing.T) {
	e := strings.Repeat("9", 1<<20)
	a, b := json.Number("1e"+e), json.Number("10e"+e[1:]+"8")
	start := time.Now()
	if !Equal(a, b) || Equal(a, json.Number("1")) || hashJSON(a) != hashJSON(b) {
		t.Error("1e999… and 10e999…8 must be equal, and not equal to 1")
	}
	if c, _ := CompareNumbers(a, json.Number("1e"+e[1:])); c != 1 {
		t.Error("a longer exponent must compare larger")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("comparing numbers with 1 MiB exponents took %v", d)
	}
}

// TestMultipleOfLongInstance: a number a trace can make megabytes long is reduced modulo the divisor digit by
// digit, not converted to big.Int (about 20 seconds for one megabyte).
func TestMultipleOfLongInstance(t *testing.T) {
	s, err := Compile(map[string]any{"multipleOf": json.Number("0.3")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	digits := strings.Repeat("7", 1<<20)
	start := time.Now()
	if s.Valid(json.Number(digits + "e-1")) { // the digits sum to 1 modulo 3
		t.Error("777…7e-1 is not a multiple of 0.3")
	}
	if !s.Valid(json.Number(digits + "5e-1")) {
		t.Error("777…75e-1 is a multiple of 0.3")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("multipleOf on a 1 MiB number took %v", d)
	}
}
