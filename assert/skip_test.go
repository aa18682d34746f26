// skip_test.go: skip_after_hard_fail, and what the idempotency record keeps of a skipped result.

package assert

import (
	"context"
	"strings"
	"testing"

	"attest-engine/provider"
)

// skipBatch is a batch of a layer-1 constraint that passes or hard-fails
// (by limit) and a costly assertion (an embedding on the offline lexical
// model), each with a request_id when ids is set.
func skipBatch(limit float64, ids bool) []Assertion {
	as := []Assertion{
		{ID: "c", Type: "constraint", Spec: map[string]any{"field": "metadata.cost_usd", "operator": "lte", "value": limit}},
		{ID: "e", Type: "embedding", Spec: map[string]any{"target": "output.message", "reference": "Your refund is processed.", "threshold": 0.1, "model": "lexical"}},
	}
	if ids {
		as[0].RequestID, as[1].RequestID = "req_c", "req_e"
	}
	return as
}

func skipEngine(t *testing.T, skip bool) *Engine {
	t.Helper()
	e, err := New(Config{SkipAfterHardFail: skip, Settings: provider.Settings{
		Embedding: provider.Config{Provider: "lexical"}, Getenv: func(string) string { return "" }}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

var skipTrace = map[string]any{"schema_version": 1, "trace_id": "trc_skip",
	"output":   map[string]any{"message": "Your refund is processed."},
	"metadata": map[string]any{"cost_usd": 0.5}}

// TestSkipAfterHardFail: with skip_after_hard_fail on, a hard failure in a
// cheaper layer skips the costly layers (a soft_fail marked skipped, naming
// the assertion that hard-failed); off, or with no hard failure, they run.
func TestSkipAfterHardFail(t *testing.T) {
	tests := []struct {
		name    string
		skip    bool
		limit   float64 // 0.1 hard-fails the constraint (cost 0.5), 1 passes it
		skipped bool
	}{
		{"on, a hard failure", true, 0.1, true},
		{"on, no hard failure", true, 1, false},
		{"off, a hard failure", false, 0.1, false},
	}
	for _, tc := range tests {
		rs, err := skipEngine(t, tc.skip).Evaluate(context.Background(), skipTrace, skipBatch(tc.limit, false))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if want := map[bool]Status{true: HardFail, false: Pass}[tc.limit < 0.5]; rs[0].Status != want {
			t.Fatalf("%s: the constraint is %s, want %s", tc.name, rs[0].Status, want)
		}
		e := rs[1]
		if e.Skipped != tc.skipped {
			t.Errorf("%s: the embedding's Skipped = %v, want %v (%+v)", tc.name, e.Skipped, tc.skipped, e)
		}
		if tc.skipped && (e.Status != SoftFail || e.Score != 0 || !strings.Contains(e.Explanation, "assertion 'c' hard-failed")) {
			t.Errorf("%s: a skipped result is a soft_fail scored 0 naming 'c'; got %+v", tc.name, e)
		}
		if !tc.skipped && (e.Status != Pass || strings.HasPrefix(e.Explanation, "Skipped")) {
			t.Errorf("%s: the embedding was not evaluated: %+v", tc.name, e)
		}
	}
}

// TestSkippedNotRecorded: a skipped result is not kept under its
// request_id (spec §2.2): retried in a batch without the hard-failing peer,
// the assertion is evaluated, not answered "Skipped: … assertion 'c'",
// which names an assertion that is not in the batch. The peer's own result
// is kept, and answered again.
func TestSkippedNotRecorded(t *testing.T) {
	e := skipEngine(t, true)
	first, err := e.Evaluate(context.Background(), skipTrace, skipBatch(0.1, true))
	if err != nil {
		t.Fatal(err)
	}
	if !first[1].Skipped {
		t.Fatalf("the first batch did not skip the embedding: %+v", first[1])
	}
	retry, err := e.Evaluate(context.Background(), skipTrace, skipBatch(0.1, true)[1:])
	if err != nil {
		t.Fatal(err)
	}
	if r := retry[0]; r.Skipped || r.Status != Pass || strings.Contains(r.Explanation, "'c'") {
		t.Errorf("the retried request_id was answered from a skipped record: %+v", r)
	}
	again, err := e.Evaluate(context.Background(), skipTrace, skipBatch(0.1, true)[:1])
	if err != nil {
		t.Fatal(err)
	}
	if want := first[0]; !again[0].Replayed || again[0].Status != want.Status || again[0].Explanation != want.Explanation {
		t.Errorf("the hard failure's record: %+v, want the first answer %+v replayed", again[0], want)
	}
}
