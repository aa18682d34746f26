// number.go holds exact JSON number handling: parsing, ordering, equality and multipleOf.

package jsonschema

import (
	"encoding/json"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// number is a JSON number as met in a schema or an instance. f is the nearest float64 (±Inf when out of
// range); it decides order on its own whenever two floats differ, because rounding to float64 is monotone:
// if float(a) < float(b) then a < b. Only ties fall back to the exact decimal form.
type number struct {
	text string // original JSON text; empty for Go float64/int values until needed
	f    float64
}

// numberOf reports whether v is a JSON number and returns it: a json.Number holding RFC 8259 number text, or
// a Go number. NaN and infinities are not JSON numbers.
func numberOf(v any) (number, bool) {
	switch x := v.(type) {
	case json.Number:
		if f, ok := fastFloat(string(x)); ok {
			return number{text: string(x), f: f}, true
		}
		if _, ok := parseDecimal(string(x)); !ok {
			return number{}, false
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil && !isRangeErr(err) {
			return number{}, false
		}
		return number{text: string(x), f: f}, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return number{}, false
		}
		return number{f: x}, true
	case float32:
		return numberOf(float64(x)) // its exact value, as float64 holds it
	case int:
		return intNumber(int64(x))
	case int8:
		return intNumber(int64(x))
	case int16:
		return intNumber(int64(x))
	case int32:
		return intNumber(int64(x))
	case int64:
		return intNumber(x)
	case uint:
		return uintNumber(uint64(x))
	case uint8:
		return uintNumber(uint64(x))
	case uint16:
		return uintNumber(uint64(x))
	case uint32:
		return uintNumber(uint64(x))
	case uint64:
		return uintNumber(x)
	}
	return number{}, false
}

func intNumber(x int64) (number, bool) {
	return number{text: strconv.FormatInt(x, 10), f: float64(x)}, true
}

func uintNumber(x uint64) (number, bool) {
	return number{text: strconv.FormatUint(x, 10), f: float64(x)}, true
}

// exactPow10 holds the powers of ten that float64 represents exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
	1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastFloat converts the common short forms of JSON number text ("-12", "0.95") without strconv: when
// the digits fit in 53 bits and at most 22 are after the point, one exact division gives the correctly
// rounded float64. It reports false for anything else, including invalid text, which the caller then
// examines with the general parsers.
func fastFloat(s string) (float64, bool) {
	i, neg := 0, false
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	var m uint64
	digits, frac := 0, 0
	start := i
	for i < len(s) && isDigit(s[i]) {
		m = m*10 + uint64(s[i]-'0')
		digits++
		i++
	}
	if i == start || digits > 1 && s[start] == '0' {
		return 0, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			m = m*10 + uint64(s[i]-'0')
			digits++
			i++
		}
		frac = i - fs
		if frac == 0 {
			return 0, false
		}
	}
	if i != len(s) || digits > 15 || frac > 22 {
		return 0, false
	}
	f := float64(m) / exactPow10[frac]
	if neg {
		f = -f
	}
	return f, true
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// String returns the number as written in the JSON text, so messages quote what the user wrote.
func (n number) String() string {
	if n.text != "" {
		return n.text
	}
	return strconv.FormatFloat(n.f, 'g', -1, 64)
}

func (n number) dec() decimal {
	d, _ := parseDecimal(n.String())
	return d
}

// cmpNumber returns -1, 0 or +1 as a is less than, equal to or greater than b, exactly.
func cmpNumber(a, b number) int {
	switch {
	case a.f < b.f:
		return -1
	case a.f > b.f:
		return 1
	}
	da, db := a.dec(), b.dec()
	return cmpDecimal(&da, &db)
}

// isInteger reports whether the number has a zero fractional part: §6.1.1 of the validation spec says
// "1.0" is an integer.
func (n number) isInteger() bool {
	if n.text == "" {
		return n.f == math.Trunc(n.f)
	}
	if strings.IndexAny(n.text, ".eE") < 0 {
		return true
	}
	d := n.dec()
	return d.zero() || d.exp >= 0
}

// decimal is an exact number: value = ±digits × 10^exp, where digits = hi+lo (two slices of the text, so
// parsing does not allocate) has no leading or trailing zeros. Zero has no digits, exp 0 and neg false.
// An exponent beyond ±expLimit is held exactly in eText (exponent.go), and exp is then ±expLimit.
type decimal struct {
	neg    bool
	hi, lo string
	exp    int64
	eText  string
}

func (d decimal) zero() bool { return d.hi == "" && d.lo == "" }
func (d decimal) ndigits() int64 {
	return int64(len(d.hi) + len(d.lo))
}
func (d decimal) digit(i int64) byte {
	if i < int64(len(d.hi)) {
		return d.hi[i]
	}
	i -= int64(len(d.hi))
	if i < int64(len(d.lo)) {
		return d.lo[i]
	}
	return '0'
}

// parseDecimal parses JSON number syntax (RFC 8259 §6).
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[start:i]
	if intPart == "" || len(intPart) > 1 && intPart[0] == '0' {
		return decimal{}, false
	}
	frac := ""
	if i < len(s) && s[i] == '.' {
		i++
		st := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		frac = s[st:i]
		if frac == "" {
			return decimal{}, false
		}
	}
	var e int64
	var eDigits string // the written exponent's digits, when it passes expLimit
	eneg := false
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		st := i
		for i < len(s) && isDigit(s[i]) {
			if e <= expLimit {
				e = e*10 + int64(s[i]-'0')
			}
			i++
		}
		if i == st {
			return decimal{}, false
		}
		if e > expLimit {
			e, eDigits = expLimit, s[st:i]
		}
		if eneg {
			e = -e
		}
	}
	if i != len(s) {
		return decimal{}, false
	}
	d.exp = e - int64(len(frac))
	hi, lo := strings.TrimLeft(intPart, "0"), frac
	if hi == "" {
		lo = strings.TrimLeft(lo, "0")
	}
	t := strings.TrimRight(lo, "0")
	d.exp += int64(len(lo) - len(t))
	lo = t
	if lo == "" {
		t = strings.TrimRight(hi, "0")
		d.exp += int64(len(hi) - len(t))
		hi = t
	}
	d.hi, d.lo = hi, lo
	if d.zero() {
		return decimal{}, true
	}
	if eDigits != "" || d.exp > expLimit || d.exp < -expLimit {
		d.exp, d.eText = hugeExp(eneg, eDigits, d.exp, d.exp-e)
	}
	return d, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func (d decimal) sign() int {
	switch {
	case d.zero():
		return 0
	case d.neg:
		return -1
	}
	return 1
}

