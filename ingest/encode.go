// encode.go: an assembled trace (the engine's value model) written as JSON text without reflection, byte for byte as encoding/json writes it with HTML escaping off.

package ingest

import (
	"encoding/json"
	"fmt"
	"slices"

	"attest-engine/jsonstr"
)

// AppendJSON appends v, a value of the engine's model (map[string]any,
// []any, string, json.Number, bool, nil; float64 and other types through
// encoding/json), as JSON text: the bytes a json.Encoder with
// SetEscapeHTML(false) writes, without its newline (TestAppendJSON checks
// it on every golden trace), at a fraction of its cost: members in key
// order, strings escaped as encoding/json escapes them. A json.Number that
// is not a JSON number is an error, as for encoding/json.
func AppendJSON(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		if x {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case string:
		return appendString(b, x), nil
	case json.Number:
		if !validNumber(string(x)) {
			return b, fmt.Errorf("json: invalid number literal %q", string(x))
		}
		if x == "" {
			return append(b, '0'), nil
		}
		return append(b, x...), nil
	case []any:
		if x == nil {
			return append(b, "null"...), nil // as encoding/json writes a nil slice
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = AppendJSON(b, e); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		if x == nil {
			return append(b, "null"...), nil
		}
		var small [16]string // the keys of most objects, without an allocation
		keys := small[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendString(b, k), ':')
			var err error
			if b, err = AppendJSON(b, x[k]); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	}
	text, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, text...), nil
}

// appendString writes s as encoding/json does (package jsonstr).
func appendString(b []byte, s string) []byte { return jsonstr.Append(b, s) }

// validNumber is encoding/json's test of a json.Number's text (its empty
// text writes as 0).
func validNumber(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == '-' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	switch {
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		s = s[1:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	default:
		return false
	}
	if len(s) >= 2 && s[0] == '.' && '0' <= s[1] && s[1] <= '9' {
		s = s[2:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
			if s == "" {
				return false
			}
		}
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	return s == ""
}
