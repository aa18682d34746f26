// bench_test.go: one evaluate_batch request in process (decode, validate, evaluate, encode), apart from pipes.
//
//	go test -run '^$' -bench . -benchmem -count 6 ./rpc | tee new.txt   (then benchstat old.txt new.txt)

package rpc

import (
	"bytes"
	"context"
	"fmt"
	"testing"
)

// BenchmarkBatchLine: the spec's refund batch, one whole line at a time:
// "fresh" decodes every part, "repeated" parses as the read loop does, with
// the assertions memo (memo.go) knowing them after the first.
func BenchmarkBatchLine(b *testing.B) {
	b.Run("fresh", func(b *testing.B) { benchBatchLine(b, false, false) })
	b.Run("repeated", func(b *testing.B) { benchBatchLine(b, true, false) })
	b.Run("new-traces", func(b *testing.B) { benchBatchLine(b, true, true) })
}

// benchBatchLine: with memo, lines are parsed as the read loop does; with
// newTraces, 64 lines cycle whose traces differ (their trace_id), so no
// request_id is answered from the idempotency record.
func benchBatchLine(b *testing.B, memo, newTraces bool) {
	line := []byte(specBatchLine(b))
	lines := [][]byte{line}
	if newTraces {
		lines = lines[:0]
		for i := range 64 {
			lines = append(lines, bytes.Replace(line, []byte(`"trace_id":"trc_abc123"`), fmt.Appendf(nil, `"trace_id":"trc_%03d"`, i), 1))
		}
	}
	s := newReadyServer(b)
	ctx := context.Background()
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	parse := parse
	if memo {
		parse = s.parseBatch
	}
	i := 0
	for b.Loop() {
		line := lines[i%len(lines)]
		i++
		req, perr := parse(line)
		if perr != nil {
			b.Fatal(perr)
		}
		if _, err := s.evaluate(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
