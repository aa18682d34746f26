// watch_cost_test.go: cost budgets on OTLP traces through the binary: the cost derived from token counts and the price table, or the assertion skipped saying why.

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// costSpan is one span of costLine: id, parent ("" for a root), operation
// and attributes (string or int values).
type costSpan struct {
	id, parent, op string
	attrs          map[string]any
}

// costLine is an OTLP/JSON export request holding one trace's spans.
func costLine(traceID string, spans ...costSpan) string {
	var ss []map[string]any
	for i, sp := range spans {
		attrs := []map[string]any{{"key": "gen_ai.operation.name", "value": map[string]any{"stringValue": sp.op}}}
		for k, v := range sp.attrs {
			val := map[string]any{"stringValue": v}
			if n, ok := v.(int); ok {
				val = map[string]any{"intValue": fmt.Sprint(n)}
			}
			attrs = append(attrs, map[string]any{"key": k, "value": val})
		}
		s := map[string]any{"traceId": traceID, "spanId": sp.id, "name": sp.op, "kind": 1,
			"startTimeUnixNano": fmt.Sprint(1763950000000000000 + i*1000000), "endTimeUnixNano": fmt.Sprint(1763950001000000000 - i*1000000),
			"attributes": attrs}
		if sp.parent != "" {
			s["parentSpanId"] = sp.parent
		}
		ss = append(ss, s)
	}
	b, _ := json.Marshal(map[string]any{"resourceSpans": []any{map[string]any{"scopeSpans": []any{map[string]any{"spans": ss}}}}})
	return string(b)
}

func costAgentSpan(id, parent, name string) costSpan {
	return costSpan{id, parent, "invoke_agent", map[string]any{"gen_ai.agent.name": name}}
}

func costChatSpan(id, parent, model string, in, out int) costSpan {
	a := map[string]any{"gen_ai.response.model": model}
	if in >= 0 {
		a["gen_ai.usage.input_tokens"] = in
	}
	if out >= 0 {
		a["gen_ai.usage.output_tokens"] = out
	}
	return costSpan{id, parent, "chat", a}
}

