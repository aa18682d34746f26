// jsonsize.go: the length of the text AppendJSON writes for a value, counted without writing it.

package ingest

import (
	"encoding/json"
	"unicode/utf8"
)

// JSONSize is len(AppendJSON(nil, v)) for a value AppendJSON writes
// without error, counted without writing it, and once past limit some
// value above it: a trace too large to evaluate is known as such before
// its text, several times its own memory, is written.
func JSONSize(v any, limit int) int {
	n := 0
	var size func(v any) bool
	size = func(v any) bool {
		switch x := v.(type) {
		case nil:
			n += 4
		case bool:
			n += 5
			if x {
				n--
			}
		case string:
			n += stringSize(x)
		case json.Number:
			n += max(len(x), 1) // "" is written as 0
		case []any:
			if x == nil {
				n += 4
				break
			}
			n += 1 + max(len(x), 1)
			for _, e := range x {
				if n > limit || !size(e) {
					return false
				}
			}
		case map[string]any:
			if x == nil {
				n += 4
				break
			}
			n += 1 + max(2*len(x), 1)
			for k, e := range x {
				n += stringSize(k)
				if n > limit || !size(e) {
					return false
				}
			}
		default:
			text, _ := json.Marshal(x)
			n += len(text)
		}
		return n <= limit
	}
	size(v)
	return n
}

// stringSize is len(appendString(nil, s)).
func stringSize(s string) int {
	n := 2 + len(s)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
				n++
			case c < 0x20:
				n += 5
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			n += 5 // one byte written as \ufffd
		case r == '\u2028' || r == '\u2029':
			n += 3
		}
		i += w
	}
	return n
}
