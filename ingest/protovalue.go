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

// parts reads an AnyValue sent in parts, the payloads of a KeyValue's
// field 2 one after the other, as the one message protobuf merges them
// into; one sent whole is its only part. Nothing is copied: a copy per
// merge, at every level of nesting, took the body's length once per level.
// Each part is read whole, as protobuf parsers read each (a field that
// runs past its part is truncated), and the KeyValue's framing is checked
// before (readKeyValue).
type parts struct {
	kv  fields // the KeyValue's fields not yet read
	cur fields // the part being read
}

func (p *parts) more() bool { return p.cur.more() || p.advance() }

// advance moves to the next part that is not empty.
func (p *parts) advance() bool {
	for !p.cur.more() {
		if !p.kv.more() {
			return false
		}
		if f, _ := p.kv.nextIn(keyValueSchema); f.num == 2 {
			p.cur = fields{b: f.b}
		}
	}
	return true
}

func (p *parts) nextIn(s schema) (field, error) { return p.cur.nextIn(s) }

// msg reads a message's fields: one sent whole (msg{cur: fields{b: b}}),
// or the last member of an AnyValue when it is a message (an ArrayValue or
// a KeyValueList) sent in parts: the payloads of field num from the first
// of its last run of occurrences on (value says which), their framing in
// the AnyValue checked before. A concrete type, not an interface, so that
// reading one allocates nothing.
type msg struct {
	val parts // the AnyValue's fields from the run on
	num uint32
	cur fields
}

func (r *msg) more() bool { return r.cur.more() || r.advance() }

// advance moves to the next part that is not empty.
func (r *msg) advance() bool {
	for !r.cur.more() {
		if !r.val.more() {
			return false
		}
		if f, _ := r.val.nextIn(anyValueSchema); f.num == r.num {
			r.cur = fields{b: f.b}
		}
	}
	return true
}

func (r *msg) nextIn(s schema) (field, error) { return r.cur.nextIn(s) }

// count is the number of occurrences of field num in what r reads.
func count(r msg, s schema, num uint32) (int, error) {
	n := 0
	for r.more() {
		f, err := r.nextIn(s)
		if err != nil {
			return 0, err
		}
		if f.num == num {
			n++
		}
	}
	return n, nil
}

// readKeyValue reads a KeyValue: its key, and its value as the parts it
// was sent in, from the first (a value sent more than once is merged, as
// protobuf merges messages).
func readKeyValue(b []byte) (key []byte, val parts, err error) {
	seen := false
	r := fields{b: b}
	for r.more() {
		f, err := r.nextIn(keyValueSchema)
		if err != nil {
			return nil, parts{}, err
		}
		switch {
		case f.num == 1:
			key = f.b
		case f.num == 2 && !seen:
			val, seen = parts{kv: r, cur: fields{b: f.b}}, true
		}
	}
	return key, val, nil
}

// attrMapProto reads the KeyValues of field num of what r reads (n of
// them, counted by the caller) into a map, a repeated key keeping its last
// value, as attrMap does for OTLP/JSON; past maxProtoAttrs they are
// dropped. With build false the values are only checked, and the map is
// nil.
func attrMapProto(r msg, num uint32, s schema, n, depth int, build bool) (map[string]any, error) {
	var m map[string]any
	if build && n > 0 {
		m = make(map[string]any, min(n, maxProtoAttrs))
	}
	read := 0
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
			return nil, fmt.Errorf("attribute %s: %w", clipped(strconv.Quote(pbString(key))), err)
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
// wins, and a message member sent several times in a row is merged (msg).
// Nesting past maxValueDepth is errDepth, so the recursion is bounded.
func value(v parts, depth int, build bool) (any, error) {
	if depth > maxValueDepth {
		return nil, errDepth
	}
	var last field
	var from parts // where the last member's run of occurrences starts
	r := v
	for r.more() {
		at := r
		f, err := r.nextIn(anyValueSchema)
		if err != nil {
			return nil, err
		}
		if f.num < 1 || f.num > 7 {
			continue
		}
		if f.num != last.num || (f.num != 5 && f.num != 6) {
			from = at
		}
		last = f
	}
	if !build && last.num != 5 && last.num != 6 {
		return nil, nil // a scalar: nothing nested to check
	}
	switch last.num {
	case 1:
		if utf8.Valid(last.b) {
			return internValue(last.b), nil
		}
		return pbString(last.b), nil
	case 2:
		return last.u != 0, nil
	case 3:
		var buf [20]byte
		return internNumber(strconv.AppendInt(buf[:0], int64(last.u), 10)), nil
	case 4:
		f := math.Float64frombits(last.u)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, nil
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case 5:
		return arrayValue(msg{val: from, num: 5}, depth, build)
	case 6:
		list := msg{val: from, num: 6}
		n, err := count(list, listSchema, 1)
		if err != nil {
			return nil, err
		}
		m, err := attrMapProto(list, 1, listSchema, n, depth, build)
		if m == nil && err == nil && build {
			m = map[string]any{}
		}
		return m, err
	case 7:
		return base64.StdEncoding.EncodeToString(last.b), nil
	}
	return nil, nil
}

func arrayValue(list msg, depth int, build bool) (any, error) {
	n, err := count(list, listSchema, 1)
	if err != nil {
		return nil, err
	}
	var out []any
	if build {
		out = make([]any, 0, n)
	}
	for list.more() {
		f, _ := list.nextIn(listSchema) // read whole above
		if f.num != 1 {
			continue
		}
		x, err := value(parts{cur: fields{b: f.b}}, depth+1, build)
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
		return intern(b)
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
