package watch

import (
	"strings"
	"testing"

	"attest-engine/assert"
	"attest-engine/ingest"
)

// TestAbsence: a check whose input no producer sent is skipped with the
// conventions looked for; one whose input came is run. Missing token
// counts are treated as missing content is: skipped, not a hard_fail
// "metadata.total_tokens not found".
func TestAbsence(t *testing.T) {
	full := ingest.Trace{Format: ingest.FormatOTLP, ContentCaptured: true, TokensCaptured: true, CostCaptured: true, ToolsCaptured: true}
	toolsOnly := ingest.Trace{Format: ingest.FormatOTLP, ToolsCaptured: true}
	order := assert.Assertion{Type: "trace", Spec: map[string]any{"check": "contains_in_order", "tools": []any{"a"}}}
	allTools := assert.Assertion{Type: "trace_tree", Spec: map[string]any{"check": "all_tools_called", "tools": []any{"a"}}}
	bare := ingest.Trace{Format: ingest.FormatOTLP}
	attest := ingest.Trace{Format: ingest.FormatAttest}
	tokens := assert.Assertion{Type: "constraint", Spec: map[string]any{"field": "metadata.total_tokens", "operator": "lte", "value": 10}}
	cost := assert.Assertion{Type: "constraint", Spec: map[string]any{"field": "metadata.cost_usd", "operator": "lte", "value": 1}}
	latency := assert.Assertion{Type: "constraint", Spec: map[string]any{"field": "metadata.latency_ms", "operator": "lte", "value": 1}}
	aggTokens := assert.Assertion{Type: "trace_tree", Spec: map[string]any{"check": "aggregate_tokens", "operator": "lt", "value": 5}}
	aggCost := assert.Assertion{Type: "trace_tree", Spec: map[string]any{"check": "aggregate_cost", "operator": "lt", "value": 5}}
	content := assert.Assertion{Type: "content", Spec: map[string]any{"target": "output.message", "check": "contains", "value": "x"}}
	for _, c := range []struct {
		name string
		tr   ingest.Trace
		a    assert.Assertion
		want string // a word of the reason, "" for run
	}{
		{"tokens absent", bare, tokens, "llm.token_count"},
		{"tokens aggregate absent", bare, aggTokens, "ai.usage"},
		{"cost: judged where it is derived (cost.go)", bare, cost, ""},
		{"content absent", bare, content, "gen_ai.choice"},
		{"latency always there", bare, latency, ""},
		{"tokens present", full, tokens, ""},
		{"cost aggregate present", full, aggCost, ""},
		{"content present", full, content, ""},
		{"attest trace judged as it is", attest, tokens, ""},
		{"tools absent", bare, order, "ai.toolCall"},
		{"tools absent, tree", bare, allTools, "execute_tool"},
		{"tool spans without content", toolsOnly, order, ""},
		{"tools present", full, allTools, ""},
	} {
		got := absence(c.tr, c.a)
		if (got == "") != (c.want == "") || !strings.Contains(got, c.want) || (got != "" && !strings.HasPrefix(got, "skipped: ")) {
			t.Errorf("%s: reason %q, want one naming %q", c.name, got, c.want)
		}
	}
}
