// bench_test.go: diff of two runs of many results (ATTEST_DIFF_BENCH_PAIRS, default 100,000; the goal is
// stated for 10⁶).

package rundiff

import (
	"bufio"
	"fmt"
	"math"
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

// signFlipPerPair is the sign-flip test's draws one random bit per pair, one direction a call: the
// baseline BenchmarkSignFlip measures signFlip against.
func signFlipPerPair(diffs []float64, rng *rand.Rand) float64 {
	abs := make([]float64, 0, len(diffs))
	obs, total := 0.0, 0.0
	for _, d := range diffs {
		if d != 0 {
			abs = append(abs, math.Abs(d))
			obs += d
			total += math.Abs(d)
		}
	}
	tol := 1e-9 * (1 + total)
	count := 0
	for range signFlipResamples {
		s := 0.0
		word, left := uint64(0), 0
		for _, a := range abs {
			if left == 0 {
				word, left = rng.Uint64(), 64
			}
			if word&1 != 0 {
				s -= a
			} else {
				s += a
			}
			word >>= 1
			left--
		}
		if s <= obs+tol {
			count++
		}
	}
	return float64(1+count) / float64(1+signFlipResamples)
}

// BenchmarkSignFlip: one graded key's test both ways on 20,000 pairs of a judge's rubric scores (0, ¼, …,
// 1) with no change, by per-pair draws of the whole count (two calls: the baseline) and by signFlip
// (grouped draws, stopping early); and by signFlip on a key whose scores dropped (its p-value toward a
// drop is small, so that direction draws the whole count):
//
//	go test ./rundiff -run '^$' -bench SignFlip -benchtime 3x
func BenchmarkSignFlip(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	d := make([]float64, 20_000)
	dropped := make([]float64, len(d))
	for i := range d {
		d[i] = float64(rng.IntN(5)-rng.IntN(5)) / 4
		dropped[i] = d[i]
		if i%5 == 0 {
			dropped[i] = -0.25
		}
	}
	neg := make([]float64, len(d))
	for i, x := range d {
		neg[i] = -x
	}
	b.Run("per-pair", func(b *testing.B) {
		for b.Loop() {
			signFlipPerPair(d, rand.New(rand.NewPCG(1, 1)))
			signFlipPerPair(neg, rand.New(rand.NewPCG(2, 1)))
		}
	})
	b.Run("grouped", func(b *testing.B) {
		for b.Loop() {
			signFlip(d, rand.New(rand.NewPCG(1, 1)))
		}
	})
	b.Run("grouped-dropped", func(b *testing.B) {
		for b.Loop() {
			if down, _ := signFlip(dropped, rand.New(rand.NewPCG(1, 1))); down > 0.01 {
				b.Fatalf("p %g toward a drop of a fifth of the pairs by a quarter", down)
			}
		}
	})
}
