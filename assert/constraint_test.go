// constraint_test.go: golden cases and the fuzz target of the constraint layer.

package assert

import (
	"encoding/json"
	"testing"

	"attest-engine/jsonschema"
)

// TestConstraintGolden runs testdata/constraint/cases.json; see runGolden.
func TestConstraintGolden(t *testing.T) { runGolden(t, "constraint", "constraint") }

// FuzzConstraint decodes any spec and evaluates it: never a panic or a hang.
func FuzzConstraint(f *testing.F) { fuzzLayer(f, "constraint", "constraint") }

// TestDecimalCompare: the comparisons a constraint relies on, exactly
// (jsonschema.CompareNumbers, the validator's own number arithmetic).
func TestDecimalCompare(t *testing.T) {
	cases := []struct {
		a, b, reason string
		want         int
	}{
		{"0.30000000000000004", "0.3", "exact: no float rounding", 1},
		{"0.1", "0.10", "trailing zeros", 0},
		{"1e3", "1000", "exponent spelling", 0},
		{"6.70e-3", "0.0067", "negative exponent", 0},
		{"-0", "0", "negative zero is zero", 0},
		{"-0.0", "0e5", "zero in any spelling", 0},
		{"-1", "0", "sign", -1},
		{"-2", "-1", "negative magnitudes reverse", -1},
		{"12", "125", "a shorter digit string is smaller", -1},
		{"99", "100", "adjusted exponent first", -1},
		{"1e999999999999999999999", "1e999999999999999999", "huge exponents compared exactly", 1},
		{"1e-400", "0", "below float64 range, still positive", 1},
		{"123456789012345678901234567890", "123456789012345678901234567891", "beyond float64 precision", -1},
	}
	for _, tc := range cases {
		got, ok := jsonschema.CompareNumbers(json.Number(tc.a), json.Number(tc.b))
		if !ok {
			t.Errorf("%s vs %s (%s): not read as numbers", tc.a, tc.b, tc.reason)
			continue
		}
		if got != tc.want {
			t.Errorf("%s vs %s (%s): cmp %d, want %d", tc.a, tc.b, tc.reason, got, tc.want)
		}
	}
	for _, bad := range []string{"", "-", "01", "1.", ".5", "1e", "+1", "1e+", "0x10", "1 "} {
		if _, ok := jsonschema.CompareNumbers(json.Number(bad), json.Number("0")); ok {
			t.Errorf("CompareNumbers accepted %q, not a JSON number", bad)
		}
	}
}

func FuzzDecimal(f *testing.F) {
	for _, s := range []string{"0", "-0.0", "1e3", "0.30000000000000004", "123.456e-7", "1e999999999999999999"} {
		f.Add(s, "1")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		x, y := json.Number(a), json.Number(b)
		xy, ok1 := jsonschema.CompareNumbers(x, y)
		yx, ok2 := jsonschema.CompareNumbers(y, x)
		xx, _ := jsonschema.CompareNumbers(x, x)
		if !ok1 || !ok2 {
			return
		}
		if xy != -yx || xx != 0 {
			t.Fatalf("cmp(%q, %q) is not antisymmetric", a, b)
		}
	})
}
