// sim_test.go: the pass/fail detector's figures by simulation (doc.go, "Drift").

package history

import (
	"cmp"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
)

// driftSeed seeds the drift simulations: go test ./history/ -run Drift
// -drift-seed S (or ATTEST_DRIFT_SEED=S) reruns them with another.
var driftSeed = flag.String("drift-seed", cmp.Or(os.Getenv("ATTEST_DRIFT_SEED"), "history/drift-simulation/v2"),
	"seed of the drift simulations (default $ATTEST_DRIFT_SEED)")

// binomial draws the failures of a window of n traces that each pass with
// probability p, by inverting its distribution function: the detector sees
// only a window's counts, so one draw per window simulates its n traces
// exactly, twenty times faster than a draw per trace.
type binomial struct{ cdf []float64 }

// newBinomial tabulates P(failures ≤ k) from the probabilities built up by
// Pascal's rule (no factorials): row i holds P(k failures in i traces).
func newBinomial(n int, p float64) binomial {
	row := []float64{1}
	for range n {
		next := make([]float64, len(row)+1)
		for k, v := range row {
			next[k] += v * p         // this trace passed
			next[k+1] += v * (1 - p) // it failed
		}
		row = next
	}
	b := binomial{cdf: make([]float64, len(row))}
	c := 0.0
	for k, v := range row {
		c += v
		b.cdf[k] = c
	}
	return b
}

func (b binomial) failures(u float64) int {
	for k, c := range b.cdf {
		if u < c {
			return k
		}
	}
	return len(b.cdf) - 1
}

// simulate feeds a detector with the default configuration windows of
// DefaultWindowTraces traces, window w's traces passing with probability
// pass(w), and returns the windows at which pass-rate alerts fired.
func simulate(r *prng, windows int, pass func(w int) binomial) []int {
	d := newDetector("a", DriftConfig{}.withDefaults())
	var alerts []int
	for w := range windows {
		f := pass(w).failures(r.Float64())
		s := Summary{Window: int64(w), Passes: uint64(DefaultWindowTraces - f), Fails: uint64(f)}
		for _, a := range d.step(&s) {
			if a.Kind == KindPassRate {
				alerts = append(alerts, w)
			}
		}
	}
	return alerts
}

// TestBinomial: the table against the closed form C(n,k)·q^k·p^(n−k) for
// the simulations' window, and its draws' mean against n·q.
func TestBinomial(t *testing.T) {
	const n, p = DefaultWindowTraces, 0.95
	b := newBinomial(n, p)
	prev := 0.0
	for k := 0; k <= n; k++ {
		lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
		want := math.Exp(lg(n) - lg(k) - lg(n-k) + float64(k)*math.Log(1-p) + float64(n-k)*math.Log(p))
		if got := b.cdf[k] - prev; math.Abs(got-want) > 1e-12 {
			t.Errorf("P(%d failures) = %g, want %g", k, got, want)
		}
		prev = b.cdf[k]
	}
	r := newPRNG(*driftSeed + "/binomial")
	sum := 0
	const draws = 200_000
	for range draws {
		sum += b.failures(r.Float64())
	}
	// mean n·q = 1, sd of the mean sqrt(n·p·q/draws) ≈ 0.0022: 5 sd
	if mean := float64(sum) / draws; math.Abs(mean-n*(1-p)) > 0.011 {
		t.Errorf("mean failures per window %.4f, want %.2f", mean, n*(1-p))
	}
}

// TestDriftSimulation states the pass/fail detector's figures (doc.go,
// "Drift") for the assertion paged most often, not for the pool: in each of
// 20 seeds, 50 assertions at a pass rate of 0.95 over 400,000 traces each,
// the worst assertion has at least 50,000 traces between false alarms; and
// a drop to 0.85 is detected with a median delay of at most 150 traces,
// both right after the baseline (trace 2,000) and once the reference is
// complete (trace 50,000). Each simulated assertion estimates its own
// baseline and reference, as a real one does.
func TestDriftSimulation(t *testing.T) {
	if testing.Short() || raceOn {
		t.Skip("simulation: 4·10⁸ traces, one goroutine (skipped with -short and -race)")
	}
	const seeds, assertions, perAssertion = 20, 50, 400_000
	windows := perAssertion / DefaultWindowTraces
	at95, at85 := newBinomial(DefaultWindowTraces, 0.95), newBinomial(DefaultWindowTraces, 0.85)
	steady := func(int) binomial { return at95 }
	pooled := 0
	for seed := range seeds {
		r := newPRNG(fmt.Sprint(*driftSeed, "/", seed))
		worst, total := 0, 0
		for range assertions {
			n := len(simulate(r, windows, steady))
			worst, total = max(worst, n), total+n
		}
		pooled += total
		between := float64(perAssertion) / float64(max(worst, 1))
		t.Logf("seed %s/%d: worst assertion %d false alarms in %d traces (%.0f between), all %d: %d",
			*driftSeed, seed, worst, perAssertion, between, assertions, total)
		if between < 50_000 {
			t.Errorf("seed %s/%d: the worst assertion has %.0f traces between false alarms, want at least 50,000", *driftSeed, seed, between)
		}
	}
	t.Logf("pooled: %d false alarms in %d traces: %.0f traces between", pooled, seeds*assertions*perAssertion,
		float64(seeds*assertions*perAssertion)/float64(max(pooled, 1)))

	r := newPRNG(*driftSeed + "/delay")
	for _, change := range []int{2_000, 50_000} {
		const runs, after = 1000, 3000
		cw := change / DefaultWindowTraces
		var delays []int
		missed := 0
		for range runs {
			d := -1
			for _, w := range simulate(r, cw+after/DefaultWindowTraces, func(w int) binomial {
				if w < cw {
					return at95
				}
				return at85
			}) {
				if w >= cw {
					d = (w - cw + 1) * DefaultWindowTraces // the alert comes at its window's end
					break
				}
			}
			if d < 0 {
				missed++
				d = after + 1
			}
			delays = append(delays, d)
		}
		slices.Sort(delays)
		median := delays[runs/2]
		t.Logf("drop to 0.85 after %d traces: median delay %d traces, p10 %d, p90 %d, not detected within %d: %d of %d",
			change, median, delays[runs/10], delays[runs*9/10], after, missed, runs)
		if median > 150 {
			t.Errorf("drop after %d traces: median detection delay %d traces, want at most 150", change, median)
		}
	}
}

// TestDriftBaselines: the pass/fail detector's false-alarm spacing at other
// baselines than the 0.95, pooled and for the worst assertion
// (figures in doc.go, "Drift").
func TestDriftBaselines(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	for _, p0 := range []float64{0.99, 0.9, 0.8} {
		r := newPRNG(fmt.Sprint(*driftSeed, "/baselines/", p0))
		const assertions, per = 50, 400_000
		b := newBinomial(DefaultWindowTraces, p0)
		alarms, worst := 0, 0
		for range assertions {
			n := len(simulate(r, per/DefaultWindowTraces, func(int) binomial { return b }))
			alarms, worst = alarms+n, max(worst, n)
		}
		between := float64(assertions*per) / float64(max(1, alarms))
		worstBetween := float64(per) / float64(max(1, worst))
		t.Logf("baseline %.2f: %.0f traces between false alarms, %.0f for the worst of %d assertions", p0, between, worstBetween, assertions)
		if worstBetween < 50_000 {
			t.Errorf("baseline %.2f: the worst assertion has %.0f traces between false alarms, want at least 50,000", p0, worstBetween)
		}
	}
}
