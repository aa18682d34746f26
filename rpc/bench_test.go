// bench_test.go: one evaluate_batch request in process (decode, validate, evaluate, encode), apart from pipes.
//
//	go test -run '^$' -bench . -benchmem -count 6 ./rpc | tee new.txt   (then benchstat old.txt new.txt)

package rpc

import (
	"context"
	"os"
	"strings"
	"testing"

	"attest-engine/assert"
)

// BenchmarkBatchLine: the spec's refund batch, one whole line at a time:
// "fresh" decodes every part, "repeated" parses as the read loop does, with
// the assertions memo (memo.go) knowing them after the first.
func BenchmarkBatchLine(b *testing.B) {
	b.Run("fresh", func(b *testing.B) { benchBatchLine(b, false) })
	b.Run("repeated", func(b *testing.B) { benchBatchLine(b, true) })
}

func benchBatchLine(b *testing.B, memo bool) {
	data, err := os.ReadFile("../testdata/session.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	line := []byte(strings.Split(string(data), "\n")[1])
	eng, err := assert.New(assert.Config{})
	if err != nil {
		b.Fatal(err)
	}
	s := New(Options{Engine: eng})
	s.state = stateReady
	ctx := context.Background()
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	parse := parse
	if memo {
		parse = s.parseBatch
	}
	for b.Loop() {
		req, perr := parse(line)
		if perr != nil {
			b.Fatal(perr)
		}
		if _, err := s.evaluate(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
