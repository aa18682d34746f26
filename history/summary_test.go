package history

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func randomResult(r *prng) (Status, float64) {
	st := Status(1 + r.Intn(5))
	var score float64
	switch r.Intn(3) {
	case 0:
		score = 0
	case 1:
		score = 1
	default:
		score = r.Float64()
	}
	return st, score
}

// TestSummaryMergeProperty: summarizing parts of a set of results and
// merging the parts, grouped and ordered at random, gives exactly the
// summary of the whole set: merge is associative and commutative.
func TestSummaryMergeProperty(t *testing.T) {
	for seed := range 50 {
		r := newPRNG(fmt.Sprintf("history/summary-merge/%d", seed))
		n := 1 + r.Intn(2000)
		parts := make([]Summary, 1+r.Intn(9))
		var whole Summary
		for range n {
			st, score := randomResult(r)
			whole.add(st, score)
			parts[r.Intn(len(parts))].add(st, score)
		}
		// merge in random grouping and order: repeatedly combine two random
		// partial sums until one is left
		for len(parts) > 1 {
			i, j := r.Intn(len(parts)), r.Intn(len(parts)-1)
			if j >= i {
				j++
			}
			parts[i].Merge(&parts[j])
			parts = append(parts[:j], parts[j+1:]...)
		}
		if d := cmp.Diff(whole, parts[0]); d != "" {
			t.Fatalf("seed %d: merged parts differ from the whole (-whole +merged):\n%s", seed, d)
		}
	}
}

func TestSummaryStats(t *testing.T) {
	tests := []struct {
		name       string
		scores     []float64
		statuses   []Status
		mean, sd   float64
		passRate   float64
		wilsonLow  float64
		wilsonHigh float64
	}{
		{"empty", nil, nil, 0, 0, 0, 0, 1},
		{"one pass", []float64{1}, []Status{Pass}, 1, 0, 1, 0.2065, 1},
		{"scored", []float64{0.2, 0.4, 0.6, 0.8}, []Status{HardFail, SoftFail, Pass, Pass}, 0.5, math.Sqrt(0.2 / 3), 0.5, 0.1500, 0.8500},
		{"errors ignored", []float64{1, 0, 0}, []Status{Pass, Error, Skipped}, 1, 0, 1, 0.2065, 1},
		{"95 of 100", nil, nil, 0, 0, 0.95, 0.8882, 0.9785},
	}
	for _, tc := range tests {
		var s Summary
		for i, sc := range tc.scores {
			s.add(tc.statuses[i], sc)
		}
		if tc.name == "95 of 100" {
			s.Passes, s.Fails = 95, 5
			tc.mean, tc.sd = s.Mean(), s.StdDev()
		}
		w := s.Wilson()
		got := []float64{s.Mean(), s.StdDev(), s.PassRate(), w[0], w[1]}
		want := []float64{tc.mean, tc.sd, tc.passRate, tc.wilsonLow, tc.wilsonHigh}
		if d := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-4 })); d != "" {
			t.Errorf("%s: mean, sd, pass rate, Wilson (-want +got):\n%s", tc.name, d)
		}
	}
}
