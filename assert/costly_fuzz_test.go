// costly_fuzz_test.go: fuzzing the spec decoding of layers 5–6 (no network: only compile, and the
// offline lexical model).

package assert

import (
	"context"
	"testing"

	"attest-engine/provider"
	"attest-engine/trace"
)

// FuzzCostlySpecs: any embedding or llm_judge spec either compiles or is a
// spec error, never a panic; a compiled lexical embedding evaluates offline.
func FuzzCostlySpecs(f *testing.F) {
	for _, s := range []string{
		`{"target":"output.message","reference":"Refund processed.","threshold":0.82}`,
		`{"target":"output.message","reference":"x","threshold":"dynamic","model":null,"soft":true}`,
		`{"target":"steps[?name=='lookup_order'].result","reference":"delivered","model":"lexical"}`,
		`{"rubric":"helpfulness","threshold":0.75,"model":"gpt-4.1"}`,
		`{"prompt":"Agent was asked {{input}} and said {{output}}. Score it.","threshold":0.8}`,
		`{"target":"output.message","criteria":"mentions the refund id","rubric":"default","threshold":0.8,"model":null,"soft":false}`,
		`{"rubric":"faithfulness","prompt":"both"}`,
		`{"threshold":1e400,"target":"$..x"}`,
	} {
		f.Add(s)
	}
	e, err := New(Config{Settings: provider.Settings{
		Embedding: provider.Config{Provider: "lexical"},
		Judge:     provider.Config{Provider: "openai", BaseURL: "http://127.0.0.1:1"}, // never called: compile only
		Getenv:    func(string) string { return "" },
	}})
	if err != nil {
		f.Fatal(err)
	}
	tr := map[string]any{"schema_version": 1, "trace_id": "t", "output": map[string]any{"message": "Your refund RFD-001 is processed."}}
	f.Fuzz(func(t *testing.T, specJSON string) {
		v, err := trace.Decode([]byte(specJSON))
		m, ok := v.(map[string]any)
		if err != nil || !ok {
			return
		}
		if _, err := compileJudge(e, spec(m)); err != nil {
			if _, isSpec := err.(*specError); !isSpec {
				t.Fatalf("judge spec %s: error %T %v, want a spec error", specJSON, err, err)
			}
		}
		chk, err := compileEmbedding(e, spec(m))
		if err != nil {
			if _, isSpec := err.(*specError); !isSpec {
				t.Fatalf("embedding spec %s: error %T %v, want a spec error", specJSON, err, err)
			}
			return
		}
		if model, _ := m["model"].(string); model == "lexical" || m["model"] == nil {
			o, err := chk.eval(context.Background(), testInput(tr))
			if err == nil && (o.score < 0 || o.score > 1) {
				t.Fatalf("lexical score %v outside 0..1", o.score)
			}
		}
	})
}
