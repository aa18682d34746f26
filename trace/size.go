// size.go: EncodedSize and valueSize, the length of a value's compact JSON encoding, measured without encoding, on a decoded value or on a tape.

package trace

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"attest-engine/tape"
)

// EncodedSize returns the byte length of v's compact JSON encoding
// (encoding/json's escaping without HTML escaping), stopping early once it
// exceeds limit (then it returns some value > limit). Used for the trace size
// and step-result size limits, so the limits do not depend on the SDK's white
// space. It walks the value and allocates nothing for the engine's value
// model; a value encoding/json cannot encode counts as its best guess.
func EncodedSize(v any, limit int) int {
	s := sizer{limit: limit}
	s.value(v)
	return s.n
}

type sizer struct {
	n, limit int
}

// value adds v's length and reports whether the total is still within limit.
func (s *sizer) value(v any) bool {
	switch x := v.(type) {
	case nil:
		s.n += 4
	case bool:
		if x {
			s.n += 4
		} else {
			s.n += 5
		}
	case string:
		s.n += stringSize(x)
	case json.Number:
		if x == "" {
			s.n++ // encoding/json writes an empty Number as 0
		} else {
			s.n += len(x)
		}
	case map[string]any:
		s.n += 2 + len(x) // braces, colons
		if len(x) > 1 {
			s.n += len(x) - 1 // commas
		}
		for k, e := range x {
			s.n += stringSize(k)
			if s.n > s.limit || !s.value(e) {
				return false
			}
		}
	case []any:
		s.n += 2
		if len(x) > 1 {
			s.n += len(x) - 1
		}
		for _, e := range x {
			if s.n > s.limit || !s.value(e) {
				return false
			}
		}
	case float64:
		s.n += floatSize(x, 64)
	case float32:
		s.n += floatSize(float64(x), 32)
	case int:
		s.n += intSize(int64(x))
	case int64:
		s.n += intSize(x)
	case int32:
		s.n += intSize(int64(x))
	default:
		b, _ := json.Marshal(x) // outside the value model: rare, so exactness beats speed
		s.n += len(b)
	}
	return s.n <= s.limit
}

// stringSize is the length of s quoted as encoding/json quotes it with HTML
// escaping off: '"' and '\\' and \b \f \n \r \t take two bytes, other control
// bytes six (\u00XX), U+2028 and U+2029 six, and each invalid UTF-8 byte six
// (\ufffd).
func stringSize(s string) int {
	n := 2 + len(s)
	for i := 0; i < len(s); i++ {
		extra := asciiExtra[s[i]]
		if extra == 0 {
			continue
		}
		if extra == nonASCII {
			return n + multiByteExtra(s[i:])
		}
		n += int(extra)
	}
	return n
}

// nonASCII marks bytes >= 0x80 in asciiExtra: the rest of the string takes
// the slower, rune-by-rune path.
const nonASCII = 0xff

// asciiExtra[c] is how many bytes beyond one the encoding of byte c takes.
var asciiExtra = func() (t [256]uint8) {
	for c := 0; c < 0x20; c++ {
		t[c] = 5 // \u00XX
	}
	for _, c := range []byte{'"', '\\', '\b', '\f', '\n', '\r', '\t'} {
		t[c] = 1
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = nonASCII
	}
	return t
}()

// multiByteExtra counts the extra bytes of s, which starts at a non-ASCII byte.
func multiByteExtra(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n += int(asciiExtra[c])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 5
		case r == '\u2028' || r == '\u2029':
			n += 3
		}
		i += size
	}
	return n
}

// floatSize follows encoding/json's float encoder: ES6 number formatting,
// exponents without padding. Infinities and NaN, which it refuses, count as
// their text.
func floatSize(f float64, bits int) int {
	var buf [64]byte
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) ||
			bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b := strconv.AppendFloat(buf[:0], f, format, -1, bits)
	n := len(b)
	if format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		n-- // e-09 is written e-9
	}
	return n
}

func intSize(i int64) int {
	var buf [20]byte
	return len(strconv.AppendInt(buf[:0], i, 10))
}

// valueSize is EncodedSize(v.Any(), limit), measured on the tape without
// decoding: a string's size from its decoded content, a number's its text
// (json.Number is written as it is), and one byte for each bracket, comma
// and colon. v's document has no duplicate member names (Any would keep one
// of the two, and the size count it once).
func valueSize(v tape.Value, limit int) int {
	n := 0
	for tok := range v.Tokens() {
		switch tok.Kind() {
		case tape.Null, tape.Bool:
			n += len(tok.Text()) // null, true, false
		case tape.Number:
			n += len(tok.Text())
		case tape.String:
			n += valueStringSize(tok)
		case tape.Array:
			n += 2 + max(tok.Len()-1, 0) // brackets, commas
		case tape.Object:
			n += 2 + tok.Len() + max(tok.Len()-1, 0) // braces, colons, commas
		}
		if n > limit {
			break
		}
	}
	return n
}

// exactValueSize is valueSize without a limit, for messages that report the
// actual size once a limit is known to be exceeded.
func exactValueSize(v tape.Value) int { return valueSize(v, math.MaxInt) }

// valueStringSize is stringSize of string v's decoded content. Its text
// between escapes is valid UTF-8 without quotes, backslashes or control
// bytes, so there only U+2028 and U+2029 grow (from 3 bytes to 6); each
// escape counts as its rune is written.
func valueStringSize(v tape.Value) int {
	if !v.Escaped() {
		return 2 + runSize(v.Raw())
	}
	n := 2
	for run, r := range v.Chunks() {
		if run != nil {
			n += runSize(run)
		} else {
			n += runeSize(r)
		}
	}
	return n
}

// runSize is the encoded length of run, valid UTF-8 that holds no byte
// below 0x20, no '"' and no '\\'.
func runSize(run []byte) int {
	n := len(run)
	for i := 0; ; {
		j := bytes.IndexByte(run[i:], 0xe2) // U+2028 and U+2029 are E2 80 A8 and E2 80 A9
		if j < 0 {
			return n
		}
		i += j
		if i+2 < len(run) && run[i+1] == 0x80 && (run[i+2] == 0xa8 || run[i+2] == 0xa9) {
			n += 3
		}
		i++
	}
}

// runeSize is the encoded length of r, as stringSize counts it.
func runeSize(r rune) int {
	switch {
	case r < utf8.RuneSelf:
		return 1 + int(asciiExtra[r])
	case r == '\u2028' || r == '\u2029':
		return 6
	}
	return utf8.RuneLen(r)
}

// runeCount is the number of code points of string v's decoded content.
func runeCount(v tape.Value) int {
	if !v.Escaped() {
		return utf8.RuneCount(v.Raw())
	}
	n := 0
	for run, _ := range v.Chunks() {
		if run != nil {
			n += utf8.RuneCount(run)
		} else {
			n++
		}
	}
	return n
}
