// size_ref_test.go: encodedSize, the length of a decoded value's compact JSON encoding, measured without encoding: the oracle valueSize is checked against, and the size rules of the decoded-value reference (validate_ref_test.go).

package trace

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// encodedSize returns the byte length of v's compact JSON encoding
// (encoding/json's escaping without HTML escaping), stopping early once it
// exceeds limit (then it returns some value > limit). Used for the trace size
// and step-result size limits, so the limits do not depend on the SDK's white
// space. It walks the value and allocates nothing for the engine's value
// model; a value encoding/json cannot encode counts as its best guess.
func encodedSize(v any, limit int) int {
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
