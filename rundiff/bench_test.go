// bench_test.go: diff of two runs of many results (ATTEST_DIFF_BENCH_PAIRS, default 100,000; the goal is
// stated for 10⁶).

package rundiff

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

// writeBenchRun writes n result lines over 50 assertion keys, pass with probability pass.
func writeBenchRun(b *testing.B, path string, n int, pass float64, seed uint64) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(seed, 3))
	for i := range n {
		status, score := "hard_fail", 0.0
		if rng.Float64() < pass {
			status, score = "pass", 1
		}
		fmt.Fprintf(w, `{"trace_id":"trc_%07d","assertion":"assertion-%02d","type":"trace","status":"%s","score":%g,"explanation":"x","result_id":"%016x"}`+"\n",
			i/50, i%50, status, score, rng.Uint64())
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
}

// BenchmarkCompare: pairs and decides two runs of ATTEST_DIFF_BENCH_PAIRS results each:
//
//	ATTEST_DIFF_BENCH_PAIRS=1000000 go test ./rundiff -run '^$' -bench Compare -benchtime 3x
func BenchmarkCompare(b *testing.B) {
	n := 100_000
	if v := os.Getenv("ATTEST_DIFF_BENCH_PAIRS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("ATTEST_DIFF_BENCH_PAIRS=%q", v)
		}
	}
	dir := b.TempDir()
	base, head := filepath.Join(dir, "base.jsonl"), filepath.Join(dir, "head.jsonl")
	writeBenchRun(b, base, n, 0.9, 1)
	writeBenchRun(b, head, n, 0.88, 2)
	b.ResetTimer()
	var ms runtime.MemStats
	for b.Loop() {
		r, err := Compare(base, head, Options{Alpha: 0.05, Detectable: 0.1, Seed: 1})
		if err != nil || r.Pairs != n {
			b.Fatalf("%v, %d pairs", err, r.Pairs)
		}
	}
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heap-MiB")
}
