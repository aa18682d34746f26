// consistency_goal_test.go: the consistency goals against the seeded stand-in judge: verdict flips between runs and calls per verdict.

package assert

import (
	"context"
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"attest-engine/provider"
	"attest-engine/providertest"
)

// goalItems is the number of items of the goal tests: 1,000 as the goal
// states (200 under the race detector, which checks the concurrency and
// not the figures); ATTEST_GOAL_ITEMS sets another.
func goalItems(t *testing.T) int {
	n := 1000
	if raceDetector || testing.Short() {
		n = 200
	}
	if v := os.Getenv("ATTEST_GOAL_ITEMS"); v != "" {
		if _, err := fmt.Sscan(v, &n); err != nil || n < 1 {
			t.Fatalf("ATTEST_GOAL_ITEMS=%q: want a positive integer", v)
		}
	}
	return n
}

// goalTrace is item i: a trace whose output the stand-in judges.
func goalTrace(i int) map[string]any {
	return map[string]any{
		"schema_version": 1, "trace_id": fmt.Sprintf("trc_goal_%d", i),
		"input":  map[string]any{"user_message": "Where is my refund?"},
		"output": map[string]any{"message": fmt.Sprintf("Answer %d: your refund RFD-%04d is on its way.", i, i)},
	}
}

// judgeRun evaluates spec over n items against a stand-in judge of seed and
// flip, with an empty cache; it returns each item's status and the calls made.
func judgeRun(t *testing.T, spec map[string]any, n int, seed uint64, flip float64) ([]Status, []*JudgeInfo, int64) {
	t.Helper()
	si := providertest.NewStandIn(t, seed, flip)
	ps := provider.Settings{Getenv: envOf("OPENAI_API_KEY", testKey, "OPENAI_BASE_URL", si.URL+"/v1"), RetryBase: time.Millisecond, CacheSize: 1}
	e, err := New(Config{Settings: ps})
	if err != nil {
		t.Fatal(err)
	}
	st := make([]Status, n)
	info := make([]*JudgeInfo, n)
	for i := range n {
		rs, err := e.Evaluate(context.Background(), goalTrace(i), []Assertion{{ID: "j", Type: "llm_judge", Spec: spec}})
		if err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
		st[i], info[i] = rs[0].Status, rs[0].Judge
	}
	return st, info, si.Calls()
}

// expectedFlips is the exact probability that two independent runs of mode
// c reach different verdicts on an item whose single samples land on the
// wrong side with probability eps, and the expected calls per verdict,
// enumerated over every sequence of sample sides the mode can draw (a
// brute force of consistency.more and decide, the same on either side
// for a symmetric mode).
func expectedFlips(c consistency, eps float64) (flip, calls float64) {
	var walk func(drawn, right int, p float64)
	var pRight float64
	walk = func(drawn, right int, p float64) {
		if !c.more(drawn, right) {
			calls += p * float64(drawn)
			if 2*right > drawn {
				pRight += p
			}
			return
		}
		walk(drawn+1, right+1, p*(1-eps))
		walk(drawn+1, right, p*eps)
	}
	walk(0, 0, 1)
	return 2 * pRight * (1 - pRight), calls
}

func TestExpectedFlips(t *testing.T) {
	// Single: 2ε(1−ε). Sequential max 5: wrong when the first two are
	// wrong (ε²), or after one of each, two wrong of the next three first.
	const eps = 0.04
	if got, calls := expectedFlips(consistency{mode: modeSingle, max: 1}, eps); math.Abs(got-2*eps*(1-eps)) > 1e-15 || calls != 1 {
		t.Errorf("single: %v flips, %v calls", got, calls)
	}
	wrong := eps*eps + 2*eps*(1-eps)*(eps*eps+2*eps*eps*(1-eps))
	if got, _ := expectedFlips(consistency{mode: modeSequential, max: 5}, eps); math.Abs(got-2*wrong*(1-wrong)) > 1e-15 {
		t.Errorf("sequential: %v flips, want %v", got, 2*wrong*(1-wrong))
	}
}

