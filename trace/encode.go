// encode.go: the compact text of a decoded value, for Validate to read onto a tape: no reflection, no key sorting.

package trace

import (
	"bytes"
	"encoding/json"
	"sync"
	"unicode/utf8"

	"attest-engine/tape"
)

// encodeBufs holds the buffers Validate encodes into.
var encodeBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxKeptBuf is the largest buffer kept for the next Validate.
const maxKeptBuf = 1 << 20

// encode returns a JSON text of v that reads back (Any) as v, in a buffer
// of encodeBufs: appendValue's when v is in the decoded-value model, else
// encoding/json's, HTML escaping off.
func encode(v any) (text []byte, buf *[]byte, err error) {
	buf = encodeBufs.Get().(*[]byte)
	if b, ok := appendValue((*buf)[:0], v, 0); ok {
		*buf = b
		return b, buf, nil
	}
	w := bytes.NewBuffer((*buf)[:0])
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	err = enc.Encode(v)
	*buf = w.Bytes()
	return *buf, buf, err
}

// putBuf returns a buffer of encode's once its text is no longer used.
func putBuf(buf *[]byte) {
	if cap(*buf) <= maxKeptBuf {
		encodeBufs.Put(buf)
	}
}

// appendValue appends the compact JSON text of v, in the decoded-value
// model (nil, bool, string, json.Number, []any, map[string]any; members in
// map order, which validation does not depend on), and reports false for
// anything else: another type, a string that is not UTF-8, a json.Number
// that is not a number, nesting past tape.MaxDepth (a cycle included).
func appendValue(b []byte, v any, depth int) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		if x {
			return append(b, "true"...), true
		}
		return append(b, "false"...), true
	case string:
		return appendString(b, x)
	case json.Number:
		if x == "" {
			return append(b, '0'), true // as encoding/json writes it
		}
		if !isNumber(string(x)) {
			return b, false
		}
		return append(b, x...), true
	case []any:
		if depth >= tape.MaxDepth {
			return b, false
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendValue(b, e, depth+1); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		if depth >= tape.MaxDepth {
			return b, false
		}
		b = append(b, '{')
		first := true
		for k, e := range x {
			if !first {
				b = append(b, ',')
			}
			first = false
			var ok bool
			if b, ok = appendString(b, k); !ok {
				return b, false
			}
			b = append(b, ':')
			if b, ok = appendValue(b, e, depth+1); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

// appendString appends s quoted: '"', '\\' and control bytes escaped, the
// rest as it is; false when s is not valid UTF-8.
func appendString(b []byte, s string) ([]byte, bool) {
	if !utf8.ValidString(s) {
		return b, false
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			b = append(b, s[start:i]...)
			b = appendEscape(b, c)
			start = i + 1
		}
	}
	b = append(b, s[start:]...)
	return append(b, '"'), true
}

func appendEscape(b []byte, c byte) []byte {
	if c == '"' || c == '\\' {
		return append(b, '\\', c)
	}
	const hex = "0123456789abcdef"
	return append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
}

// isNumber reports whether s is a JSON number (RFC 8259 §6).
func isNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		n := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == n {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		n := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == n {
			return false
		}
	}
	return i == len(s)
}
