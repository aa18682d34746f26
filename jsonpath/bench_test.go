// bench_test.go: benchmarks for Parse and for Select on the spec batch's trace and on a 10,000-step trace.

package jsonpath

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"attest-engine/tape"
)

// benchPaths are the paths of the spec batch's assertions (§2.2) and the
// tool call count of §4.
var benchPaths = []string{
	"steps[?name=='lookup_order'].result",
	"metadata.cost_usd",
	"output.message",
	"steps[?type=='tool_call'].length",
}

// specTrace is the trace of the spec batch (testdata/session.jsonl, line 2:
// params.trace), as the engine reads it: in place, from the request line.
func specTrace(tb testing.TB) tape.Value {
	tb.Helper()
	b, err := os.ReadFile("../testdata/session.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) < 2 {
		tb.Fatal("testdata/session.jsonl: no batch on line 2")
	}
	d, err := tape.Parse(lines[1])
	if err != nil {
		tb.Fatal(err)
	}
	tr := d.Root().Get("params").Get("trace")
	if tr.Kind() != tape.Object {
		tb.Fatal("testdata/session.jsonl: line 2 has no params.trace")
	}
	return tr
}

func BenchmarkParse(b *testing.B) {
	exprs := append(benchPaths, "$.steps[?@.name == 'researcher'].sub_trace.output['message']")
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range exprs {
			if _, err := Parse(e); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// bigTrace is a trace at the spec's step limit (§7: 10,000 steps), in which
// one step in fifty is lookup_order and two in three are tool calls. It is
// JSON text: decode it, or parse it with tape.
func bigTrace(b *testing.B) []byte {
	steps := make([]any, 10000)
	for i := range steps {
		typ, name := "tool_call", "search"
		switch {
		case i%3 == 0:
			typ, name = "llm_call", "reasoning"
		case i%50 == 1:
			name = "lookup_order"
		}
		steps[i] = map[string]any{
			"type": typ, "name": name,
			"args":     map[string]any{"order_id": fmt.Sprintf("ORD-%d", i)},
			"result":   map[string]any{"status": "delivered", "amount": 89.99},
			"metadata": map[string]any{"duration_ms": i},
		}
	}
	raw, err := json.Marshal(map[string]any{
		"schema_version": 1, "trace_id": "trc_big", "steps": steps,
		"output":   map[string]any{"message": "done"},
		"metadata": map[string]any{"total_tokens": 1350, "cost_usd": 0.0067},
	})
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

func BenchmarkSelect(b *testing.B) {
	docs := []struct {
		name string
		doc  any
	}{
		{"refund", specTrace(b).Any()},
		{"10k-steps", decode(b, bigTrace(b))},
	}
	for _, d := range docs {
		for _, expr := range benchPaths {
			p := MustParse(expr)
			b.Run(d.name+"/"+expr, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if len(p.Select(d.doc)) == 0 {
						b.Fatal("no match")
					}
				}
			})
		}
	}
}

// BenchmarkSelectValue is BenchmarkSelect on the same documents read in
// place: the trace of the request line, and the 10,000-step trace parsed
// with tape. Locations are not printed (Location prints one when asked).
func BenchmarkSelectValue(b *testing.B) {
	big, err := tape.Parse(bigTrace(b))
	if err != nil {
		b.Fatal(err)
	}
	docs := []struct {
		name string
		doc  tape.Value
	}{
		{"refund", specTrace(b)},
		{"10k-steps", big.Root()},
	}
	for _, d := range docs {
		for _, expr := range benchPaths {
			p := MustParse(expr)
			b.Run(d.name+"/"+expr, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if len(p.SelectValue(d.doc)) == 0 {
						b.Fatal("no match")
					}
				}
			})
		}
	}
}