func cmpDecimal(a, b *decimal) int {
	sa, sb := a.sign(), b.sign()
	if sa != sb {
		if sa < sb {
			return -1
		}
		return 1
	}
	if sa == 0 {
		return 0
	}
	m := cmpMagnitude(a, b)
	if a.neg {
		m = -m
	}
	return m
}

// cmpMagnitude compares |a| and |b| for non-zero a and b: first by the position of the leading digit, then
// digit by digit.
func cmpMagnitude(a, b *decimal) int {
	if adj := expDiff(a, b) + a.ndigits() - b.ndigits(); adj != 0 {
		if adj < 0 {
			return -1
		}
		return 1
	}
	n := max(a.ndigits(), b.ndigits())
	for i := int64(0); i < n; i++ {
		ca, cb := a.digit(i), b.digit(i)
		if ca != cb {
			if ca < cb {
				return -1
			}
			return 1
		}
	}
	return 0
}

// isMultiple reports whether x is an integer multiple of the positive divisor d (§6.2.1), exactly.
// With x = X·10^ex and d = D·10^ed, x/d is an integer iff D divides X·10^(ex-ed) when ex ≥ ed, and never
// when ex < ed: D·10^(ed-ex) would have to divide X, which has no trailing zeros. Exponent gaps are clamped
// where the answer can no longer change, so hostile exponents cannot make the arithmetic large.
func isMultiple(x, d decimal) bool {
	if x.zero() {
		return true
	}
	k := expDiff(&x, &d)
	if k < 0 {
		return false
	}
	// 10^k only contributes factors 2 and 5; D has fewer than 4·digits of each.
	n := x.ndigits() + min(k, 4*d.ndigits()+4)
	// X·10^k mod D, reading n digits of X (digit returns '0' past its end) from the left: linear in the length
	// of X, where converting X to big.Int takes time quadratic in it.
	D, ok := d.uint()
	if !ok {
		// 18 digits at a time, with big.Int.
		r, t, bigD := new(big.Int), new(big.Int), d.bigInt()
		for i := int64(0); i < n; {
			chunk, scale := uint64(0), uint64(1)
			for ; i < n && scale < 1e18; i++ {
				chunk, scale = chunk*10+uint64(x.digit(i)-'0'), scale*10
			}
			r.Mul(r, t.SetUint64(scale))
			r.Mod(r.Add(r, t.SetUint64(chunk)), bigD)
		}
		return r.Sign() == 0
	}
	var r uint64
	for i := range n {
		hi, lo := bits.Mul64(r, 10)
		lo, carry := bits.Add64(lo, uint64(x.digit(i)-'0'), 0)
		_, r = bits.Div64(hi+carry, lo, D) // hi+carry < D, as r < D
	}
	return r == 0
}

