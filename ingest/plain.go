// plain.go: a log record's attributes and body written straight from OTLP/JSON to the plain JSON they are held as, without building them.

package ingest

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// A log record waits in the assembler with its attributes and body packed
// as JSON text (Event.Packed). Building them as maps only to write them
// out again cost most of a record's reading: plainValue writes the common
// shape directly — each AnyValue with one member, named exactly, not
// null; a key-value list without a repeated key — and reports anything
// else, which is then read by anyValue and attrMap (their errors
// included) and packed from the values. FuzzPlainValue checks that the
// two read alike.

// plainValue appends the AnyValue raw as plain JSON; ok is false when raw
// is not of the common shape (nothing useful is appended then).
func plainValue(dst, raw []byte, depth int) ([]byte, bool) {
	if depth > maxValueDepth {
		return dst, false
	}
	var key string
	var val []byte
	n := 0
	if members(raw, "value", func(k string, v []byte) error { n++; key, val = k, v; return nil }) != nil || n != 1 || len(val) == 0 || isNull(val) {
		return dst, false
	}
	switch key {
	case "stringValue", "bytesValue":
		if val[0] != '"' {
			return dst, false
		}
		if plainString(val) { // as appendString would write it
			return append(dst, val...), true
		}
		s, err := unquote(val)
		if err != nil {
			return dst, false
		}
		return appendString(dst, s), true
	case "boolValue":
		switch val[0] {
		case 't':
			return append(dst, "true"...), true
		case 'f':
			return append(dst, "false"...), true
		}
	case "intValue":
		var w wireInt
		if w.UnmarshalJSON(val) != nil {
			return dst, false
		}
		return append(dst, w...), true
	case "doubleValue":
		var f float64
		if json.Unmarshal(val, &f) != nil {
			return dst, false
		}
		return strconv.AppendFloat(dst, f, 'g', -1, 64), true
	case "arrayValue":
		list, ok := onlyValues(val)
		if !ok {
			return dst, false
		}
		dst = append(dst, '[')
		first := true
		err := rawList(list).each("values", func(elem []byte) error {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			var ok bool
			if dst, ok = plainValue(dst, elem, depth+1); !ok {
				return errDepth // any error: not the common shape
			}
			return nil
		})
		return append(dst, ']'), err == nil
	case "kvlistValue":
		list, ok := onlyValues(val)
		if !ok {
			return dst, false
		}
		return plainPairs(dst, list, depth)
	}
	return dst, false
}

// plainString: the JSON string q (quotes included) holds no escape, no
// byte appendString would escape and only valid UTF-8, so it is written as
// it came.
func plainString(q []byte) bool {
	if len(q) < 2 {
		return false
	}
	in := q[1 : len(q)-1]
	for _, c := range in {
		if c < 0x20 || c == '\\' || c == '"' || c >= utf8.RuneSelf {
			return c >= utf8.RuneSelf && utf8.Valid(in) && !hasEscapable(in)
		}
	}
	return true
}

// hasEscapable: in has a byte appendString escapes (a control character,
// a quote, a backslash).
func hasEscapable(in []byte) bool {
	for _, c := range in {
		if c < 0x20 || c == '\\' || c == '"' {
			return true
		}
	}
	return false
}

// onlyValues is the "values" list of an ArrayValue or KeyValueList sent
// with that one member, or none.
func onlyValues(obj []byte) ([]byte, bool) {
	var list []byte
	n := 0
	if members(obj, "list", func(k string, v []byte) error { n++; list = v; return nil }) != nil || n > 1 {
		return nil, false
	}
	if n == 1 && (list == nil || isNull(list)) {
		return nil, false
	}
	if n == 1 {
		var key string
		members(obj, "list", func(k string, _ []byte) error { key = k; return nil })
		if key != "values" {
			return nil, false
		}
	}
	return list, true
}

// plainPairs appends a list of KeyValues as a JSON object, each pair
// {"key": string, "value": AnyValue} with those members only, keys not
// repeated.
func plainPairs(dst, list []byte, depth int) ([]byte, bool) {
	dst = append(dst, '{')
	var seen [][]byte
	ok := true
	err := rawList(list).each("values", func(elem []byte) error {
		var key, value []byte
		n := 0
		if members(elem, "attribute", func(k string, v []byte) error {
			n++
			switch k {
			case "key":
				if len(v) == 0 || v[0] != '"' || !plainString(v) {
					return errDepth // null, not a string, or escaped: the slow path reads it
				}
				key = v
				return nil
			case "value":
				value = v
				return nil
			}
			return errDepth
		}) != nil || key == nil || n > 2 {
			return errDepth
		}
		for _, s := range seen {
			if bytes.Equal(s, key) {
				return errDepth // a repeated key: the last wins, as a map has it
			}
		}
		seen = append(seen, key)
		if len(seen) > 1 {
			dst = append(dst, ',')
		}
		dst = append(append(dst, key...), ':')
		if value == nil {
			dst = append(dst, "null"...)
			return nil
		}
		if dst, ok = plainValue(dst, value, depth+1); !ok {
			return errDepth
		}
		return nil
	})
	return append(dst, '}'), err == nil && ok
}

// plainRecord is the packed text of a record's attributes and body
// ([attributes, body], as Event.pack writes them), when both are of the
// common shape.
func plainRecord(attrs, body []byte) (string, bool) {
	dst := make([]byte, 0, len(attrs)+len(body)+8)
	dst = append(dst, '[')
	var ok bool
	if rawList(attrs).count() == 0 {
		if len(attrs) > 0 && !isNull(attrs) && skipSpace(attrs, 0) < len(attrs) && attrs[skipSpace(attrs, 0)] != '[' {
			return "", false // not an array: attrMap's error
		}
		dst = append(dst, "null"...)
	} else if dst, ok = plainPairs(dst, attrs, 0); !ok {
		return "", false
	}
	dst = append(dst, ',')
	if body == nil || isNull(body) {
		dst = append(dst, "null"...)
	} else if dst, ok = plainValue(dst, body, 1); !ok {
		return "", false
	}
	return string(append(dst, ']')), true
}
