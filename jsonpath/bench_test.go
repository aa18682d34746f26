// bench_test.go: benchmarks for Parse and for Select on the refund trace and on a 10,000-step trace.

package jsonpath

import (
	"encoding/json"
	"fmt"
	"testing"
)

var benchPaths = []string{
	"output.message",
	"steps[?name=='lookup_order'].result",
	"steps[?type=='tool_call'].length",
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
// one step in fifty is lookup_order and two in three are tool calls.
func bigTrace(b *testing.B) any {
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
		"output": map[string]any{"message": "done"},
	})
	if err != nil {
		b.Fatal(err)
	}
	return decode(b, raw)
}

func BenchmarkSelect(b *testing.B) {
	docs := []struct {
		name string
		doc  any
	}{
		{"refund", loadDoc(b, refund)},
		{"10k-steps", bigTrace(b)},
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
