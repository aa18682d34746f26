// watch_otlpgen_test.go: OTLP export requests made for the watch tests and benchmarks: binary protobuf and JSON bodies of generated traces.

package main

import (
	"encoding/binary"
	"fmt"
)

// pb appends protobuf fields (opentelemetry-proto's field numbers).
type pb []byte

func (b pb) varint(num int, v uint64) pb {
	b = binary.AppendUvarint(b, uint64(num)<<3)
	return binary.AppendUvarint(b, v)
}

func (b pb) bytes(num int, v []byte) pb {
	b = binary.AppendUvarint(b, uint64(num)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

func (b pb) fixed64(num int, v uint64) pb {
	b = binary.AppendUvarint(b, uint64(num)<<3|1)
	return binary.LittleEndian.AppendUint64(b, v)
}

// kv is a KeyValue with a string or an int value.
func kv(key string, v any) []byte {
	var val pb
	switch x := v.(type) {
	case string:
		val = val.bytes(1, []byte(x))
	case int:
		val = val.varint(3, uint64(x))
	default:
		panic(fmt.Sprintf("kv %T", v))
	}
	return pb(nil).bytes(1, []byte(key)).bytes(2, val)
}

// genSpan is one span to encode.
type genSpan struct {
	traceID        [16]byte
	spanID, parent uint64 // parent 0: a root span
	name           string
	start, end     int64
	attrs          [][]byte // kv
}

func (s genSpan) proto() []byte {
	var b pb
	b = b.bytes(1, s.traceID[:])
	b = b.bytes(2, binary.BigEndian.AppendUint64(nil, s.spanID))
	if s.parent != 0 {
		b = b.bytes(4, binary.BigEndian.AppendUint64(nil, s.parent))
	}
	b = b.bytes(5, []byte(s.name)).fixed64(7, uint64(s.start)).fixed64(8, uint64(s.end))
	for _, a := range s.attrs {
		b = b.bytes(9, a)
	}
	return b
}

// protoRequest is an ExportTraceServiceRequest of one resource (service
// "refund") and one scope holding the spans.
func protoRequest(spans []genSpan) []byte {
	var scope pb
	for _, s := range spans {
		scope = scope.bytes(2, s.proto())
	}
	res := pb(nil).bytes(1, kv("service.name", "refund"))
	rs := pb(nil).bytes(1, res).bytes(2, scope)
	return pb(nil).bytes(1, rs)
}

// traceIDOf is trace i's id: random-looking and never zero.
func traceIDOf(i int) (id [16]byte) {
	binary.BigEndian.PutUint64(id[:8], uint64(i)*0x9e3779b97f4a7c15)
	binary.BigEndian.PutUint64(id[8:], uint64(i)+1)
	return id
}

// oneSpanTraces are traces first … first+n−1, each a single root span: the
// smallest trace a body can carry, so the most traces per byte.
func oneSpanTraces(first, n int) []genSpan {
	out := make([]genSpan, n)
	t0 := int64(1763950000000000000)
	for k := range out {
		i := first + k
		out[k] = genSpan{traceID: traceIDOf(i), spanID: uint64(i) + 1, name: "a",
			start: t0 + int64(i), end: t0 + int64(i) + 1000}
	}
	return out
}

// refundSpans are trace i's three spans as writeTrace's OTLP/JSON line
// carries them (agent, model call, tool call).
func refundSpans(i int) []genSpan {
	tid := traceIDOf(i)
	t0 := int64(1763950000000000000) + int64(i)*1_000_000
	root := uint64(2*i + 1)
	return []genSpan{
		{traceID: tid, spanID: uint64(2*i + 2), parent: root, name: "chat gpt-4.1", start: t0 + 1e6, end: t0 + 2e6,
			attrs: [][]byte{kv("gen_ai.operation.name", "chat"), kv("gen_ai.request.model", "gpt-4.1"),
				kv("gen_ai.usage.input_tokens", 400), kv("gen_ai.usage.output_tokens", 50)}},
		{traceID: tid, spanID: uint64(3*i + 7), parent: root, name: "execute_tool lookup_order", start: t0 + 3e6, end: t0 + 4e6,
			attrs: [][]byte{kv("gen_ai.tool.name", "lookup_order"), kv("gen_ai.tool.call.arguments", fmt.Sprintf(`{"order_id":"ORD-%d"}`, i))}},
		{traceID: tid, spanID: root, name: "invoke_agent refund", start: t0, end: t0 + 5e6,
			attrs: [][]byte{kv("gen_ai.operation.name", "invoke_agent"), kv("gen_ai.agent.name", "refund"),
				kv("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"Your refund has been processed."}]}]`)}},
	}
}
