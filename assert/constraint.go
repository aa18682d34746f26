// constraint.go: layer 2, exact numeric comparisons on one number of the trace (spec §4).

package assert

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"attest-engine/trace"
)

// constraintCheck compares the one number its field selects with a bound
// (or two, for between), exactly on the decimal text.
type constraintCheck struct {
	field    target
	op       string
	value    decimal // lt lte gt gte eq
	min, max decimal // between
	text     string  // "lte 0.01" or "between 100 and 2000", for explanations
}

// Spec §4 Layer 2, "Operators".
var constraintOps = map[string]bool{"lt": true, "lte": true, "gt": true, "gte": true, "eq": true, "between": true}

// compileConstraint reads spec §4 Layer 2: field, operator, value (all but
// between), min and max (between, inclusive), soft (read by the engine).
func compileConstraint(_ *Engine, s spec) (check, error) {
	f, err := parseTarget(s, "field")
	if err != nil {
		return nil, err
	}
	op, err := s.str("operator", true)
	if err != nil {
		return nil, err
	}
	if !constraintOps[op] {
		return nil, specErrorf("Use one of the operators lt, lte, gt, gte, eq, between (spec §4 Layer 2).", "unknown constraint operator '%s'", op)
	}
	c := &constraintCheck{field: f, op: op}
	if op != "between" {
		var vt string
		if c.value, vt, err = specNumber(s, "value", "'value' is required for operator '"+op+"'."); err != nil {
			return nil, err
		}
		c.text = op + " " + vt
		return c, nil
	}
	var lo, hi string
	if c.min, lo, err = specNumber(s, "min", "'min' and 'max' are required for operator 'between'."); err != nil {
		return nil, err
	}
	if c.max, hi, err = specNumber(s, "max", "'min' and 'max' are required for operator 'between'."); err != nil {
		return nil, err
	}
	if c.min.cmp(c.max) > 0 {
		return nil, specErrorf("Swap the bounds: 'between' needs min <= max (both inclusive).", "constraint min %s is greater than max %s", lo, hi)
	}
	c.text = fmt.Sprintf("between %s and %s", lo, hi)
	return c, nil
}

// specNumber reads a required numeric spec field exactly, with its text.
func specNumber(s spec, name, detail string) (decimal, string, error) {
	v, ok := s[name]
	if !ok || v == nil {
		return decimal{}, "", specErrorf(detail, "missing required spec field '%s'", name)
	}
	txt, ok := numberText(v)
	if !ok {
		return decimal{}, "", s.wrongType(name, "a number")
	}
	d, ok := parseDecimal(txt)
	if !ok {
		return decimal{}, "", s.wrongType(name, "a number")
	}
	return d, txt, nil
}

func (c *constraintCheck) eval(_ context.Context, in *input) (outcome, error) {
	ms := c.field.resolve(in)
	if len(ms) == 0 && in.steps == nil && c.countsSteps() {
		// Spec §3.2: steps may be absent; a trace without steps has none.
		ms = c.field.path.Select(map[string]any{"steps": []any{}})
	}
	name := c.field.expr
	switch {
	case len(ms) == 0:
		return outcome{explanation: fmt.Sprintf("%s not found in trace: constraint %s cannot be satisfied.", name, c.text)}, nil
	case len(ms) > 1:
		// A number is needed, not a set: never silently take the first.
		return outcome{explanation: fmt.Sprintf("%s matches %d values (%s), not one number: constraint %s cannot be checked. Narrow the path or count with .length.", name, len(ms), locList(ms), c.text)}, nil
	}
	v := ms[0].Value
	txt, isNum := numberText(v)
	d, ok := parseDecimal(txt)
	if !isNum || !ok {
		return outcome{explanation: fmt.Sprintf("%s is %s, not a number: constraint %s cannot be satisfied.", name, describeValue(v), c.text)}, nil
	}
	var pass bool
	switch c.op {
	case "lt":
		pass = d.cmp(c.value) < 0
	case "lte":
		pass = d.cmp(c.value) <= 0
	case "gt":
		pass = d.cmp(c.value) > 0
	case "gte":
		pass = d.cmp(c.value) >= 0
	case "eq":
		pass = d.cmp(c.value) == 0
	case "between":
		pass = d.cmp(c.min) >= 0 && d.cmp(c.max) <= 0
	}
	verdict := "violated"
	if pass {
		verdict = "satisfied"
	}
	o := outcome{pass: pass, explanation: fmt.Sprintf("%s = %s, constraint %s %s.", name, txt, c.text, verdict)}
	if pass {
		o.score = 1
	}
	return o, nil
}

