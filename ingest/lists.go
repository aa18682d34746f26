// lists.go: walking OTLP/JSON in place: lists one element at a time, objects member by member, strings unquoted.

package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// rawList is a JSON list in an OTLP/JSON body, the body's own bytes (otlp.go
// says why the body is walked). Everything walked is valid JSON: ParseOTLP
// checks the body first, so a walk only finds where values end.
type rawList []byte

// each calls f with the text of each element in order. An absent or null
// list has none; any other value than an array is an error naming the
// list.
func (l rawList) each(name string, f func(elem []byte) error) error {
	b := l
	i := skipSpace(b, 0)
	if i == len(b) || b[i] == 'n' { // absent, or null
		return nil
	}
	if b[i] != '[' {
		return fmt.Errorf("%s: must be an array", name)
	}
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] != ']' {
		end := skipValue(b, i)
		if end <= i { // never for valid JSON; no endless loop for anything else
			return fmt.Errorf("%s: malformed array", name)
		}
		if err := f(b[i:end]); err != nil {
			return err
		}
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return nil
}

// count is the number of elements of the list (0 when it is not an array).
func (l rawList) count() int {
	n := 0
	_ = l.each("", func([]byte) error { n++; return nil })
	return n
}

// members calls f with each member of the JSON object obj in order, its
// name unquoted. An absent or null object has none; any other value than
// an object is an error naming it.
func members(obj []byte, name string, f func(key string, val []byte) error) error {
	i := skipSpace(obj, 0)
	if i == len(obj) || obj[i] == 'n' {
		return nil
	}
	if obj[i] != '{' {
		return fmt.Errorf("%s: must be an object", name)
	}
	i = skipSpace(obj, i+1)
	for i < len(obj) && obj[i] == '"' {
		end := skipValue(obj, i)
		key, known := memberName(obj[i:end])
		if !known {
			var err error
			if key, err = unquote(obj[i:end]); err != nil {
				return err
			}
		}
		i = skipSpace(obj, end)
		if i == len(obj) || obj[i] != ':' {
			return fmt.Errorf("%s: malformed object", name)
		}
		i = skipSpace(obj, i+1)
		end = skipValue(obj, i)
		if end <= i {
			return fmt.Errorf("%s: malformed object", name)
		}
		if err := f(key, obj[i:end]); err != nil {
			return err
		}
		i = skipSpace(obj, end)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	return nil
}

// memberName is a member name of the OTLP/JSON messages read, without a
// copy (a switch on string(b) does not allocate); known is false for
// another name, which unquote reads. Reading a name cost an allocation for
// every member of every span, event, record and attribute.
func memberName(q []byte) (string, bool) {
	if len(q) < 2 {
		return "", false
	}
	switch string(q[1 : len(q)-1]) {
	case "key":
		return "key", true
	case "value":
		return "value", true
	case "values":
		return "values", true
	case "stringValue":
		return "stringValue", true
	case "intValue":
		return "intValue", true
	case "doubleValue":
		return "doubleValue", true
	case "boolValue":
		return "boolValue", true
	case "arrayValue":
		return "arrayValue", true
	case "kvlistValue":
		return "kvlistValue", true
	case "bytesValue":
		return "bytesValue", true
	case "attributes":
		return "attributes", true
	case "traceId":
		return "traceId", true
	case "spanId":
		return "spanId", true
	case "parentSpanId":
		return "parentSpanId", true
	case "name":
		return "name", true
	case "kind":
		return "kind", true
	case "startTimeUnixNano":
		return "startTimeUnixNano", true
	case "endTimeUnixNano":
		return "endTimeUnixNano", true
	case "timeUnixNano":
		return "timeUnixNano", true
	case "observedTimeUnixNano":
		return "observedTimeUnixNano", true
	case "events":
		return "events", true
	case "status":
		return "status", true
	case "code":
		return "code", true
	case "message":
		return "message", true
	case "eventName":
		return "eventName", true
	case "body":
		return "body", true
	case "severityNumber":
		return "severityNumber", true
	case "severityText":
		return "severityText", true
	case "resource":
		return "resource", true
	case "scope":
		return "scope", true
	case "resourceSpans":
		return "resourceSpans", true
	case "scopeSpans":
		return "scopeSpans", true
	case "spans":
		return "spans", true
	case "resourceLogs":
		return "resourceLogs", true
	case "scopeLogs":
		return "scopeLogs", true
	case "logRecords":
		return "logRecords", true
	case "flags":
		return "flags", true
	}
	return "", false
}

// fieldIs matches a member name to a field's as encoding/json does:
// exactly, or else without regard to case (Unicode simple folding,
// bytes.EqualFold's, which encoding/json's is).
func fieldIs(key, field string) bool {
	return key == field || strings.EqualFold(key, field)
}

// str reads a string member into dst as encoding/json does into a string
// field: null leaves dst as it was, anything but a string is an error.
func str(val []byte, name string, dst *string) error {
	switch {
	case isNull(val):
		return nil
	case len(val) == 0 || val[0] != '"':
		return fmt.Errorf("%s: must be a string", name)
	}
	s, err := unquote(val)
	if err != nil {
		return err
	}
	*dst = s
	return nil
}

// unquote is the text of a JSON string, its quotes included: the bytes
// between them when they hold no escape and are valid UTF-8 (most do),
// else what encoding/json makes of it (escapes read, invalid UTF-8
// replaced).
func unquote(q []byte) (string, error) {
	if len(q) >= 2 {
		if in := q[1 : len(q)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
			return string(in), nil
		}
	}
	var s string
	err := json.Unmarshal(q, &s)
	return s, err
}

func isNull(val []byte) bool { return len(val) > 0 && val[0] == 'n' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at b[i]: past its
// closing bracket, or at the ',' or ']' that ends a scalar.
func skipValue(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = stringEnd(b, i)
			if depth == 0 {
				return min(i+1, len(b))
			}
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return i
			}
		case ',':
			if depth == 0 {
				return i
			}
		case ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

// stringEnd returns the index of the quote that closes the string opening at
// b[i] (len(b) when none does). It jumps from quote to quote: a string is
// crossed at memchr's speed, so a long one nested deep is cheap to cross at
// every level above it.
func stringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		j += k
		// Escaped when preceded by an odd number of backslashes.
		n := 0
		for n < j-i-1 && b[j-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return j
		}
		j++
	}
}
