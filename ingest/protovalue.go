// protovalue.go: OTLP protobuf attributes: KeyValue lists and the AnyValue union read into the engine's value model.

package ingest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// readKeyValue reads a KeyValue. A value sent more than once is merged as
// protobuf merges messages: the AnyValue read from all its encodings one
// after the other, which takes one copy, grown by appending (so at most
// the KeyValue's length, whatever the number of parts).
func readKeyValue(b []byte) (key, val []byte, err error) {
	parts := 0
	r := fields{b: b}
	for r.more() {
		f, err := r.nextIn(keyValueSchema)
		if err != nil {
			return nil, nil, err
		}
		switch f.num {
		case 1:
			key = f.b
		case 2:
			switch parts++; parts {
			case 1:
				val = f.b // no copy: a subslice of the input
			case 2:
				val = append(append(make([]byte, 0, len(val)+len(f.b)), val...), f.b...)
			default:
				val = append(val, f.b...)
			}
		}
	}
	return key, val, nil
}

// attrMapProto reads the KeyValues of field num of message b (n of them,
// counted by the caller) into a map, a repeated key keeping its last value,
// as attrMap does for OTLP/JSON; past maxProtoAttrs they are dropped. With
// build false the values are only checked, and the map is nil.
func attrMapProto(b []byte, num uint32, s schema, n, depth int, build bool) (map[string]any, error) {
	var m map[string]any
	if build && n > 0 {
		m = make(map[string]any, min(n, maxProtoAttrs))
	}
	read := 0
	r := fields{b: b}
	for r.more() && read < maxProtoAttrs {
		f, err := r.nextIn(s)
		if err != nil {
			return nil, err
		}
		if f.num != num {
			continue
		}
		read++
		key, val, err := readKeyValue(f.b)
		if err != nil {
			return nil, fmt.Errorf("attribute: %v", err)
		}
		v, err := value(val, depth+1, build)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", clip(strconv.Quote(pbString(key))), err)
		}
		if build {
			m[pbString(key)] = v
		}
	}
	return m, nil
}

// value reads an AnyValue into the engine's value model as anyValue.value
// does for OTLP/JSON: int as a json.Number of its decimal text, double as
// the shortest decimal that reads back to it (NaN and infinities, which
// JSON cannot carry, as null), bytes as their standard base64 (the proto3
// JSON mapping), arrays as []any and key-value lists as maps, empty ones
// included; nothing set is null. Of the oneof's members the last one sent
// wins, and a message member sent several times in a row is merged.
// Nesting past maxValueDepth is errDepth, so the recursion is bounded.
func value(b []byte, depth int, build bool) (any, error) {
	if depth > maxValueDepth {
		return nil, errDepth
	}
	var last field
	var merged []byte // the payloads of the last member when it is a message sent more than once
	r := fields{b: b}
	for r.more() {
		f, err := r.nextIn(anyValueSchema)
		if err != nil {
			return nil, err
		}
		if f.num < 1 || f.num > 7 {
			continue
		}
		if (f.num == 5 || f.num == 6) && f.num == last.num {
			if merged == nil {
				merged = append([]byte(nil), last.b...)
			}
			merged = append(merged, f.b...)
		} else {
			merged = nil
		}
		last = f
	}
	if merged != nil {
		last.b = merged
	}
	if !build && last.num != 5 && last.num != 6 {
		return nil, nil // a scalar: nothing nested to check
	}
	switch last.num {
	case 1:
		return pbString(last.b), nil
	case 2:
		return last.u != 0, nil
	case 3:
		return json.Number(strconv.FormatInt(int64(last.u), 10)), nil
	case 4:
		f := math.Float64frombits(last.u)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, nil
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case 5:
		return arrayValue(last.b, depth, build)
	case 6:
		n := 0
		r := fields{b: last.b}
		for r.more() {
			f, err := r.nextIn(listSchema)
			if err != nil {
				return nil, err
			}
			if f.num == 1 {
				n++
			}
		}
		m, err := attrMapProto(last.b, 1, listSchema, n, depth, build)
		if m == nil && err == nil && build {
			m = map[string]any{}
		}
		return m, err
	case 7:
		return base64.StdEncoding.EncodeToString(last.b), nil
	}
	return nil, nil
}

func arrayValue(b []byte, depth int, build bool) (any, error) {
	n := 0
	r := fields{b: b}
	for r.more() {
		f, err := r.nextIn(listSchema)
		if err != nil {
			return nil, err
		}
		if f.num == 1 {
			n++
		}
	}
	var out []any
	if build {
		out = make([]any, 0, n)
	}
	r = fields{b: b}
	for r.more() {
		f, _ := r.nextIn(listSchema) // read whole above
		if f.num != 1 {
			continue
		}
		x, err := value(f.b, depth+1, build)
		if err != nil {
			return nil, err
		}
		if build {
			out = append(out, x)
		}
	}
	if !build {
		return nil, nil
	}
	return out, nil
}

// pbString is a protobuf string as Go text. proto3 requires UTF-8; an
// invalid byte becomes U+FFFD, as encoding/json does for the same bytes in
// an OTLP/JSON body, rather than refusing the whole request.
func pbString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var s strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			s.WriteString("\uFFFD")
		} else {
			s.Write(b[:n])
		}
		b = b[n:]
	}
	return s.String()
}
