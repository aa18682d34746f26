// agree_test.go: the conventions agree: one conversation sent in each convention and delivery maps to the same steps, messages and usage.

package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// agreeBase is the conversation every weather_* fixture sends (a system
// and a user message, a get_weather tool call and its result, the answer)
// in the current conventions' span attributes; agreeSkip are the variants
// that differ by design (what they test is the difference).
const agreeBase = "weather_genai_attrs"

var agreeSkip = map[string]string{
	"weather_genai_nocontent":         "content capture off",
	"weather_genai_nousage":           "no token usage",
	"weather_events_logs_nocontent":   "content capture off",
	"weather_openinference_nocontent": "content capture off",
	"weather_details_logs_usage":      "system instructions sent apart from the messages",
}

// essence is what a trace says whatever its convention: the steps (an
// llm_call's model, messages, completion and tokens; a tool_call's name,
// arguments and result), the user's message, the answer, the token total.
func essence(v map[string]any) map[string]any {
	var steps []any
	var walk func(list []any)
	walk = func(list []any) {
		for _, s := range list {
			st := s.(map[string]any)
			args, _ := st["args"].(map[string]any)
			res, _ := st["result"].(map[string]any)
			switch st["type"] {
			case "llm_call":
				steps = append(steps, map[string]any{"type": "llm_call", "model": args["model"],
					"in": essentialMessages(args["messages"]), "out": essentialMessages(res["messages"]),
					"completion": res["completion"], "input_tokens": res["input_tokens"], "output_tokens": res["output_tokens"]})
			case "tool_call":
				steps = append(steps, map[string]any{"type": "tool_call", "name": st["name"], "args": args, "result": res})
			case "agent_call":
				if sub, ok := st["sub_trace"].(map[string]any); ok {
					walk(sub["steps"].([]any))
				}
			}
		}
	}
	walk(v["steps"].([]any))
	meta := v["metadata"].(map[string]any)
	return map[string]any{"steps": steps, "input": v["input"], "answer": v["output"].(map[string]any)["message"], "total_tokens": meta["total_tokens"]}
}

// essentialMessages drops what a convention cannot carry: finish reasons
// (on the step already) and empty text parts (Vercel's ai.response.text of
// a call that only calls tools).
func essentialMessages(v any) []any {
	msgs, _ := v.([]any)
	var out []any
	for _, m := range msgs {
		mm := m.(map[string]any)
		var parts []any
		for _, p := range mm["parts"].([]any) {
			pm := p.(map[string]any)
			if pm["type"] == "text" && pm["content"] == "" {
				continue
			}
			parts = append(parts, pm)
		}
		out = append(out, map[string]any{"role": mm["role"], "parts": parts})
	}
	return out
}

func TestConventionsAgree(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "weather_*.input.jsonl"))
	mapped := map[string]map[string]any{}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".input.jsonl")
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		g := run(t, data, Limits{})
		if len(g.Traces) != 1 {
			t.Fatalf("%s: %d traces, want 1", name, len(g.Traces))
		}
		mapped[name] = essence(g.Traces[0].Value)
	}
	want, ok := mapped[agreeBase]
	if !ok || len(mapped) < 20 {
		t.Fatalf("%d weather fixtures, base %v", len(mapped), ok)
	}
	for name, got := range mapped {
		if agreeSkip[name] != "" || name == agreeBase {
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s does not say what %s says (-%s +%s):\n%s", name, agreeBase, agreeBase, name, diff)
		}
	}
}
