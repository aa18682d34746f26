// alloc_test.go: per-batch allocations, recorded in a golden file; the test fails only when they grow far.

package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	if raceDetector {
		t.Skip("counts allocations, which vary under the race detector")
	}
	spec := specBatchLine(t)
	// 16 batches that differ in their trace only: each is decoded afresh,
	// and none is answered from the idempotency record.
	lines := make([][]byte, 16)
	for i := range lines {
		lines[i] = []byte(strings.Replace(spec, `"trace_id":"trc_abc123"`, fmt.Sprintf(`"trace_id":"trc_%03d"`, i), 1))
	}
	if bytes.Equal(lines[0], lines[1]) {
		t.Fatal("testdata/session.jsonl: no trace_id to change")
	}
	s := newReadyServer(t)
	ctx := context.Background()
	n := 0
	run := func(parse func([]byte) (*request, *Error), lines ...[]byte) func() {
		return func() {
			n++
			req, perr := parse(lines[n%len(lines)])
			if perr != nil {
				t.Fatal(perr)
			}
			if _, err := s.evaluate(ctx, req); err != nil {
				t.Fatal(err)
			}
			req.release() // as the server does once the answer is written
		}
	}
	got := map[string]float64{
		// Every part decoded plainly, through maps (parse, not the read
		// loop's parseBatch); the spec batch's assertions carry request_ids,
		// so after the first it is answered from the idempotency record.
		"spec_refund_batch": testing.AllocsPerRun(500, run(parse, []byte(spec))),
		// Batches as the read loop parses them: the specs are known by
		// their text (assert/spectext.go), each trace is new and decoded
		// afresh, so the request_ids find no record: evaluated.
		"spec_refund_batch_new_trace": testing.AllocsPerRun(500, run(s.parseBatch, lines...)),
		// The same batch again: specs known, trace decoded again,
		// answered from the idempotency record.
		"spec_refund_batch_repeated": testing.AllocsPerRun(500, run(s.parseBatch, []byte(spec))),
		// What the SDKs in use send (bench_test.go): no request_id, new
		// assertion ids and a new trace in every batch; no idempotency record
		// answers, so every batch is decoded (specs known by their text),
		// and evaluated with checks compiled before. 4,096 lines, as the
		// benchmark: none repeats within the 500 runs, so no id is found in
		// the interner of an earlier line.
		"sdk_workload": testing.AllocsPerRun(500, run(s.parseBatch, sdkWorkloadLines(t, 4096)...)),
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
