// number.go: exact integer tests on decoded numbers, and how values are shown in messages.

package trace

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// bigInt stands for every integer too large to matter: integer clamps to it.
const bigInt = 1 << 62

// integer reports whether v is a number with an integral value, and that
// value clamped to ±bigInt. json.Number text is read exactly, so
// 1.0000000000000000001 is not an integer although its float64 is.
func integer(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		return decimalInteger(string(n))
	case float64:
		return floatInteger(n)
	case float32:
		return floatInteger(float64(n))
	case int:
		return int64(n), true
	case int64:
		return n, true
	case int32:
		return int64(n), true
	}
	return 0, false
}

func floatInteger(f float64) (int64, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) || math.Trunc(f) != f {
		return 0, false
	}
	return int64(max(-bigInt, min(bigInt, f))), true
}

// decimalInteger reads the RFC 8259 number s exactly: its significant digits
// times a power of ten, integral when that power, after trailing zeros are
// moved into it, is not negative.
func decimalInteger(s string) (int64, bool) {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[:i]
	var frac string
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		frac, i = s[i+1:j], j
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		expNeg := i < len(s) && s[i] == '-'
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		for ; i < len(s) && isDigit(s[i]); i++ {
			if exp < 1e9 { // saturate: such exponents settle the answer anyway
				exp = exp*10 + int(s[i]-'0')
			}
		}
		if expNeg {
			exp = -exp
		}
	}
	if i != len(s) || len(intPart) == 0 {
		return 0, false // not a JSON number
	}
	// The digits are intPart+frac, scaled by 10^(exp-len(frac)).
	digit := func(k int) byte {
		if k < len(intPart) {
			return intPart[k]
		}
		return frac[k-len(intPart)]
	}
	first, last := 0, len(intPart)+len(frac) // significant digits [first, last)
	for first < last && digit(first) == '0' {
		first++
	}
	if first == last {
		return 0, true // zero, however written
	}
	for digit(last-1) == '0' {
		last--
	}
	scale := exp - len(frac) + (len(intPart) + len(frac) - last)
	if scale < 0 {
		return 0, false
	}
	var n int64
	if last-first+scale > 18 {
		n = bigInt
	} else {
		for k := first; k < last; k++ {
			n = n*10 + int64(digit(k)-'0')
		}
		for range scale {
			n *= 10
		}
	}
	if neg {
		n = -n
	}
	return n, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isJSONNumber(v any) bool { _, ok := v.(json.Number); return ok }

// describe shows a value in a message: numbers and strings as themselves,
// clipped, other values by their JSON type.
func describe(v any) string {
	switch x := v.(type) {
	case json.Number:
		return clip(string(x))
	case string:
		return "string " + quote(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return Kind(v)
}

// quote puts a value from the trace between single quotes, as the spec's
// messages do, clipped so that a message stays short.
func quote(s string) string { return "'" + clip(s) + "'" }

// clip shortens s to at most 64 bytes, on a rune boundary, marking the cut.
func clip(s string) string {
	const n = 64
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
