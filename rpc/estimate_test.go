// estimate_test.go: estimate_batch, a session's dry run: the paid calls and largest cost of a batch, no call made.

package rpc

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"attest-engine/assert"
	"attest-engine/provider"
)

func TestEstimateBatch(t *testing.T) {
	// Offline, with a judge endpoint that does not exist: a call would fail.
	eng, err := assert.New(assert.Config{Settings: provider.Settings{Offline: true,
		Judge: provider.Config{Provider: "openai", BaseURL: "http://127.0.0.1:9/v1", Model: "gpt-4.1-mini"}}})
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{Engine: eng})
	s.state = stateReady
	trace := `{"schema_version":1,"trace_id":"t1","input":{"user_message":"Refund?"},"output":{"message":"Your refund is on its way."}}`
	lines := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"estimate_batch","params":{"trace":` + trace + `,"assertions":[` +
			`{"assertion_id":"c","type":"content","spec":{"target":"output.message","check":"contains","value":"refund"}},` +
			`{"assertion_id":"j","type":"llm_judge","spec":{"rubric":"helpfulness"}},` +
			`{"assertion_id":"s","type":"llm_judge","spec":{"rubric":"tone","consistency":{"mode":"sequential","max":5}}}]}}`,
		`{"jsonrpc":"2.0","id":2,"method":"estimate_batch","params":{"trace":{"schema_version":1},"assertions":[]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"estimate_batch","params":{"trace":` + trace + `,"assertions":[{"assertion_id":"x","type":"llm_judge","spec":{"rubric":"nope"}}]}}`,
		// A model with no price: its calls are counted apart, never as $0.
		`{"jsonrpc":"2.0","id":4,"method":"estimate_batch","params":{"trace":` + trace + `,"assertions":[{"assertion_id":"u","type":"llm_judge","spec":{"rubric":"tone","model":"my-local-model","consistency":{"mode":"confirm_on_fail"}}}]}}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := s.Serve(context.Background(), strings.NewReader(lines), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"estimates":[{"assertion_id":"j","provider":"openai","model":"gpt-4.1-mini","paid_calls_min":1,"paid_calls_max":1,"cached":0,"max_cost_usd":`,
		`{"assertion_id":"s","provider":"openai","model":"gpt-4.1-mini","paid_calls_min":2,"paid_calls_max":5,"cached":0,"max_cost_usd":`,
		`"paid_calls_min":3,"paid_calls_max":6,"max_cost_usd":`,
		`"id":2,"error":{"code":1001`,
		`"id":3,"error":{"code":1002`,
		`{"jsonrpc":"2.0","id":4,"result":{"estimates":[{"assertion_id":"u","provider":"openai","model":"my-local-model","paid_calls_min":1,"paid_calls_max":3,"cached":0,"max_cost_usd":0.0,"unpriced_calls":3}],"paid_calls_min":1,"paid_calls_max":3,"max_cost_usd":0.0,"unpriced_calls":3}}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("answers lack %s:\n%s", want, got)
		}
	}
}
