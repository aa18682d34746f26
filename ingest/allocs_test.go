// allocs_test.go: allocations of the protobuf path per request and per trace, held under fixed bounds.

package ingest

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
)

// TestProtoAllocs: decoding the basic trace's protobuf request, and
// assembling a request of 170 three-span traces (an exporter's batch of
// 512 spans), allocate at most what the bounds say. They are the figures
// of today's code with a little room: a change that allocates per span or
// per attribute again fails here (ids as three strings, a value boxed on
// every read, the span-id set made for every trace, a chunk grown span by
// span), not only in the benchmarks.
func TestProtoAllocs(t *testing.T) {
	body, err := os.ReadFile(dir + "/basic.input.2.pb")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseOTLPProto(body); err != nil {
		t.Fatal(err)
	}
	decode := testing.AllocsPerRun(50, func() { ParseOTLPProto(body) })

	var spans []Span
	for i := range 170 {
		spans = append(spans, threeSpans(i)...)
	}
	batch := encodeSpans(spans)
	if _, err := CheckOTLPProto(batch, DefaultChunk); err != nil {
		t.Fatal(err)
	}
	var asm *Assembler
	assemble := testing.AllocsPerRun(20, func() {
		asm = NewAssembler(Limits{})
		req, _ := CheckOTLPProto(batch, DefaultChunk)
		req.Each(func(sp []Span, _ bool) error { asm.Add(sp, 0); return nil })
	}) / 170
	t.Logf("decode %.0f allocations per request; check and assemble %.1f per trace", decode, assemble)
	if asm.Open() != 170 {
		t.Fatalf("%d traces open, want 170", asm.Open())
	}
	if decode > 24 {
		t.Errorf("decoding the request allocates %.0f times, want at most 24", decode)
	}
	if assemble > 17 {
		t.Errorf("checking and assembling allocates %.1f times per trace, want at most 17", assemble)
	}
}

// threeSpans is trace i as the throughput benchmark sends it: an agent,
// a model call and a tool call.
func threeSpans(i int) []Span {
	tid := hexID(uint64(i)*0x9e3779b97f4a7c15, uint64(i)+1)
	root := hexID(uint64(2*i + 1))
	t0 := int64(1763950000000000000) + int64(i)*1_000_000
	return []Span{
		{TraceID: tid, SpanID: hexID(uint64(2*i + 2)), ParentID: root, Name: "chat gpt-4.1", Start: t0 + 1e6, End: t0 + 2e6,
			Attrs: map[string]any{"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4.1",
				"gen_ai.usage.input_tokens": jsonInt(400), "gen_ai.usage.output_tokens": jsonInt(50)}},
		{TraceID: tid, SpanID: hexID(uint64(3*i + 7)), ParentID: root, Name: "execute_tool lookup_order", Start: t0 + 3e6, End: t0 + 4e6,
			Attrs: map[string]any{"gen_ai.tool.name": "lookup_order", "gen_ai.tool.call.arguments": `{"order_id":"ORD-1"}`}},
		{TraceID: tid, SpanID: root, Name: "invoke_agent refund", Start: t0, End: t0 + 5e6,
			Attrs: map[string]any{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "refund"}},
	}
}

// hexID is the words as 16 hex digits each: a span id of one, a trace id
// of two.
func hexID(words ...uint64) string {
	s := ""
	for _, w := range words {
		s += fmt.Sprintf("%016x", w)
	}
	return s
}

func jsonInt(n int) json.Number { return json.Number(strconv.Itoa(n)) }
