// threshold_test.go: a learned threshold at the history's own resolution: constant, near-constant and bimodal histories.

package history

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"attest-engine/testseed"
)

// thresholdOf records scores under one key and learns its threshold.
func thresholdOf(t *testing.T, scores []float64) float64 {
	t.Helper()
	s, err := Open(t.TempDir(), Options{Sync: SyncNever, NoAlertFile: true, Drift: DriftConfig{BaselineN: len(scores)}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, sc := range scores {
		if err := s.Record(Result{TraceID: fmt.Sprint(i), Assertion: "judge", Type: "llm_judge", Status: Pass, Score: sc}); err != nil {
			t.Fatal(err)
		}
	}
	thr, why, err := s.Threshold("judge")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", why)
	return thr
}

func repeat(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestThresholdResolution: a score equal to its whole history passes the
// threshold learned from it (it failed when the mean rounded up: 30 × 0.6274415180425912
// held as 0.627442, spread 0), and a score clearly below the history still fails.
// Seed of the random histories: ATTEST_HISTORY_SEED.
func TestThresholdResolution(t *testing.T) {
	seed := testseed.Uint64(t, "ATTEST_HISTORY_SEED", 28)
	rng := rand.New(rand.NewPCG(seed, 28))

	tests := []struct {
		name    string
		history []float64
		pass    []float64 // scores that must pass
		fail    []float64 // scores that must fail
	}{
		{"constant_issue", repeat(30, 0.6274415180425912), []float64{0.6274415180425912}, []float64{0.6274, 0.5}},
		{"constant_half_unit_up", repeat(30, 0.1234565), []float64{0.1234565}, []float64{0.1234}},
		{"constant_half_unit_down", repeat(30, 0.1234564999999), []float64{0.1234564999999}, []float64{0.1234}},
		{"constant_one", repeat(40, 1), []float64{1}, []float64{0.9999}},
		{"constant_zero", repeat(40, 0), []float64{0}, nil},
		{"near_constant", nearConstant(0.6274415180425912, 1e-13, 50), []float64{0.6274415180425912 - 1e-13}, []float64{0.627}},
		{"near_constant_straddling", straddle(0.8765435, 1e-12, 60), []float64{0.8765435 - 1e-12, 0.8765435 + 1e-12}, []float64{0.876}},
		{"bimodal_far", bimodal(0.2, 0.9, 60), []float64{0.2, 0.9}, nil},
		{"bimodal_near", bimodal(0.80, 0.82, 60), []float64{0.80, 0.82}, []float64{0.78}},
	}
	for i := range 20 { // random constants
		v := rng.Float64()
		tests = append(tests, struct {
			name    string
			history []float64
			pass    []float64
			fail    []float64
		}{fmt.Sprintf("constant_random_%d", i), repeat(30+rng.IntN(200), v), []float64{v}, nil})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			thr := thresholdOf(t, tc.history)
			for _, sc := range tc.pass {
				if !(sc >= thr) {
					t.Errorf("score %v is below the threshold %v learned from its history", sc, thr)
				}
			}
			for _, sc := range tc.fail {
				if sc >= thr {
					t.Errorf("score %v passes threshold %v: the history does not support it", sc, thr)
				}
			}
			if thr != math.Floor(thr*scoreUnit)/scoreUnit {
				t.Errorf("threshold %v is not at the history's resolution", thr)
			}
		})
	}
}

func nearConstant(v, eps float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v + float64(i%3-1)*eps
	}
	return out
}

// straddle is a history on both sides of a rounding boundary, one side
// much more often: most held one unit above the rest.
func straddle(v, eps float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v + eps
		if i == 0 {
			out[i] = v - eps
		}
	}
	return out
}

func bimodal(a, b float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = a
		if i%2 == 1 {
			out[i] = b
		}
	}
	return out
}