func flips(a, b []Status) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// TestConsistencyGoals: over 1,000 items, against a stand-in whose single
// verdicts flip 5–10% of the time between runs (two runs, two seeds),
// sequential verdicts flip at most 0.5% at most 2.5 calls per verdict, and
// confirm_on_fail makes at most 1 + 2·(failure rate) + 0.05 calls per
// verdict. Seed: ATTEST_JUDGE_SEED.
func TestConsistencyGoals(t *testing.T) {
	n := goalItems(t)
	seed := providertest.Seed(t, "ATTEST_JUDGE_SEED", 28)
	for _, flip := range []float64{0.026, 0.04} { // single flips 2ε(1−ε): 5.1% and 7.7%
		t.Run(fmt.Sprintf("flip_%v", flip), func(t *testing.T) {
			single := map[string]any{"rubric": "helpfulness"}
			s1, _, c1 := judgeRun(t, single, n, seed, flip)
			s2, _, _ := judgeRun(t, single, n, seed+1, flip)
			singleFlips := float64(flips(s1, s2)) / float64(n)
			t.Logf("single: %.2f%% of verdicts flip between runs, %.3f calls per verdict", 100*singleFlips, float64(c1)/float64(n))
			if n >= 1000 && (singleFlips < 0.04 || singleFlips > 0.11) {
				t.Errorf("the stand-in's single verdicts flip %.2f%% of the time, outside the 5–10%% the goal is stated for", 100*singleFlips)
			}

			seq := map[string]any{"rubric": "helpfulness", "consistency": map[string]any{"mode": "sequential", "max": 5}}
			q1, _, qc := judgeRun(t, seq, n, seed+2, flip)
			q2, _, _ := judgeRun(t, seq, n, seed+3, flip)
			seqFlips := float64(flips(q1, q2)) / float64(n)
			perVerdict := float64(qc) / float64(n)
			want, wantCalls := expectedFlips(consistency{mode: modeSequential, max: 5}, flip)
			t.Logf("sequential max 5: %.2f%% flip (exact expectation %.3f%%), %.3f calls per verdict (expectation %.3f)", 100*seqFlips, 100*want, perVerdict, wantCalls)
			if want > 0.005 {
				t.Errorf("sequential verdicts are expected to flip %.3f%% between runs, want at most 0.5%%", 100*want)
			}
			// The measured rate is a binomial count around the expectation:
			// more than 3.3 standard deviations above it (1 in 2,000) is a bug.
			if bound := want + 3.3*math.Sqrt(want*(1-want)/float64(n)); seqFlips > bound {
				t.Errorf("sequential verdicts flip %.2f%% between runs, above the %.2f%% the noise model allows", 100*seqFlips, 100*bound)
			}
			if perVerdict > 2.5 {
				t.Errorf("sequential: %.3f calls per verdict, want at most 2.5", perVerdict)
			}

			cof := map[string]any{"rubric": "helpfulness", "consistency": map[string]any{"mode": "confirm_on_fail"}}
			f1, info, fc := judgeRun(t, cof, n, seed+4, flip)
			f2, _, _ := judgeRun(t, cof, n, seed+5, flip)
			firstFails := 0
			for _, j := range info {
				if j.Samples > 1 {
					firstFails++
				}
			}
			failRate := float64(firstFails) / float64(n)
			perVerdict = float64(fc) / float64(n)
			t.Logf("confirm_on_fail: %.2f%% flip, %.3f calls per verdict, first-sample failure rate %.3f (bound %.3f)",
				100*float64(flips(f1, f2))/float64(n), perVerdict, failRate, 1+2*failRate+0.05)
			if perVerdict > 1+2*failRate+0.05 {
				t.Errorf("confirm_on_fail: %.3f calls per verdict, want at most 1 + 2·%.3f + 0.05", perVerdict, failRate)
			}
		})
	}
}
