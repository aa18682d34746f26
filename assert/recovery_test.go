// recovery_test.go: the cost of error_recovery on the longest trace the spec allows.

package assert

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkRecoveryWorstCase is 5,000 failed calls followed by 5,000 successful calls of another tool,
// with a within_steps that reaches the end and 1,000 alternatives none of which is called: every failure
// is unrecovered, the case where a forward search per failure walked every later call.
func BenchmarkRecoveryWorstCase(b *testing.B) {
	tr := loadTrace(b, "refund")
	steps := make([]any, 10000)
	for i := range steps {
		st := map[string]any{"type": "tool_call", "name": "other", "args": map[string]any{}, "result": map[string]any{"ok": true}}
		if i < 5000 {
			st["name"], st["result"] = "lookup", map[string]any{"error": "down"}
			st["args"] = map[string]any{"n": json.Number(fmt.Sprint(i))}
		}
		steps[i] = st
	}
	tr["steps"] = steps
	alts := make([]any, 1000)
	for i := range alts {
		alts[i] = fmt.Sprintf("alt_%d", i)
	}
	eng, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	as := []Assertion{{ID: "r", Type: "trace", Spec: map[string]any{"check": "error_recovery", "within_steps": json.Number("100000"), "alternatives": alts}}}
	for b.Loop() {
		rs, err := eng.Evaluate(context.Background(), tr, as)
		if err != nil || len(rs) != 1 || rs[0].Status == Pass {
			b.Fatalf("%v %+v", err, rs)
		}
	}
}
