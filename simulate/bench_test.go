package simulate

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkCall is one mock_tool_call of the stream (match, occurrence, four fault decisions) without the
// wire: new args every call, so every decision is computed.
func BenchmarkCall(b *testing.B) { benchCall(b, false) }

// BenchmarkCallWire is BenchmarkCall with the answer written as the protocol sends it (canonical JSON of
// Wire), as the server's mock_tool_call does.
func BenchmarkCallWire(b *testing.B) { benchCall(b, true) }

// benchCall makes b.N calls of the stream table with args of 4,096 kinds, and writes each answer's Wire
// when wire is set.
func benchCall(b *testing.B, wire bool) {
	tb := table(b, streamTable)
	sim := New()
	args := make([]any, 4096)
	for i := range args {
		args[i] = decode(b, fmt.Sprintf(`{"q": "query %d", "n": %d}`, i, i%3))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if i%(MaxCalls-1) == 0 {
			sim = New() // a scenario keeps at most MaxCalls calls
		}
		a, err := sim.Call(tb, Call{ScenarioID: "bench", Seed: "1", Tool: "lookup_order", Args: args[i%len(args)]})
		if err != nil {
			b.Fatal(err)
		}
		if wire {
			if _, err := Canonical(a.Wire()); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkDigest is one decision: SHA-256 over the length-prefixed fields.
func BenchmarkDigest(b *testing.B) {
	k := Key{Seed: "20260401", ScenarioID: "refund-broken-kettle", Tool: "process_refund", Args: []byte(`{"amount":89.99,"order_id":"ORD-123"}`), Occurrence: 1, Attempt: 1, FaultID: "flaky-refund"}
	b.ReportAllocs()
	for b.Loop() {
		_ = k.Digest()
	}
}

// BenchmarkSubsetScalarOverContainer is a subset pattern whose scalar member meets a large array in the
// args, under MaxMocks rules: none matches, and none writes the array out.
func BenchmarkSubsetScalarOverContainer(b *testing.B) {
	rules := make([]string, MaxMocks)
	for i := range rules {
		rules[i] = fmt.Sprintf(`{"id": "m%d", "tool": "t", "match": {"subset": {"a": %d}}, "result": {}}`, i, i)
	}
	tb := table(b, `{"mocks": [`+strings.Join(rules, ",")+`]}`)
	items := make([]any, 100_000)
	for i := range items {
		items[i] = float64(i)
	}
	args := map[string]any{"a": items}
	canon, err := Canonical(args)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if m, _ := tb.find("t", args, canon); m != nil {
			b.Fatal("matched")
		}
	}
}
