// large_test.go: the runs of the speed goal (10⁶ result pairs), written on demand for
// scripts/diff-bench.sh, which times the built binary on them; and the in-process benchmark on runs of the
// same shape.

package rundiff

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// largeShape is a pair of runs of the speed goal: cases × keys results each, as one suite of keys
// assertions run over cases traces (a JSON report holds one trace per line, with its keys results; watch's
// result lines one result a line). Of the keys, the first graded ones are judges with a score (rubric
// scores in tenths, every third one a score in thousandths), the rest pass/fail checks. Head differs from
// base by noise, a planted drop of 5 points in pass rate of the first pass/fail key and of 0.05 in mean
// score of the third graded key (in thousandths: its sign-flip test draws all 20,000 times, over
// magnitudes nearly all distinct); onlyEach cases are only in base, as many only in head.
type largeShape struct {
	cases, keys, graded, onlyEach int
	watch                         bool // result lines rather than JSON reports
	seed                          uint64
}

// writeLargeRuns writes the base and head runs of s into dir, as base.json and head.json (or .jsonl), and
// returns their paths. The runs are a pure function of s.
func writeLargeRuns(tb testing.TB, dir string, s largeShape) (base, head string) {
	tb.Helper()
	ext := ".json"
	if s.watch {
		ext = ".jsonl"
	}
	base, head = filepath.Join(dir, "base"+ext), filepath.Join(dir, "head"+ext)
	akeys := make([]string, s.keys)
	for k := range akeys {
		akeys[k] = hexKey("ak_", fmt.Sprint("assertion ", k))
	}
	for side, path := range []string{base, head} {
		f, err := os.Create(path)
		if err != nil {
			tb.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		if !s.watch {
			w.WriteString(`{"format_version":1,"traces":[` + "\n")
		}
		// The same stream of draws for both sides: a case's latent quality is shared, each side's noise its own.
		rng := rand.New(rand.NewPCG(s.seed, 29))
		noise := rand.New(rand.NewPCG(s.seed, uint64(30+side)))
		ids := rand.New(rand.NewPCG(s.seed, uint64(40+side)))
		first := true
		for c := range s.cases + 2*s.onlyEach {
			// Cases [cases, cases+onlyEach) are base's alone, the next onlyEach head's alone.
			skip := c >= s.cases && (c < s.cases+s.onlyEach) != (side == 0)
			trace := fmt.Sprintf("trc_%08x", c)
			ck := hexKey("ck_", trace)
			if !s.watch && !skip {
				if !first {
					w.WriteString(",\n")
				}
				first = false
				fmt.Fprintf(w, `{"name":"case-%d","trace_id":"%s","case_key":"%s","status":"pass","duration_ms":%d,"results":[`, c, trace, ck, 40+ids.IntN(900))
			}
			for k := range s.keys {
				q := rng.Float64()
				if k < s.graded {
					score := q
					if side == 1 {
						score = q + 0.1*(noise.Float64()-0.5)
						if k == 2 {
							score -= 0.05
						}
					}
					score = min(1, max(0, score))
					if k%3 == 2 {
						score = float64(int(score*1000+0.5)) / 1000
					} else {
						score = float64(int(score*10+0.5)) / 10
					}
					status := "pass"
					if score < 0.7 {
						status = "soft_fail"
					}
					if !skip {
						largeResult(w, s.watch, k > 0, trace, ck, akeys[k], k, "llm_judge", status, strconv.FormatFloat(score, 'g', -1, 64), ids)
					}
					continue
				}
				rate := 0.6 + 0.39*float64(k)/float64(s.keys)
				pass := q < rate
				if side == 1 && noise.Float64() < 0.05 { // a flaky check: drawn again
					pass = noise.Float64() < rate
				}
				if side == 1 && k == s.graded && q < rate && q >= rate-0.05 {
					pass = false
				}
				status, score := "hard_fail", "0"
				if pass {
					status, score = "pass", "1"
				}
				if !skip {
					largeResult(w, s.watch, k > 0, trace, ck, akeys[k], k, "content", status, score, ids)
				}
			}
			if !s.watch && !skip {
				w.WriteString("]}")
			}
		}
		if !s.watch {
			fmt.Fprintf(w, "\n"+`],"totals":{"passed":false,"complete":true,"traces":%d,"failed_traces":0,"results":%d,"pass":0,"soft_fail":0,"hard_fail":0,"skipped":0,"errors":0,"cost":0,"duration_ms":0}}`+"\n", s.cases+s.onlyEach, (s.cases+s.onlyEach)*s.keys)
		}
		if err := w.Flush(); err != nil {
			tb.Fatal(err)
		}
		if err := f.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	return base, head
}

// largeResult writes one result as a JSON report (after a comma unless first) or as a watch result line
// writes it, with the fields the engine writes.
func largeResult(w *bufio.Writer, watch, comma bool, trace, ck, ak string, k int, typ, status, score string, ids *rand.Rand) {
	label := fmt.Sprintf(`content {\"check\":\"contains\",\"target\":\"output.message\",\"value\":\"refund %d\"}`, k)
	expl := fmt.Sprintf("output.message contains 'refund %d'.", k)
	if typ == "llm_judge" {
		label = fmt.Sprintf(`llm_judge {\"rubric\":\"helpfulness %d\",\"threshold\":0.7}`, k)
		expl = "The agent answered the question and offered the refund the policy allows."
	}
	if watch {
		fmt.Fprintf(w, `{"trace_id":"%s","case_key":"%s","assertion":"check-%d","assertion_key":"%s","type":"%s","status":"%s","score":%s,"explanation":"%s","result_id":"%016x%016x","agent_id":"customer-service-agent"}`+"\n",
			trace, ck, k, ak, typ, status, score, expl, ids.Uint64(), ids.Uint64())
		return
	}
	if comma {
		w.WriteByte(',')
	}
	fmt.Fprintf(w, `{"assertion_id":"assert_%08x","assertion_key":"%s","label":"%s","type":"%s","status":"%s","score":%s,"explanation":"%s","cost":0,"duration_ms":%d}`,
		ids.Uint32(), ak, label, typ, status, score, expl, ids.IntN(50))
}

// hexKey is a key in the engine's form: a prefix and 32 hex digits.
func hexKey(prefix, text string) string {
	h := sha256.Sum256([]byte(text))
	return fmt.Sprintf("%s%x", prefix, h[:16])
}

// largeEnv is an environment variable's whole number, else def.
func largeEnv(tb testing.TB, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		tb.Fatalf("%s=%q: want a whole number", name, v)
	}
	return n
}

// TestWriteLargeRuns writes the runs of the speed goal into ATTEST_DIFF_LARGE_DIR (skipped without it):
// ATTEST_DIFF_CASES cases (20,000) × ATTEST_DIFF_KEYS keys (50), 10 of them graded, seeded by
// ATTEST_DIFF_SEED (1); ATTEST_DIFF_WATCH=1 writes watch's result lines instead of JSON reports.
// scripts/diff-bench.sh runs it.
func TestWriteLargeRuns(t *testing.T) {
	dir := os.Getenv("ATTEST_DIFF_LARGE_DIR")
	if dir == "" {
		t.Skip("ATTEST_DIFF_LARGE_DIR not set: writes the runs of the speed goal there")
	}
	s := largeShape{cases: largeEnv(t, "ATTEST_DIFF_CASES", 20_000), keys: largeEnv(t, "ATTEST_DIFF_KEYS", 50),
		graded: 10, onlyEach: 10, watch: os.Getenv("ATTEST_DIFF_WATCH") == "1", seed: simSeed(t)}
	s.graded = min(s.graded, s.keys)
	base, head := writeLargeRuns(t, dir, s)
	t.Logf("%s, %s: %d cases × %d keys, seed %d", base, head, s.cases, s.keys, s.seed)
}

// BenchmarkCompareLarge: Compare on the runs of the speed goal, those TestWriteLargeRuns wrote into
// ATTEST_DIFF_LARGE_DIR where it is set, else runs of ATTEST_DIFF_CASES cases (2,000) × 50 keys written
// afresh:
//
//	ATTEST_DIFF_LARGE_DIR=/tmp/runs go test ./rundiff -run '^$' -bench CompareLarge -benchtime 3x -cpuprofile cpu.out
func BenchmarkCompareLarge(b *testing.B) {
	base, head := filepath.Join(os.Getenv("ATTEST_DIFF_LARGE_DIR"), "base.json"), filepath.Join(os.Getenv("ATTEST_DIFF_LARGE_DIR"), "head.json")
	if os.Getenv("ATTEST_DIFF_LARGE_DIR") == "" {
		base, head = writeLargeRuns(b, b.TempDir(), largeShape{cases: largeEnv(b, "ATTEST_DIFF_CASES", 2_000), keys: 50, graded: 10, onlyEach: 10, seed: 1})
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Compare(base, head, Options{Alpha: 0.05, Detectable: 0.1, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