// countsSteps reports whether the field is a count over the steps array
// (steps.length, steps[?type=='tool_call'].length).
func (c *constraintCheck) countsSteps() bool {
	s := c.field.path.String()
	return strings.HasPrefix(s, "steps") && strings.HasSuffix(s, ".length") && strings.Count(s, ".length") == 1
}

// describeValue names a non-number for an explanation: a string "abc", null.
func describeValue(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		q, _ := json.Marshal(excerpt(v.(string), 60))
		return "the string " + string(q)
	case bool:
		return "the boolean " + jsonText(v)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return trace.Kind(v)
}

// numberText returns the JSON text of a number of the value model.
func numberText(v any) (string, bool) {
	switch n := v.(type) {
	case json.Number:
		return string(n), true
	case float64:
		return strconv.FormatFloat(n, 'g', -1, 64), true
	case int:
		return strconv.Itoa(n), true
	case int64:
		return strconv.FormatInt(n, 10), true
	}
	return "", false
}

// decimal is an exact decimal number: 0.digits × 10^exp, with digits free of
// leading and trailing zeros ("" for zero). Comparing two of them needs no
// rounding and no allocation, unlike float64 (0.1+0.2 ≠ 0.3) or big.Rat
// (whose size follows the exponent: 1e999999999 would be huge).
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// maxExp saturates exponents; numbers beyond ±10^(10^15) compare by their
// saturated exponent, which no trace or budget reaches.
const maxExp = 1_000_000_000_000_000

// parseDecimal reads a JSON number (RFC 8259 grammar) exactly.
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intPart := s[start:i]
	if intPart == "" || len(intPart) > 1 && intPart[0] == '0' {
		return decimal{}, false
	}
	frac := ""
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if frac = s[fs:i]; frac == "" {
			return decimal{}, false
		}
	}
	var e int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		es := i
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if e < maxExp {
				e = e*10 + int64(s[i]-'0')
			}
		}
		if i == es {
			return decimal{}, false
		}
		if eneg {
			e = -e
		}
	}
	if i != len(s) {
		return decimal{}, false
	}
	// Significant digits: strip leading zeros of the integer part (each
	// moves the point) and of the fraction, then trailing zeros.
	point := int64(len(intPart))
	digits := intPart + frac
	lead := 0
	for lead < len(digits) && digits[lead] == '0' {
		lead++
	}
	digits = strings.TrimRight(digits[lead:], "0")
	if digits == "" {
		return decimal{}, true // zero, whatever its sign
	}
	d.digits = digits
	d.exp = max(-maxExp, min(maxExp, point-int64(lead)+e))
	return d, true
}

// cmp returns -1, 0 or +1 as d is less than, equal to or greater than o.
func (d decimal) cmp(o decimal) int {
	ds, os := d.sign(), o.sign()
	if ds != os {
		if ds < os {
			return -1
		}
		return 1
	}
	if ds == 0 {
		return 0
	}
	mag := 0
	switch {
	case d.exp != o.exp:
		mag = 1
		if d.exp < o.exp {
			mag = -1
		}
	default:
		mag = strings.Compare(d.digits, o.digits)
	}
	return mag * ds
}

func (d decimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// int64Value returns d as an integer when it is one and fits.
func (d decimal) int64Value() (int64, bool) {
	if d.digits == "" {
		return 0, true
	}
	if d.exp < int64(len(d.digits)) || d.exp > 18 {
		return 0, false
	}
	n, err := strconv.ParseInt(d.digits+strings.Repeat("0", int(d.exp)-len(d.digits)), 10, 64)
	if err != nil {
		return 0, false
	}
	if d.neg {
		n = -n
	}
	return n, true
}
