// exponent.go holds the exact exponents of numbers beyond ±expLimit, kept as decimal text.

package jsonschema

import (
	"strconv"
	"strings"
)

// expLimit bounds the exponents held in an int64 so that arithmetic on them cannot overflow; 10^±10^15 is
// beyond any real use. Larger exponents are held exactly as text and compared digit by digit, in time
// linear in their length: converting them to big.Int would take time quadratic in it. Every shift applied
// to a written exponent is smaller than its text, hence far below expLimit.
const expLimit = 1e15

// hugeExp returns the exponent ±digits + shift (digits as written, past expLimit) or, with no digits, exp,
// which has passed ±expLimit through the shift alone: as canonical text, "-" and digits without leading
// zeros, so that equal exponents have equal texts, with ±expLimit for its sign. An exponent back within
// ±expLimit is returned as itself, with no text.
func hugeExp(neg bool, digits string, exp, shift int64) (int64, string) {
	text := strconv.FormatInt(exp, 10)
	if digits != "" {
		text = shiftDigits(neg, strings.TrimLeft(digits, "0"), shift)
	}
	if v, ok := shortExp(text); ok && -expLimit <= v && v <= expLimit {
		return v, ""
	}
	if text[0] == '-' {
		return -expLimit, text
	}
	return expLimit, text
}

// shiftDigits returns ±mag + shift as canonical text, for a magnitude mag larger than |shift|.
func shiftDigits(neg bool, mag string, shift int64) string {
	if neg {
		shift = -shift // -mag + shift = -(mag - shift)
	}
	b := make([]byte, len(mag)+2) // room for a sign and a carry
	b[0], b[1] = '-', '0'
	copy(b[2:], mag)
	if shift >= 0 {
		for i, c := len(b)-1, uint64(shift); c > 0; i-- {
			t := uint64(b[i]-'0') + c
			b[i], c = '0'+byte(t%10), t/10
		}
	} else {
		for i, c, borrow := len(b)-1, uint64(-shift), uint64(0); c > 0 || borrow > 0; i-- {
			t := 10 + uint64(b[i]-'0') - c%10 - borrow
			b[i], c, borrow = '0'+byte(t%10), c/10, 1-t/10
		}
	}
	j := 1
	for j < len(b)-1 && b[j] == '0' {
		j++
	}
	if neg {
		j--
		b[j] = '-'
	}
	return string(b[j:])
}

// shortExp reads an exponent text of at most 17 digits, which fits an int64 with room to spare.
func shortExp(text string) (int64, bool) {
	if len(strings.TrimPrefix(text, "-")) > 17 {
		return 0, false
	}
	v, err := strconv.ParseInt(text, 10, 64)
	return v, err == nil
}

// expValue returns the exponent, exactly while it is within ±10^17, else saturated to ±10^17.
func (d decimal) expValue() int64 {
	if d.eText == "" {
		return d.exp
	}
	if v, ok := shortExp(d.eText); ok {
		return v
	}
	if d.exp < 0 {
		return -1e17
	}
	return 1e17
}

// expDiff returns a.exp - b.exp exactly while it is within ±2·expLimit and saturated beyond, which is all
// its callers need: they compare it with digit counts or clamp it to one.
func expDiff(a, b *decimal) int64 {
	if a.eText == "" && b.eText == "" {
		return a.exp - b.exp
	}
	return hugeExpDiff(a, b)
}

// hugeExpDiff is expDiff when an exponent is past ±expLimit.
func hugeExpDiff(a, b *decimal) int64 {
	if a.eText != "" && b.eText != "" && (a.exp < 0) == (b.exp < 0) {
		diff := digitsDiff(strings.TrimPrefix(a.eText, "-"), strings.TrimPrefix(b.eText, "-"))
		if a.exp < 0 {
			diff = -diff
		}
		return diff
	}
	// At most one exponent is within ±10^17 and the other beyond ±expLimit, or they have opposite signs:
	// either way, saturated values only ever stand for gaps past 2·expLimit.
	return max(-2*expLimit, min(2*expLimit, a.expValue()-b.expValue()))
}

// digitsDiff returns x - y for digit strings without leading zeros, saturated to ±2·expLimit.
func digitsDiff(x, y string) int64 {
	sign := int64(1)
	if len(x) < len(y) || len(x) == len(y) && x < y {
		x, y, sign = y, x, -1
	}
	// x ≥ y: subtract from the right, keeping the low 16 digits; a non-zero digit above them means the gap
	// is at least 10^16.
	var v, p, borrow int64 = 0, 1, 0
	for i := 1; i <= len(x); i++ {
		t := int64(x[len(x)-i]-'0') - borrow
		if i <= len(y) {
			t -= int64(y[len(y)-i] - '0')
		}
		borrow = 0
		if t < 0 {
			t, borrow = t+10, 1
		}
		if i <= 16 {
			v += t * p
			p *= 10
		} else if t != 0 {
			return sign * 2 * expLimit
		}
	}
	return sign * min(v, 2*expLimit)
}
