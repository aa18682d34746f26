// bench_test.go: one evaluate_batch request in process (decode, validate, evaluate, encode), apart from pipes.
//
//	go test -run '^$' -bench . -benchmem -count 6 ./rpc | tee new.txt   (then benchstat old.txt new.txt)

package rpc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// BenchmarkBatchLine: the spec's refund batch, one whole line at a time:
// "fresh" decodes every part, "repeated" parses as the read loop does, with
// the specs known by their text after the first (assert/spectext.go).
func BenchmarkBatchLine(b *testing.B) {
	b.Run("fresh", func(b *testing.B) { benchBatchLine(b, false, false) })
	b.Run("repeated", func(b *testing.B) { benchBatchLine(b, true, false) })
	b.Run("new-traces", func(b *testing.B) { benchBatchLine(b, true, true) })
	b.Run("sdk-workload", func(b *testing.B) { benchSDK(b, true) })
	b.Run("sdk-workload-read", func(b *testing.B) { benchSDK(b, false) })
}

// sdkWorkloadLines: the spec batch as the SDKs in use send it
// (../shared/sdk-compat.md): no request_id, fresh assertion ids (`assert_` +
// 8 hex digits) and a trace of its own (trace_id, amounts) in every line, so
// that no idempotency record answers any of them.
func sdkWorkloadLines(tb testing.TB, n int) [][]byte {
	spec := regexp.MustCompile(`"request_id":"[^"]*",`).ReplaceAllString(specBatchLine(tb), "")
	ids := regexp.MustCompile(`"assert_00\d"`)
	lines := make([][]byte, n)
	for i := range lines {
		h := sha256.Sum256(fmt.Appendf(nil, "sdk-workload %d", i))
		k := 0
		line := ids.ReplaceAllStringFunc(spec, func(string) string {
			k++
			return fmt.Sprintf(`"assert_%x"`, h[4*k:4*k+4])
		})
		line = strings.Replace(line, `"trace_id":"trc_abc123"`, fmt.Sprintf(`"trace_id":"trc_%x"`, h[:6]), 1)
		line = strings.ReplaceAll(line, "89.99", fmt.Sprintf("%d.%02d", 10+int(h[0]), int(h[1])%100))
		lines[i] = []byte(line)
	}
	if bytes.Equal(lines[0], lines[1]) || bytes.Contains(lines[0], []byte("request_id")) || bytes.Contains(lines[0], []byte("assert_001")) {
		tb.Fatal("testdata/session.jsonl: the spec batch changed shape")
	}
	return lines
}

// benchSDK: 4,096 distinct SDK-workload lines, parsed as the read loop does
// (the tape, the envelope, the assertions; only the specs are known, by
// their text, as in a suite), each request evaluated when evaluate is set
// (else the request reader's share of a batch alone), then released, as the
// server does once the answer is written.
func benchSDK(b *testing.B, evaluate bool) {
	lines := sdkWorkloadLines(b, 4096)
	s := newReadyServer(b)
	ctx := context.Background()
	b.SetBytes(int64(len(lines[0])))
	b.ReportAllocs()
	i := 0
	defer reportCPU(b, cpuTime())
	for b.Loop() {
		req, perr := s.parseBatch(lines[i%len(lines)])
		i++
		if perr != nil {
			b.Fatal(perr)
		}
		if evaluate {
			if _, err := s.evaluate(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
		req.release()
	}
}

// benchBatchLine: with known, lines are parsed as the read loop does; with
// newTraces, 64 lines cycle whose traces differ (their trace_id), so no
// request_id is answered from the idempotency record.
func benchBatchLine(b *testing.B, known, newTraces bool) {
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
	if known {
		parse = s.parseBatch
	}
	i := 0
	defer reportCPU(b, cpuTime())
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
		req.release() // as the server does once the answer is written
	}
}

// reportCPU reports the process's CPU time per operation since start
// (cpuTime): on a machine shared with other work it varies less than the
// time per operation, which counts the time other processes held the CPU.
func reportCPU(b *testing.B, start int64) {
	if end := cpuTime(); start > 0 && b.N > 0 {
		b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkTraceTree: validate_trace_tree on the multi-agent transcript's
// tree, decoded and answered as a worker does (parseBatch, then the method).
func BenchmarkTraceTree(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(transcriptDir, "multi_agent.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	if !bytes.Contains(line, []byte(`"method":"validate_trace_tree"`)) {
		b.Fatal("multi_agent.jsonl: the first line is no longer a validate_trace_tree request")
	}
	s := newReadyServer(b)
	ctx := context.Background()
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	defer reportCPU(b, cpuTime())
	for b.Loop() {
		req, perr := s.parseBatch(line)
		if perr != nil {
			b.Fatal(perr)
		}
		if _, err := s.validateTraceTree(ctx, req); err != nil {
			b.Fatal(err)
		}
		req.release()
	}
}
