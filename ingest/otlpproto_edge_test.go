// otlpproto_edge_test.go: ParseOTLPProto on broken wire input, its bounds, FuzzParseOTLPProto and the benchmarks against ParseOTLP.

package ingest

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"attest-engine/trace"

	"github.com/google/go-cmp/cmp"
)

// wrap nests payload as field num of each enclosing message, innermost
// first: wrap(span, 2, 2, 1) is a request holding one span.
func wrap(payload []byte, nums ...int) []byte {
	for _, n := range nums {
		var m pbMsg
		m.bytes(n, false, payload)
		payload = m.fields[0].b
	}
	return payload
}

// protoSpan is a request of one span made of these encoded fields.
func protoSpan(fields ...[]byte) []byte { return wrap(slices.Concat(fields...), 2, 2, 1) }

func enc(f func(m *pbMsg)) []byte {
	var m pbMsg
	f(&m)
	return (&pbEncoder{}).finish(m)
}

var (
	goodTrace = enc(func(m *pbMsg) { m.bytes(1, true, id("5b8efff798038103d269b633813fc60c")) })
	goodSpan  = enc(func(m *pbMsg) { m.bytes(2, true, id("eee19b7ec3c1b174")) })
)

// attr is a span attribute (field 9) with this AnyValue encoding.
func attr(key string, anyValue []byte) []byte {
	kv := enc(func(m *pbMsg) { m.bytes(1, true, []byte(key)); m.bytes(2, true, anyValue) })
	return enc(func(m *pbMsg) { m.bytes(9, false, kv) })
}

// TestParseOTLPProtoErrors: broken framing, wrong wire types, bad ids and
// nesting are errors that say what is wrong, never a panic.
func TestParseOTLPProtoErrors(t *testing.T) {
	deep := []byte("\x0a\x01x")
	for range 1000 {
		deep = wrap(wrap(deep, 1), 5) // AnyValue{arrayValue{values: [deep]}}
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated tag", []byte{0x80}, "field tag: truncated varint"},
		{"truncated length", []byte{0x0a, 0x80}, "field 1 length: truncated varint"},
		{"varint past 64 bits", []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, "field 1: varint longer than 64 bits"},
		{"eleven-byte varint", append([]byte{0xf8}, slices.Repeat([]byte{0xff}, 10)...), "field tag: varint longer than 64 bits"},
		{"length past the end", []byte{0x0a, 0x05, 0x00}, "field 1: length 5 past the end (1 bytes left)"},
		{"huge length", []byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, "past the end"},
		{"field number 0", []byte{0x02, 0x00}, "field number 0 out of range"},
		{"field number past 2^29-1", pbVarint(nil, 1<<32|2), "field number 536870912 out of range"},
		{"group start", []byte{0x0b}, "field 1: groups (wire types 3 and 4) are not supported"},
		{"group end", []byte{0x0c}, "groups"},
		{"wire type 6", []byte{0x0e}, "field 1: invalid wire type 6"},
		{"truncated fixed64", protoSpan(goodTrace, goodSpan, []byte{0x39, 1, 2, 3}), "OTLP/protobuf span 0: field 7: fixed64 needs 8 bytes, 3 left"},
		{"truncated fixed32", protoSpan(goodTrace, goodSpan, []byte{0x85, 0x01, 1}), "field 16: fixed32 needs 4 bytes, 1 left"},
		{"resourceSpans as varint", []byte{0x08, 0x01}, "OTLP/protobuf: field 1 (resourceSpans) is varint, want length-delimited"},
		{"span name as varint", protoSpan(goodTrace, goodSpan, []byte{0x28, 0x01}), "OTLP/protobuf span 0: field 5 (name) is varint, want length-delimited"},
		{"start time as varint", protoSpan(goodTrace, goodSpan, []byte{0x38, 0x01}), "field 7 (startTimeUnixNano) is varint, want fixed64"},
		{"status code as fixed32", protoSpan(goodTrace, goodSpan, wrap([]byte{0x1d, 2, 0, 0, 0}, 15)), "span 0: status: field 3 (code) is fixed32, want varint"},
		{"resource attributes as fixed64", wrap(wrap(enc(func(m *pbMsg) { m.fixed64(1, 1) }), 1), 1), "OTLP/protobuf: resource: field 1 (attributes) is fixed64, want length-delimited"},
		{"int value as bytes", protoSpan(goodTrace, goodSpan, attr("n", []byte{0x1a, 0x00})), `attribute "n": field 3 (intValue) is length-delimited, want varint`},
		{"truncated event", protoSpan(goodTrace, goodSpan, wrap([]byte{0x12, 0x09, 'x'}, 11)), "span 0: event: field 2: length 9 past the end (1 bytes left)"},
		{"15-byte trace id", protoSpan(wrap(make([]byte, 15), 1), goodSpan), "OTLP/protobuf span 0: traceId is 15 bytes, not 16"},
		{"hex text as trace id", protoSpan(wrap([]byte("5b8efff798038103d269b633813fc60c"), 1), goodSpan), "traceId is 32 bytes, not 16"},
		{"missing span id", protoSpan(goodTrace), "spanId is 0 bytes, not 8"},
		{"9-byte span id", protoSpan(goodTrace, wrap([]byte("123456789"), 2)), "spanId is 9 bytes, not 8"},
		{"7-byte parent id", protoSpan(goodTrace, goodSpan, wrap([]byte("1234567"), 4)), "parentSpanId is 7 bytes, not 8"},
		{"zero trace id", protoSpan(wrap(make([]byte, 16), 1), goodSpan), "traceId is all zeros (an invalid id)"},
		{"zero parent id", protoSpan(goodTrace, goodSpan, wrap(make([]byte, 8), 4)), "parentSpanId is all zeros (an invalid id)"},
		{"depth 33", []byte(mustProto(t, nestedRequest(maxValueDepth+1, false))), `attribute "k": attribute value nested too deeply`},
		{"depth 1001", protoSpan(goodTrace, goodSpan, attr("deep", deep)), `attribute "deep": attribute value nested too deeply`},
		{"second span", wrap(slices.Concat(wrap(slices.Concat(goodTrace, goodSpan), 2), wrap(goodTrace, 2)), 2, 1), "OTLP/protobuf span 1: spanId is 0 bytes, not 8"},
	} {
		spans, err := ParseOTLPProto(c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %d spans, error %v; want an error with %q", c.name, len(spans), err, c.want)
		}
	}
}

