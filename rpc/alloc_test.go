// alloc_test.go: per-batch allocations, recorded in a golden file; the test fails only when they grow far.

package rpc

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// allocBudgetFactor: a regression is allocations beyond this multiple of the
// recorded figure. Far enough to ignore noise and toolchain drift, near
// enough to catch a hot path that starts copying the trace or re-encoding.
const allocBudgetFactor = 2

// TestBatchAllocations measures the allocations of one whole evaluate_batch
// request (decode, validate, evaluate, encode) for the spec's refund batch.
// Rewrite the record with `go test ./rpc -run TestBatchAllocations -update`.
func TestBatchAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation measurement skipped in -short mode")
	}
	line := []byte(specBatchLine(t))
	s := newReadyServer(t)
	ctx := context.Background()
	run := func(parse func([]byte) (*request, *Error)) func() {
		return func() {
			req, perr := parse(line)
			if perr != nil {
				t.Fatal(perr)
			}
			if _, err := s.evaluate(ctx, req); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := map[string]float64{
		// Every part decoded (a batch whose assertions are new).
		"spec_refund_batch": testing.AllocsPerRun(500, run(parse)),
		// The same batch again, as the read loop parses it: its assertions
		// come from the memo (memo.go), the trace is decoded afresh.
		"spec_refund_batch_repeated": testing.AllocsPerRun(500, run(s.parseBatch)),
	}

	golden := filepath.Join(transcriptDir, "allocs.golden.json")
	if *update {
		b, _ := json.MarshalIndent(got, "", "  ")
		if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to record)", err)
	}
	var want map[string]float64
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for name, n := range got {
		t.Logf("%s: %.0f allocations per batch (recorded %.0f)", name, n, want[name])
		if n > allocBudgetFactor*want[name] {
			t.Errorf("%s: %.0f allocations per batch, more than %d× the recorded %.0f", name, n, allocBudgetFactor, want[name])
		}
	}
}
