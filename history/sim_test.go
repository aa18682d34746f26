package history

import (
	"slices"
	"testing"
)

// simulate feeds a detector with the default configuration traces that pass
// with probability pass(i), in windows of DefaultWindowTraces, and returns
// the trace indices (0-based) at which pass-rate alerts fired.
func simulate(r *prng, traces int, pass func(i int) float64) []int {
	d := newDetector("a", DriftConfig{}.withDefaults())
	var alerts []int
	var w Summary
	for i := 0; i < traces; i++ {
		if r.Float64() < pass(i) {
			w.add(Pass, 1)
		} else {
			w.add(HardFail, 0)
		}
		if (i+1)%DefaultWindowTraces == 0 {
			w.Window = int64(i / DefaultWindowTraces)
			for _, a := range d.step(&w) {
				if a.Kind == KindPassRate {
					alerts = append(alerts, i)
				}
			}
			w = Summary{}
		}
	}
	return alerts
}

// TestDriftSimulation states the pass/fail detector's figures (doc.go,
// "Drift"): at a baseline pass rate of 0.95, at least 50,000 traces between
// false alarms per assertion; a drop to 0.85 detected with a median delay of
// at most 150 traces. Each simulated assertion estimates its own baseline
// from its first traces, as a real one does.
func TestDriftSimulation(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation: 20M traces")
	}
	const assertions, perAssertion = 50, 400_000
	r := newPRNG("history/drift-simulation/v1")
	alarms := 0
	for a := 0; a < assertions; a++ {
		alarms += len(simulate(r, perAssertion, func(int) float64 { return 0.95 }))
	}
	between := float64(assertions*perAssertion) / float64(max(alarms, 1))

	const runs, change, after = 1000, 2000, 3000
	var delays []int
	missed := 0
	for range runs {
		d := -1
		for _, x := range simulate(r, change+after, func(i int) float64 {
			if i < change {
				return 0.95
			}
			return 0.85
		}) {
			if x >= change {
				d = x - change + 1
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
	median := delays[len(delays)/2]
	t.Logf("baseline 0.95: %d false alarms in %d traces over %d assertions: %.0f traces between false alarms", alarms, assertions*perAssertion, assertions, between)
	t.Logf("drop to 0.85 after %d traces: median delay %d traces, p10 %d, p90 %d, not detected within %d: %d of %d",
		change, median, delays[runs/10], delays[runs*9/10], after, missed, runs)
	if between < 50_000 {
		t.Errorf("%.0f traces between false alarms, want at least 50,000", between)
	}
	if median > 150 {
		t.Errorf("median detection delay %d traces, want at most 150", median)
	}
}