func mustProto(t testing.TB, js string) string {
	pb, err := (&pbEncoder{}).request([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return string(pb)
}

// TestProtoSpanBounds: docs/security.md "Bounds": past 1,024 attributes per span or
// event the rest are dropped, the first ones kept; at the bound nothing is.
// Every event is read and a span keeps those the mapping reads, as from
// JSON: one that sets a deprecated attribute after 100,000 others is kept.
func TestProtoSpanBounds(t *testing.T) {
	kv := func(key, val string) []byte {
		return enc(func(m *pbMsg) {
			m.bytes(1, true, []byte(key))
			if val != "" {
				m.bytes(2, true, enc(func(m *pbMsg) { m.bytes(1, true, []byte(val)) }))
			}
		})
	}
	attrs := func(num, n int, last string) []byte {
		var m pbMsg
		for i := range n {
			if i == n-1 && last != "" {
				m.bytes(num, false, kv(last, "v"))
				continue
			}
			m.bytes(num, false, kv(strconv.Itoa(i), ""))
		}
		return (&pbEncoder{}).finish(m)
	}
	for _, n := range []int{1, 1024, 100000} {
		event := enc(func(m *pbMsg) { m.bytes(2, true, []byte("e")) })
		late := enc(func(m *pbMsg) { m.bytes(2, true, []byte("late")); m.bytes(3, false, kv("gen_ai.prompt", "hi")) })
		events := slices.Concat(slices.Repeat(wrap(event, 11), n), wrap(late, 11))
		spans, err := ParseOTLPProto(protoSpan(goodTrace, goodSpan, events))
		if err != nil || len(spans[0].Events) != 1 || spans[0].Events[0].Attrs["gen_ai.prompt"] != "hi" {
			t.Fatalf("%d events then one with gen_ai.prompt: error %v, kept %+v", n, err, spans[0].Events)
		}
	}
	for _, n := range []int{maxProtoAttrs, maxProtoAttrs + 1, 5000} {
		spans, err := ParseOTLPProto(protoSpan(goodTrace, goodSpan, attrs(9, n, ""), wrap(attrs(3, n, "gen_ai.system"), 11)))
		if err != nil {
			t.Fatal(err)
		}
		sp := spans[0]
		if len(sp.Attrs) != min(n, maxProtoAttrs) || (len(sp.Events) == 1) != (n <= maxProtoAttrs) {
			t.Errorf("%d attributes: kept %d on the span, events %+v (the event's last attribute is kept only within the bound)", n, len(sp.Attrs), sp.Events)
		}
		if _, ok := sp.Attrs[strconv.Itoa(maxProtoAttrs-1)]; !ok {
			t.Errorf("%d attributes: the %dth is not kept", n, maxProtoAttrs)
		}
	}
}

var lowerHex = regexp.MustCompile(`^[0-9a-f]+$`)

// FuzzParseOTLPProto: any input is an error or spans with valid ids and
// sizes, within the bounds, that write back to protobuf and read again to
// the same spans, and that assemble into traces passing the engine's own
// validation.
func FuzzParseOTLPProto(f *testing.F) {
	reqs := jsonRequests(f)
	for _, name := range slices.Sorted(maps.Keys(reqs)) {
		for _, e := range []*pbEncoder{{}, {unknown: true, scalarsLast: true, split: true}} {
			pb, err := e.request(reqs[name])
			if err != nil {
				f.Fatal(err)
			}
			f.Add(pb)
		}
	}
	f.Add([]byte{0x0a, 0x80})
	f.Add(protoSpan(goodTrace, goodSpan, wrap([]byte{0x1d, 2, 0, 0, 0}, 15)))
	f.Fuzz(func(t *testing.T, data []byte) {
		spans, err := ParseOTLPProto(data)
		checkChunked(t, data, spans, err, ParseOTLPProtoChunks)
		if err != nil {
			return
		}
		for i, sp := range spans {
			if len(sp.TraceID) != 32 || !lowerHex.MatchString(sp.TraceID) || len(sp.SpanID) != 16 || !lowerHex.MatchString(sp.SpanID) ||
				(sp.ParentID != "" && (len(sp.ParentID) != 16 || !lowerHex.MatchString(sp.ParentID))) {
				t.Fatalf("span %d: ids %q %q %q", i, sp.TraceID, sp.SpanID, sp.ParentID)
			}
			if sp.Size > heldSpan+20*len(data) || len(sp.Events) > maxKeptEvents || len(sp.Attrs) > maxProtoAttrs {
				t.Fatalf("span %d: Size %d of %d bytes, %d events, %d attributes", i, sp.Size, len(data), len(sp.Events), len(sp.Attrs))
			}
			if _, err := json.Marshal(sp.Attrs); err != nil {
				t.Fatalf("span %d: attributes outside the value model: %v", i, err)
			}
		}
		again, err := ParseOTLPProto(encodeSpans(spans))
		if err != nil {
			t.Fatalf("spans written back do not read: %v", err)
		}
		if diff := cmp.Diff(withoutSize(spans), withoutSize(again)); diff != "" {
			t.Fatalf("spans written back read differently:\n%s", diff)
		}
		feed := NewFeed(Limits{OpenTraces: 4, SpansPerTrace: 64}, nil, nil)
		feed.Add(Item{Spans: spans})
		feed.Flush()
		traces := take(feed)
		for _, tr := range traces {
			if _, verr := trace.Validate(tr.Value, trace.Options{Strict: true}); verr != nil && encodedSize(t, tr.Value) <= trace.MaxTraceBytes {
				t.Fatalf("trace %s fails validation: %v", tr.ID, verr)
			}
		}
	})
}

// encodeSpans writes spans back as a request, one resource per span.
func encodeSpans(spans []Span) []byte {
	e := &pbEncoder{}
	var req pbMsg
	for _, sp := range spans {
		var m pbMsg
		idb := func(s string) []byte { b, _ := hex.DecodeString(s); return b }
		m.bytes(1, true, idb(sp.TraceID))
		m.bytes(2, true, idb(sp.SpanID))
		if sp.ParentID != "" {
			m.bytes(4, true, idb(sp.ParentID))
		}
		m.bytes(5, true, []byte(sp.Name))
		m.fixed64(7, uint64(sp.Start))
		m.fixed64(8, uint64(sp.End))
		writeAttrs(&m, 9, sp.Attrs)
		for _, ev := range sp.Events {
			var em pbMsg
			if ev.Time != 0 {
				em.fixed64(1, uint64(ev.Time))
			}
			em.bytes(2, true, []byte(ev.Name))
			writeAttrs(&em, 3, ev.Attrs)
			m.bytes(11, false, e.finish(em))
		}
		var st pbMsg
		st.bytes(2, true, []byte(sp.Status))
		st.varint(3, map[bool]uint64{false: 1, true: 2}[sp.Error])
		m.bytes(15, true, e.finish(st))
		var rs pbMsg
		if sp.Service != "" {
			var res pbMsg
			writeAttrs(&res, 1, map[string]any{"service.name": sp.Service})
			rs.bytes(1, true, e.finish(res))
		}
		rs.bytes(2, false, wrap(e.finish(m), 2))
		req.bytes(1, false, e.finish(rs))
	}
	return e.finish(req)
}

func writeAttrs(m *pbMsg, num int, attrs map[string]any) {
	for _, k := range slices.Sorted(maps.Keys(attrs)) {
		var kv pbMsg
		kv.bytes(1, true, []byte(k))
		kv.bytes(2, true, encodeValue(attrs[k]))
		m.bytes(num, false, (&pbEncoder{}).finish(kv))
	}
}

// encodeValue writes a value of the engine's model as an AnyValue: a
// number as an int when its text is an int64's, else as a double.
func encodeValue(v any) []byte {
	var m pbMsg
	switch v := v.(type) {
	case string:
		m.bytes(1, true, []byte(v))
	case bool:
		m.varint(2, map[bool]uint64{false: 0, true: 1}[v])
	case json.Number:
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil && strconv.FormatInt(n, 10) == string(v) {
			m.varint(3, uint64(n))
		} else {
			f, _ := strconv.ParseFloat(string(v), 64)
			m.fixed64(4, math.Float64bits(f))
		}
	case []any:
		var a pbMsg
		for _, x := range v {
			a.bytes(1, false, encodeValue(x))
		}
		m.bytes(5, true, (&pbEncoder{}).finish(a))
	case map[string]any:
		var kv pbMsg
		writeAttrs(&kv, 1, v)
		m.bytes(6, true, (&pbEncoder{}).finish(kv))
	case nil:
	default:
		panic(fmt.Sprintf("%T outside the value model", v))
	}
	return (&pbEncoder{}).finish(m)
}

// BenchmarkParseOTLPProto and BenchmarkParseOTLPJSON read the same requests
// (testdata/ingest/basic, both lines: a five-span trace) in each encoding.
func BenchmarkParseOTLPProto(b *testing.B) { benchParse(b, true) }
func BenchmarkParseOTLPJSON(b *testing.B)  { benchParse(b, false) }

func benchParse(b *testing.B, proto bool) {
	data, err := os.ReadFile(dir + "/basic.input.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	var reqs [][]byte
	size := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		req := []byte(line)
		if proto {
			req = []byte(mustProto(b, line))
		}
		reqs = append(reqs, req)
		size += len(req)
	}
	parse := ParseOTLP
	if proto {
		parse = ParseOTLPProto
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	defer reportCPU(b, benchCPU())
	for b.Loop() {
		n := 0
		for _, req := range reqs {
			spans, err := parse(req)
			if err != nil {
				b.Fatal(err)
			}
			n += len(spans)
		}
		if n != 5 {
			b.Fatal(n)
		}
	}
}

// TestProtoMergedParts: a value sent in many parts (a KeyValue's value, an
// AnyValue's arrayValue) is merged part after part, as protobuf merges
// messages; the last member set wins. (The parts are read in place, one
// after the other: a copy of everything so far per part would make this
// input take minutes; TestProtoMergeInflation bounds the memory.)
func TestProtoMergedParts(t *testing.T) {
	const n = 100000
	var kv pbMsg
	kv.bytes(1, true, []byte("parts"))
	for i := range n {
		kv.bytes(2, true, enc(func(m *pbMsg) { m.varint(2, uint64(i%2)) })) // boolValue
	}
	var arr pbMsg
	for i := range n {
		arr.bytes(5, true, wrap(enc(func(m *pbMsg) { m.varint(3, uint64(i)) }), 1)) // arrayValue{values: [intValue i]}
	}
	spans, err := ParseOTLPProto(protoSpan(goodTrace, goodSpan,
		wrap((&pbEncoder{}).finish(kv), 9), attr("array", (&pbEncoder{}).finish(arr))))
	if err != nil {
		t.Fatal(err)
	}
	if v := spans[0].Attrs["parts"]; v != true {
		t.Errorf("value in %d parts: %v, want the last, true", n, v)
	}
	a, _ := spans[0].Attrs["array"].([]any)
	if len(a) != n || a[0] != json.Number("0") || a[n-1] != json.Number(strconv.Itoa(n-1)) {
		t.Errorf("arrayValue in %d parts: %d elements", n, len(a))
	}
}
