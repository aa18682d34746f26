package watch

import (
	"encoding/json"
	"testing"

	"attest-engine/assert"
	"attest-engine/provider"
	"attest-engine/trace"
)

// fuzzPrices: a small table for FuzzDeriveCost (gpt-x priced, free-out an
// input-only price).
func fuzzPrices(model string) (provider.Price, string, bool, bool) {
	switch model {
	case "gpt-x":
		return provider.Price{Input: 1, Output: 2}, model, false, true
	case "free-out":
		return provider.Price{Input: 1}, model, true, true
	}
	return provider.Price{}, "", false, false
}

// FuzzDeriveCost: any trace-shaped JSON (what ingest's mapping builds from
// untrusted spans) is priced without a panic, and the outcome holds its
// rule: derived exactly when every trace of the tree then carries a
// non-negative metadata.cost_usd, with a reason whenever it is not.
func FuzzDeriveCost(f *testing.F) {
	for _, s := range []string{
		`{"trace_id":"t","steps":[{"type":"llm_call","name":"chat","args":{"model":"gpt-x"},"result":{"input_tokens":10,"output_tokens":5}}]}`,
		`{"trace_id":"t","steps":[{"type":"llm_call","args":{"model":"free-out"},"result":{"input_tokens":10}},{"type":"agent_call","sub_trace":{"trace_id":"s","steps":[]}}]}`,
		`{"trace_id":"t","steps":[{"type":"llm_call","args":{"model":"nope"},"result":{"input_tokens":1e300,"output_tokens":-1}}]}`,
		`{"trace_id":"t","steps":[{"type":"agent_call","sub_trace":{"steps":[{"type":"llm_call","args":{"model":"gpt-x"},"result":{"input_tokens":9007199254740992,"output_tokens":0.5}}]}}],"metadata":null}`,
		`{"steps":"x","metadata":{"cost_usd":"a"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := trace.Decode(data)
		if err != nil {
			return
		}
		root, ok := v.(map[string]any)
		if !ok {
			return
		}
		ci := deriveCost(root, fuzzPrices)
		if ci.derived == (ci.why != "") {
			t.Fatalf("derived %v with reason %q", ci.derived, ci.why)
		}
		if !ci.derived {
			return
		}
		var check func(t2 map[string]any, depth int)
		check = func(t2 map[string]any, depth int) {
			meta, _ := t2["metadata"].(map[string]any)
			c, ok := meta["cost_usd"].(json.Number)
			if f, err := c.Float64(); !ok || err != nil || f < 0 {
				t.Fatalf("derived, but a trace has cost_usd %v", meta["cost_usd"])
			}
			if depth >= 64 {
				return
			}
			steps, _ := t2["steps"].([]any)
			for _, s := range steps {
				if st, _ := s.(map[string]any); st != nil {
					if sub, _ := st["sub_trace"].(map[string]any); sub != nil {
						check(sub, depth+1)
					}
				}
			}
		}
		check(root, 0)
	})
}

// benchTrace is an OTLP-built trace as ingest maps it: an agent, three
// model calls and two tool calls.
const benchTrace = `{"schema_version":1,"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","agent_id":"support","steps":[
{"type":"llm_call","name":"chat","args":{"operation":"chat","model":"gpt-4o-mini-2024-07-18"},"result":{"input_tokens":1200,"output_tokens":300,"tokens":1500},"metadata":{"span_id":"a1","duration_ms":800}},
{"type":"tool_call","name":"lookup_order","args":{"order_id":"ORD-1"},"result":{"status":"delivered"},"metadata":{"span_id":"a2","duration_ms":40}},
{"type":"llm_call","name":"chat","args":{"operation":"chat","model":"gpt-4o-mini-2024-07-18"},"result":{"input_tokens":1600,"output_tokens":120,"tokens":1720},"metadata":{"span_id":"a3","duration_ms":600}},
{"type":"tool_call","name":"process_refund","args":{"order_id":"ORD-1"},"result":{"refund_id":"R-1"},"metadata":{"span_id":"a4","duration_ms":90}},
{"type":"llm_call","name":"chat","args":{"operation":"chat","model":"gpt-4o-mini-2024-07-18"},"result":{"input_tokens":1900,"output_tokens":80,"tokens":1980},"metadata":{"span_id":"a5","duration_ms":500}}],
"output":{"status":"ok","message":"Your refund R-1 is on its way."},"metadata":{"latency_ms":2100,"total_tokens":5200,"model":"gpt-4o-mini-2024-07-18"}}`

// BenchmarkDeriveCost beside BenchmarkEncodeTrace, the step every OTLP
// trace takes anyway (its map read as a tape), on the same trace: what
// deriving the cost adds per trace.
func BenchmarkDeriveCost(b *testing.B) {
	price := testPrices(b)
	v, _ := trace.Decode([]byte(benchTrace))
	for b.Loop() { // deriving again overwrites what it set: the same work each time
		if ci := deriveCost(v.(map[string]any), price); !ci.derived {
			b.Fatal(ci.why)
		}
	}
}

func BenchmarkEncodeTrace(b *testing.B) {
	v, _ := trace.Decode([]byte(benchTrace))
	for b.Loop() {
		doc, err := assert.Encode(v.(map[string]any))
		if err != nil {
			b.Fatal(err)
		}
		doc.Release()
	}
}

func testPrices(tb testing.TB) priceFunc {
	c, err := provider.New(provider.Settings{Getenv: func(string) string { return "" }})
	if err != nil {
		tb.Fatal(err)
	}
	return c.PriceOf
}
