// canon.go: canonical JSON text, the form in which args are compared, hashed and counted.

package simulate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// maxCanonDepth bounds the nesting Canonical walks, as the engine's decoder does (trace.MaxDepth).
const maxCanonDepth = 512

// Text is canonical JSON text made by Canonical, kept in place of the value it was made from: the ledger
// holds a call's args and fault this way, so that what it keeps is the text it counts. Canonical writes a
// Text as it is.
type Text []byte

// Value decodes the text into the value model (numbers as json.Number), whose canonical text it is: a
// fault reads a mock's result this way to change it (fault.go).
func (t Text) Value() (any, error) {
	d := json.NewDecoder(bytes.NewReader(t))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// Canonical returns the canonical JSON text of v (see the package documentation, "Canonical JSON"): no
// white space, object members sorted by the UTF-16 code units of their names, strings escaped minimally,
// numbers written as ECMAScript writes the nearest IEEE 754 double. v is a value of the decoder's model:
// nil, bool, string, json.Number, float64, Go integers, []any and map[string]any, or a Text.
func Canonical(v any) ([]byte, error) {
	return appendCanonical(nil, v, 0)
}

func appendCanonical(b []byte, v any, depth int) ([]byte, error) {
	if depth > maxCanonDepth {
		return b, fmt.Errorf("value nests deeper than %d levels", maxCanonDepth)
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return appendString(b, x), nil
	case Text:
		return append(b, x...), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareUTF16)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendCanonical(b, x[k], depth+1); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendCanonical(b, e, depth+1); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	}
	f, err := toFloat(v)
	if err != nil {
		return b, err
	}
	return appendNumber(b, f), nil
}

// toFloat reads a number of the value model as the nearest float64 (RFC 8785 §3.2.2.3 reads every number
// as an IEEE 754 double); a number outside the double range is an error, never an infinity.
func toFloat(v any) (float64, error) {
	var f float64
	switch x := v.(type) {
	case json.Number:
		var err error
		f, err = strconv.ParseFloat(string(x), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("invalid number %q", string(x))
		}
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case int32:
		f = float64(x)
	case uint64:
		f = float64(x)
	default:
		return 0, fmt.Errorf("value of Go type %T is not JSON", v)
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("number %v is outside the range of a double", v)
	}
	return f, nil
}

// appendNumber writes f as ECMAScript's Number::toString does (ECMA-262 §6.1.6.1.20), which RFC 8785
// adopts: the shortest digits that read back to f, plain notation for exponents from -6 to 20, otherwise
// d.ddde±n; -0 is 0.
func appendNumber(b []byte, f float64) []byte {
	if f == 0 {
		return append(b, '0')
	}
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	// 'e' with precision -1 gives the shortest round-tripping digits: d.ddde±XX.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1 // f = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		b = append(b, digits...)
		for range n - k {
			b = append(b, '0')
		}
	case 0 < n && n <= 21:
		b = append(b, digits[:n]...)
		b = append(b, '.')
		b = append(b, digits[n:]...)
	case -6 < n && n <= 0:
		b = append(b, "0."...)
		for range -n {
			b = append(b, '0')
		}
		b = append(b, digits...)
	default:
		b = append(b, digits[0])
		if k > 1 {
			b = append(b, '.')
			b = append(b, digits[1:]...)
		}
		b = append(b, 'e')
		if n-1 > 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(n-1), 10)
	}
	return b
}

// appendString escapes as RFC 8785 §3.2.2.2: \" \\ \b \f \n \r \t, other controls as \u00xx (lower-case
// hex), everything else as its UTF-8 bytes.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// compareUTF16 orders member names by their UTF-16 code units (RFC 8785 §3.2.3), which differs from
// byte order only between characters above U+FFFF and those from U+E000 to U+FFFF.
func compareUTF16(a, b string) int {
	if !hasHigh(a) && !hasHigh(b) {
		return strings.Compare(a, b)
	}
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

// hasHigh reports whether s holds a byte of a character at or above U+E000 (lead bytes 0xEE and up).
func hasHigh(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xEE {
			return true
		}
	}
	return false
}