// uint returns the digits as a uint64 when they fit.
func (d decimal) uint() (uint64, bool) {
	if d.ndigits() > 19 {
		return 0, false
	}
	var v uint64
	for i := int64(0); i < d.ndigits(); i++ {
		v = v*10 + uint64(d.digit(i)-'0')
	}
	return v, true
}

func (d decimal) bigInt() *big.Int {
	v, _ := new(big.Int).SetString(d.hi+d.lo, 10)
	if v == nil {
		v = new(big.Int)
	}
	return v
}

func pow10(k int64) (uint64, bool) {
	if k < 0 || k > 19 {
		return 0, false
	}
	p := uint64(1)
	for range k {
		p *= 10
	}
	return p, true
}

// CompareNumbers compares two JSON numbers exactly, with the arithmetic the validator uses for minimum and
// maximum: big integers, long decimals, huge exponents, and 1.0 == 1. It returns -1, 0 or +1; ok is false when
// a or b is not a number of the value model (json.Number with valid JSON number text, or a Go number).
func CompareNumbers(a, b any) (c int, ok bool) {
	x, ok1 := numberOf(a)
	y, ok2 := numberOf(b)
	if !ok1 || !ok2 {
		return 0, false
	}
	return cmpNumber(x, y), true
}

// Float reads a number of the value model (json.Number with JSON number text, float64, int, int64) as the
// nearest finite float64, the one reading of a number as a double that the checks share: a value too small
// for a double reads as 0 (or -0), one too large, or NaN or an infinity, is not a number.
func Float(v any) (float64, bool) {
	var f float64
	switch n := v.(type) {
	case json.Number:
		var err error
		if f, err = strconv.ParseFloat(string(n), 64); err != nil && !isRangeErr(err) {
			return 0, false
		}
	case float64:
		f = n
	case int:
		f = float64(n)
	case int64:
		f = float64(n)
	default:
		return 0, false
	}
	return f, !math.IsNaN(f) && !math.IsInf(f, 0)
}

// Integer reports whether v is a JSON number with an integral value, read exactly as §6.1.1 of the
// validation spec reads "integer" (2.0 and 2e0 are 2; 1.0000000000000000001 is not an integer although its
// float64 is), and returns that value clamped to the int64 range.
func Integer(v any) (int64, bool) {
	n, ok := numberOf(v)
	if !ok || !n.isInteger() {
		return 0, false
	}
	if n.text == "" {
		if n.f >= 0x1p63 {
			return math.MaxInt64, true
		}
		return int64(max(-0x1p63, n.f)), true
	}
	return n.dec().int64(), true
}

// int64 returns the value of an integral d (exp ≥ 0), clamped to the int64 range.
func (d decimal) int64() int64 {
	limit := uint64(math.MaxInt64)
	if d.neg {
		limit++ // -limit is math.MinInt64
	}
	v := limit
	if x, ok := d.uint(); ok {
		if p, ok := pow10(d.exp); ok {
			if hi, lo := bits.Mul64(x, p); hi == 0 && lo < limit {
				v = lo
			}
		}
	}
	if d.neg {
		return int64(-v)
	}
	return int64(v)
}
