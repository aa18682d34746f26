// protoenc_test.go: a test-only OTLP protobuf encoder: OTLP/JSON requests turned into binary, with wire-level variations.

package ingest

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// pbEncoder writes the binary protobuf form of an OTLP/JSON request,
// written by hand from opentelemetry-proto's field numbers, so that the
// decoder is checked against an independent reading of the schema. Its
// options vary what a conforming parser must read the same way.
type pbEncoder struct {
	unknown     bool // unknown fields of every wire type at both ends of every message
	scalarsLast bool // singular fields after the repeated ones (fields come in any order)
	split       bool // singular fields sent twice (the last wins), messages in two parts (merged)
	spanSizes   []int
}

// pbField is one encoded field: tag and value.
type pbField struct {
	b        []byte
	singular bool
}

type pbMsg struct{ fields []pbField }

func pbVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func pbTag(num int, typ wireType) []byte { return pbVarint(nil, uint64(num)<<3|uint64(typ)) }

func (m *pbMsg) add(singular bool, b []byte) { m.fields = append(m.fields, pbField{b, singular}) }

func (m *pbMsg) bytes(num int, singular bool, p []byte) {
	m.add(singular, append(pbVarint(pbTag(num, wireBytes), uint64(len(p))), p...))
}

func (m *pbMsg) varint(num int, v uint64) { m.add(true, pbVarint(pbTag(num, wireVarint), v)) }

func (m *pbMsg) fixed64(num int, v uint64) {
	b := pbTag(num, wireFixed64)
	for i := range 8 {
		b = append(b, byte(v>>(8*i)))
	}
	m.add(true, b)
}

func (m *pbMsg) fixed32(num int, v uint32) {
	b := pbTag(num, wireFixed32)
	for i := range 4 {
		b = append(b, byte(v>>(8*i)))
	}
	m.add(true, b)
}

// unknownFields are fields no OTLP message defines, one of each wire type.
func unknownFields() []byte {
	var m pbMsg
	m.varint(1001, 1<<63)
	m.fixed64(1002, 7)
	m.bytes(1003, true, []byte("\xff\x00not a message"))
	m.fixed32(1004, 9)
	m.bytes(536870911, true, nil) // the largest field number
	var b []byte
	for _, f := range m.fields {
		b = append(b, f.b...)
	}
	return b
}

func (e *pbEncoder) finish(m pbMsg) []byte {
	var b []byte
	if e.unknown {
		b = append(b, unknownFields()...)
	}
	order := m.fields
	if e.scalarsLast {
		order = nil
		for _, last := range []bool{false, true} {
			for _, f := range m.fields {
				if f.singular == last {
					order = append(order, f)
				}
			}
		}
	}
	for _, f := range order {
		b = append(b, f.b...)
	}
	if e.unknown {
		b = append(b, unknownFields()...)
	}
	return b
}

// request encodes one OTLP/JSON ExportTraceServiceRequest line.
func (e *pbEncoder) request(line []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var req map[string]any
	if err := d.Decode(&req); err != nil {
		return nil, err
	}
	var m pbMsg
	for _, rs := range jlist(req["resourceSpans"]) {
		m.bytes(1, false, e.resourceSpans(jobj(rs)))
	}
	return e.finish(m), nil
}

func jlist(v any) []any                    { l, _ := v.([]any); return l }
func jobj(v any) map[string]any            { o, _ := v.(map[string]any); return o }
func jstr(v any) string                    { s, _ := v.(string); return s }
func jhas(o map[string]any, k string) bool { _, ok := o[k]; return ok }

func (e *pbEncoder) resourceSpans(rs map[string]any) []byte {
	var m pbMsg
	if res := jobj(rs["resource"]); res != nil {
		var r pbMsg
		for _, kv := range jlist(res["attributes"]) {
			r.bytes(1, false, e.keyValue(jobj(kv)))
		}
		r.varint(2, 3) // droppedAttributesCount
		m.bytes(1, true, e.finish(r))
	}
	for _, ss := range jlist(rs["scopeSpans"]) {
		var s pbMsg
		s.bytes(1, true, []byte("\x0a\x05scope")) // InstrumentationScope{name}
		for _, sp := range jlist(jobj(ss)["spans"]) {
			b := e.span(jobj(sp))
			e.spanSizes = append(e.spanSizes, len(b))
			s.bytes(2, false, b)
		}
		s.bytes(3, true, []byte("https://opentelemetry.io/schemas/1.30.0"))
		m.bytes(2, false, e.finish(s))
	}
	return e.finish(m)
}

// id is an OTLP/JSON id (hex, or base64 as some exporters send) as bytes.
func id(s string) []byte {
	if b, err := hex.DecodeString(s); err == nil {
		return b
	}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(strings.TrimRight(s, "=")); err == nil {
			return b
		}
	}
	return []byte(s)
}

func uintOf(v any) uint64 {
	s := strings.Trim(fmt.Sprint(v), `"`)
	n, _ := strconv.ParseUint(s, 10, 64)
	return n
}