// TestWatchCostFromTokens: an OTLP trace's cost is derived from its spans'
// model and gen_ai.usage token counts at the price table, and the cost
// assertions say so; when it cannot be derived they are skipped with the
// reason, never failed as "not found". An Attest trace without
// metadata.cost_usd keeps evaluate_batch's verdict (spec §2.2 knows only
// pass, soft_fail and hard_fail).
func TestWatchCostFromTokens(t *testing.T) {
	bin := buildEngine(t)
	dir := t.TempDir()
	suite := filepath.Join(dir, "suite.json")
	os.WriteFile(suite, []byte(`{"assertions": [
		{"name": "cost", "type": "constraint", "spec": {"field": "metadata.cost_usd", "operator": "lte", "value": 0.01}},
		{"name": "tree-cost", "type": "trace_tree", "spec": {"check": "aggregate_cost", "operator": "lte", "value": 0.01}},
		{"name": "fast", "type": "constraint", "spec": {"field": "metadata.latency_ms", "operator": "lte", "value": 5000}}
	]}`), 0o644)
	const t1, t2, t3, t4, t5, t6 = "00000000000000000000000000000001", "00000000000000000000000000000002", "00000000000000000000000000000003",
		"00000000000000000000000000000004", "00000000000000000000000000000005", "00000000000000000000000000000006"
	input := strings.Join([]string{
		// 1,200 input and 300 output tokens of gpt-4o-mini ($0.15 / $0.60 per million): $0.00036
		costLine(t1, costAgentSpan("a000000000000001", "", "support"), costChatSpan("c000000000000001", "a000000000000001", "gpt-4o-mini-2024-07-18", 1200, 300)),
		costLine(t2, costAgentSpan("a000000000000002", "", "support"), costChatSpan("c000000000000002", "a000000000000002", "llama3.2", 10, 10)),
		costLine(t3, costAgentSpan("a000000000000003", "", "support"), costChatSpan("c000000000000003", "a000000000000003", "gpt-4.1", 10, -1)),
		costLine(t4, costAgentSpan("a000000000000004", "", "support")),
		// root: gpt-4o 100 + 100 tokens ($2.50 / $10): $0.00125; its sub-agent:
		// claude-sonnet-4-5 1,000 + 1,000 ($3 / $15): $0.018; the tree $0.01925
		costLine(t5, costAgentSpan("a000000000000005", "", "triage"), costChatSpan("c000000000000005", "a000000000000005", "gpt-4o", 100, 100),
			costAgentSpan("b000000000000005", "a000000000000005", "billing"), costChatSpan("d000000000000005", "b000000000000005", "claude-sonnet-4-5-20250929", 1000, 1000)),
		`{"schema_version": 1, "trace_id": "` + t6 + `", "output": {"message": "hi"}, "metadata": {"latency_ms": 10}}`,
	}, "\n") + "\n"
	in := filepath.Join(dir, "traces.jsonl")
	os.WriteFile(in, []byte(input), 0o644)

	type line struct {
		TraceID     string `json:"trace_id"`
		Assertion   string `json:"assertion"`
		Status      string `json:"status"`
		Explanation string `json:"explanation"`
	}
	run := func(args ...string) map[string]line {
		out, code := runWatch(t, bin, nil, nil, append([]string{"--suite", suite, "--in", in, "--deterministic"}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		got := map[string]line{}
		for _, l := range lines(out) {
			var r line
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			got[r.TraceID[len(r.TraceID)-1:]+" "+r.Assertion] = r
		}
		return got
	}
	builtin := " (metadata.cost_usd derived from the spans' gen_ai.usage token counts at the engine's built-in list prices (2025-11))"
	want := map[string][2]string{ // status, explanation
		"1 cost":      {"pass", "metadata.cost_usd = 0.00036, constraint lte 0.01 satisfied." + builtin},
		"1 tree-cost": {"pass", "Aggregate metadata.cost_usd over 1 of 1 traces = 0.00036, constraint lte 0.01 satisfied." + builtin},
		"2 cost":      {"skipped", `skipped: the trace's cost could not be derived from its spans: llm_call step 0 "chat" of trace ` + t2 + `: model "llama3.2" is not in the price table (add it to the config's prices)`},
		"3 cost":      {"skipped", `skipped: the trace's cost could not be derived from its spans: llm_call step 0 "chat" of trace ` + t3 + `: no output tokens count (gen_ai.usage.output_tokens)`},
		"4 tree-cost": {"skipped", "skipped: the trace's cost could not be derived from its spans: its spans hold no model call (chat, generate_content or text_completion span)"},
		"5 cost":      {"pass", "metadata.cost_usd = 0.00125, constraint lte 0.01 satisfied." + builtin},
		"5 tree-cost": {"hard_fail", "Aggregate metadata.cost_usd over 2 of 2 traces = 0.01925, constraint lte 0.01 violated." + builtin},
		"6 cost":      {"hard_fail", "metadata.cost_usd not found in trace: constraint lte 0.01 cannot be satisfied."},
		"4 fast":      {"pass", "metadata.latency_ms = 1000, constraint lte 5000 satisfied."},
	}
	got := run()
	for k, w := range want {
		if d := cmp.Diff(w, [2]string{got[k].Status, got[k].Explanation}); d != "" {
			t.Errorf("trace %s (-want +got):\n%s", k, d)
		}
	}
	if len(got) != 6*3 {
		t.Errorf("%d result lines, want 18", len(got))
	}

	// The config's prices price what the built-in table does not.
	cfg := filepath.Join(dir, "config.json")
	os.WriteFile(cfg, []byte(`{"prices": {"llama3.2": {"input": 100, "output": 200}}}`), 0o644)
	got = run("--config", cfg)
	if w := [2]string{"pass", "metadata.cost_usd = 0.003, constraint lte 0.01 satisfied. (metadata.cost_usd derived from the spans' gen_ai.usage token counts at the config's prices)"}; got["2 cost"].Status != w[0] || got["2 cost"].Explanation != w[1] {
		t.Errorf("with the config's prices: %+v, want %q", got["2 cost"], w)
	}
}
