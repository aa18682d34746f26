// compare.go: the == of RFC 9535 §2.3.5.2.2 on document values, with exact numbers.

package jsonpath

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
)

type kind uint8

const (
	kindOther kind = iota
	kindNull
	kindBool
	kindString
	kindNumber
	kindArray
	kindObject
)

// kindOf classifies a document value. Numbers are json.Number, as decoded
// with UseNumber, or Go floats and integers from documents built in code.
func kindOf(v any) kind {
	switch v.(type) {
	case nil:
		return kindNull
	case bool:
		return kindBool
	case string:
		return kindString
	case json.Number, float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return kindNumber
	case []any:
		return kindArray
	case map[string]any:
		return kindObject
	}
	return kindOther
}

// equal is RFC 9535 equality: same kind and same value, arrays and objects
// compared member by member, numbers compared by value (1 == 1.0 == 1e0).
func equal(a, b any, depth int) bool {
	k := kindOf(a)
	if k != kindOf(b) || depth > maxEqualDepth {
		return false
	}
	switch k {
	case kindNull:
		return true
	case kindBool:
		return a.(bool) == b.(bool)
	case kindString:
		return a.(string) == b.(string)
	case kindNumber:
		return numbersEqual(a, b)
	case kindArray:
		x, y := a.([]any), b.([]any)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i], depth+1) {
				return false
			}
		}
		return true
	case kindObject:
		x, y := a.(map[string]any), b.(map[string]any)
		if len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equal(v, w, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

func numbersEqual(a, b any) bool {
	x, ok1 := numberText(a)
	y, ok2 := numberText(b)
	if !ok1 || !ok2 {
		return false
	}
	if x == y {
		return true
	}
	dx, ok1 := parseDecimal(x)
	dy, ok2 := parseDecimal(y)
	return ok1 && ok2 && dx.equal(&dy)
}

// numberText returns the decimal text of a number value.
func numberText(v any) (string, bool) {
	switch v := v.(type) {
	case json.Number:
		return string(v), true
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "", false
		}
		return strconv.FormatFloat(v, 'g', -1, 64), true
	case float32:
		return numberText(float64(v))
	case int:
		return strconv.FormatInt(int64(v), 10), true
	case int8:
		return strconv.FormatInt(int64(v), 10), true
	case int16:
		return strconv.FormatInt(int64(v), 10), true
	case int32:
		return strconv.FormatInt(int64(v), 10), true
	case int64:
		return strconv.FormatInt(v, 10), true
	case uint:
		return strconv.FormatUint(uint64(v), 10), true
	case uint8:
		return strconv.FormatUint(uint64(v), 10), true
	case uint16:
		return strconv.FormatUint(uint64(v), 10), true
	case uint32:
		return strconv.FormatUint(uint64(v), 10), true
	case uint64:
		return strconv.FormatUint(v, 10), true
	}
	return "", false
}

// decimal is a JSON number read without rounding: its value is
// ±0.d1d2…dn × 10^(point+exp), d1…dn being mant[first..last] minus any '.',
// with d1 and dn non-zero. A zero has first == -1.
type decimal struct {
	neg         bool
	mant        string
	first, last int
	point       int64  // exponent contributed by the position of the '.'
	exp         string // the exponent as written after 'e', without '+'
}

// parseDecimal reads s, which must follow the JSON number grammar.
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	intDigits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		intDigits++
	}
	if intDigits == 0 || intDigits > 1 && s[start] == '0' {
		return d, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		n := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == n {
			return d, false
		}
	}
	d.mant = s[start:i]
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		es := i
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		n := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == n {
			return d, false
		}
		d.exp = s[es:i]
		if d.exp[0] == '+' {
			d.exp = d.exp[1:]
		}
	}
	if i != len(s) {
		return d, false
	}
	d.first, d.last = -1, -1
	for j := 0; j < len(d.mant); j++ {
		if c := d.mant[j]; c != '.' && c != '0' {
			if d.first < 0 {
				d.first = j
			}
			d.last = j
		}
	}
	if d.first >= 0 {
		// The first significant digit has weight 10^(intDigits-first-1)
		// before the point and 10^(intDigits-first) after it, which skips
		// the '.' itself; the value is 0.d1… times ten to one more.
		d.point = int64(intDigits - d.first)
		if d.first > intDigits {
			d.point++
		}
	}
	return d, true
}

func (d *decimal) equal(e *decimal) bool {
	if d.first < 0 || e.first < 0 {
		return d.first < 0 && e.first < 0 // 0 == -0 == 0e5
	}
	if d.neg != e.neg {
		return false
	}
	i, j := d.first, e.first
	for {
		for i <= d.last && d.mant[i] == '.' {
			i++
		}
		for j <= e.last && e.mant[j] == '.' {
			j++
		}
		if i > d.last || j > e.last {
			if i <= d.last || j <= e.last {
				return false
			}
			break
		}
		if d.mant[i] != e.mant[j] {
			return false
		}
		i++
		j++
	}
	x, ok1 := d.smallExponent()
	y, ok2 := e.smallExponent()
	if ok1 && ok2 {
		return x == y
	}
	return d.exponent().Cmp(e.exponent()) == 0
}

// smallExponent returns point+exp when the written exponent is short enough
// for int64 arithmetic, the usual case, which needs no allocation.
func (d *decimal) smallExponent() (int64, bool) {
	if len(d.exp) > 15 {
		return 0, false
	}
	var e int64
	if d.exp != "" {
		e, _ = strconv.ParseInt(d.exp, 10, 64)
	}
	return d.point + e, true
}

// exponent returns point+exp exactly, however long the written exponent.
func (d *decimal) exponent() *big.Int {
	x := big.NewInt(d.point)
	if d.exp != "" {
		var e big.Int
		e.SetString(d.exp, 10) // digits with an optional '-': always valid
		x.Add(x, &e)
	}
	return x
}