func (e *pbEncoder) span(sp map[string]any) []byte {
	var m pbMsg
	if e.split { // a wrong id first: the last one sent wins
		m.bytes(1, true, []byte{1, 2, 3})
		m.bytes(5, true, []byte("decoy"))
	}
	if jhas(sp, "traceId") {
		m.bytes(1, true, id(jstr(sp["traceId"])))
	}
	if jhas(sp, "spanId") {
		m.bytes(2, true, id(jstr(sp["spanId"])))
	}
	m.bytes(3, true, []byte("vendor=x"))
	if p := jstr(sp["parentSpanId"]); p != "" {
		m.bytes(4, true, id(p))
	}
	if jhas(sp, "name") || e.split { // with split, an empty name overrides the decoy
		m.bytes(5, true, []byte(jstr(sp["name"])))
	}
	m.varint(6, uintOf(sp["kind"]))
	m.fixed64(7, uintOf(sp["startTimeUnixNano"]))
	m.fixed64(8, uintOf(sp["endTimeUnixNano"]))
	for _, kv := range jlist(sp["attributes"]) {
		m.bytes(9, false, e.keyValue(jobj(kv)))
	}
	m.varint(10, 0)
	for _, ev := range jlist(sp["events"]) {
		ev := jobj(ev)
		var em pbMsg
		em.fixed64(1, uintOf(ev["timeUnixNano"]))
		if jhas(ev, "name") {
			em.bytes(2, true, []byte(jstr(ev["name"])))
		}
		for _, kv := range jlist(ev["attributes"]) {
			em.bytes(3, false, e.keyValue(jobj(kv)))
		}
		em.varint(4, 1)
		m.bytes(11, false, e.finish(em))
	}
	m.varint(12, 2)
	var link pbMsg // a link: read past, not kept
	link.bytes(1, true, id("5b8efff798038103d269b633813fc60c"))
	link.bytes(2, true, id("eee19b7ec3c1b174"))
	link.fixed32(6, 1)
	m.bytes(13, false, e.finish(link))
	m.varint(14, 0)
	if st := jobj(sp["status"]); st != nil {
		code := uint64(0)
		switch c := strings.Trim(fmt.Sprint(st["code"]), `"`); c {
		case "STATUS_CODE_ERROR":
			code = 2
		case "STATUS_CODE_OK":
			code = 1
		default:
			code = uintOf(c)
		}
		var a, b pbMsg
		a.varint(3, code)
		if jhas(st, "message") {
			b.bytes(2, true, []byte(jstr(st["message"])))
		}
		if e.split { // status in two parts, merged by the reader
			m.bytes(15, true, e.finish(a))
			m.bytes(15, true, e.finish(b))
		} else {
			a.fields = append(a.fields, b.fields...)
			m.bytes(15, true, e.finish(a))
		}
	}
	m.fixed32(16, 0x101)
	return e.finish(m)
}

func (e *pbEncoder) keyValue(kv map[string]any) []byte {
	var m pbMsg
	m.bytes(1, true, []byte(jstr(kv["key"])))
	if v, ok := kv["value"]; ok {
		if e.split && len(jobj(v)) > 0 { // the value in two parts: a decoy member, then the real one, which wins
			m.bytes(2, true, []byte{0x10, 0x01}) // boolValue true
		}
		m.bytes(2, true, e.anyValue(jobj(v)))
	}
	return e.finish(m)
}

func (e *pbEncoder) anyValue(v map[string]any) []byte {
	var m pbMsg
	switch {
	case jhas(v, "stringValue"):
		m.bytes(1, true, []byte(jstr(v["stringValue"])))
	case jhas(v, "boolValue"):
		b, _ := v["boolValue"].(bool)
		m.varint(2, map[bool]uint64{false: 0, true: 1}[b])
	case jhas(v, "intValue"):
		n, _ := strconv.ParseInt(strings.Trim(fmt.Sprint(v["intValue"]), `"`), 10, 64)
		m.varint(3, uint64(n))
	case jhas(v, "doubleValue"):
		var f float64
		switch s := strings.Trim(fmt.Sprint(v["doubleValue"]), `"`); s {
		case "NaN":
			f = math.NaN()
		case "Infinity":
			f = math.Inf(1)
		case "-Infinity":
			f = math.Inf(-1)
		default:
			f, _ = strconv.ParseFloat(s, 64)
		}
		m.fixed64(4, math.Float64bits(f))
	case jhas(v, "arrayValue"):
		var parts [2]pbMsg
		vals := jlist(jobj(v["arrayValue"])["values"])
		for i, x := range vals {
			parts[e.half(i, len(vals))].bytes(1, false, e.anyValue(jobj(x)))
		}
		e.member(&m, 5, parts)
	case jhas(v, "kvlistValue"):
		var parts [2]pbMsg
		vals := jlist(jobj(v["kvlistValue"])["values"])
		for i, x := range vals {
			parts[e.half(i, len(vals))].bytes(1, false, e.keyValue(jobj(x)))
		}
		e.member(&m, 6, parts)
	case jhas(v, "bytesValue"):
		b, err := base64.StdEncoding.DecodeString(jstr(v["bytesValue"]))
		if err != nil {
			panic(err)
		}
		m.bytes(7, true, b)
	}
	return e.finish(m)
}

// half is which part element i of n goes in: with split, the second half
// goes in a second message of the same member, which the reader merges.
func (e *pbEncoder) half(i, n int) int {
	if e.split && i >= n/2 && n > 1 {
		return 1
	}
	return 0
}

func (e *pbEncoder) member(m *pbMsg, num int, parts [2]pbMsg) {
	m.bytes(num, true, e.finish(parts[0]))
	if len(parts[1].fields) > 0 {
		m.bytes(num, true, e.finish(parts[1]))
	}
}
