// agreement_test.go: each statistic against published worked examples and a brute force in exact rational arithmetic.

package agreement

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"attest-engine/testseed"
)

const tol = 1e-9

var nan = math.NaN()

func near(a, b float64) bool { return math.Abs(a-b) <= tol }

// seed is the seed of the random vectors: ATTEST_AGREEMENT_SEED, default 28.
func seed(t *testing.T) uint64 { return testseed.Uint64(t, "ATTEST_AGREEMENT_SEED", 28) }

// table expands a confusion table into the label lists it counts.
func table(m [][]int) (truth, pred []int) {
	for i, row := range m {
		for j, c := range row {
			for range c {
				truth, pred = append(truth, i), append(pred, j)
			}
		}
	}
	return truth, pred
}

// TestPublishedKappa: Cohen's κ of worked examples, to 1e-9 of the value
// their published figures give.
func TestPublishedKappa(t *testing.T) {
	tests := []struct {
		name   string
		m      [][]int
		po, pe float64 // as published
		kappa  float64
	}{
		// Cohen (1960), Table 1: p_o = .25 + .02 + .02 = .29 and p_c = .20 + .09 + .06 = .35
		// as the paper sums them (proportions ×100; the off-diagonal cells,
		// which κ does not depend on, fill the marginals .50 .30 .20 and .40 .30 .30).
		{"cohen_1960_table_1", [][]int{{25, 13, 12}, {12, 2, 16}, {3, 15, 2}}, 0.29, 0.35, (0.29 - 0.35) / (1 - 0.35)},
		// The Wikipedia article's worked example: 50 proposals, 20 yes-yes,
		// 5 yes-no, 10 no-yes, 15 no-no: p_o 0.7, p_e 0.5, κ 0.4.
		{"wikipedia_50_proposals", [][]int{{20, 5}, {10, 15}}, 0.7, 0.5, 0.4},
		// Its two tables of equal agreement and different κ: p_o 0.60 in both.
		{"wikipedia_same_agreement_1", [][]int{{45, 15}, {25, 15}}, 0.6, 0.54, (0.6 - 0.54) / 0.46},
		{"wikipedia_same_agreement_2", [][]int{{25, 35}, {5, 35}}, 0.6, 0.46, (0.6 - 0.46) / 0.54},
	}
	for _, tc := range tests {
		if got := Accuracy(tc.m); !near(got, tc.po) {
			t.Errorf("%s: p_o %v, want %v", tc.name, got, tc.po)
		}
		if got := CohenKappa(tc.m); !near(got, tc.kappa) {
			t.Errorf("%s: κ %v, want %v", tc.name, got, tc.kappa)
		}
	}
	// The published rounding of the last two: 0.1304 and 0.2593.
	if got := CohenKappa(tests[2].m); math.Round(got*1e4)/1e4 != 0.1304 {
		t.Errorf("κ %v, published as 0.1304", got)
	}
	if got := CohenKappa(tests[3].m); math.Round(got*1e4)/1e4 != 0.2593 {
		t.Errorf("κ %v, published as 0.2593", got)
	}
}

// fleissWikipedia is the worked example of the Wikipedia article on
// Fleiss' κ (not Fleiss's own, which is TestPublishedFleiss1971's): 10
// subjects, 14 raters, 5 categories; P̄ = 0.378, P̄e = 0.213, κ = 0.210 (to
// 3 decimals).
var fleissWikipedia = [][]int{
	{0, 0, 0, 0, 14}, {0, 2, 6, 4, 2}, {0, 0, 3, 5, 6}, {0, 3, 9, 2, 0}, {2, 2, 8, 1, 1},
	{7, 7, 0, 0, 0}, {3, 2, 6, 3, 0}, {2, 5, 3, 2, 2}, {6, 5, 2, 1, 0}, {0, 2, 2, 3, 7},
}

func TestPublishedFleiss(t *testing.T) {
	got := FleissKappa(fleissWikipedia)
	// Exactly: P̄ = 1.0 + … summed over subjects = 688/1820 (Σ per-subject
	// pairs 688 of 10 × 182), P̄e = (20² + 28² + 39² + 21² + 32²)/140².
	pbar := 688.0 / 1820
	pe := float64(20*20+28*28+39*39+21*21+32*32) / (140 * 140)
	if want := (pbar - pe) / (1 - pe); !near(got, want) {
		t.Errorf("Fleiss κ %v, want %v", got, want)
	}
	if math.Round(got*1000)/1000 != 0.210 || math.Round(pbar*1000)/1000 != 0.378 || math.Round(pe*1000)/1000 != 0.213 {
		t.Errorf("κ %v, P̄ %v, P̄e %v: published as 0.210, 0.378, 0.213", got, pbar, pe)
	}
	if r := fleissRat(fleissWikipedia); !near(got, r) {
		t.Errorf("Fleiss κ %v, brute force %v", got, r)
	}
}

// krippendorffC is Krippendorff's (2011) example C: 4 observers, 12 units,
// values 1–5, missing data (unit 12 has one value and is not pairable).
var krippendorffC = [][]float64{
	{1, 1, nan, 1}, {2, 2, 3, 2}, {3, 3, 3, 3}, {3, 3, 3, 3}, {2, 2, 2, 2}, {1, 2, 3, 4},
	{4, 4, 4, 4}, {1, 1, 2, 1}, {2, 2, 2, 2}, {nan, 5, 5, 5}, {nan, nan, 1, 1}, {nan, 3, nan, nan},
}

// TestPublishedAlpha: Krippendorff's own worked examples (2011): A binary
// (α 0.095), B nominal (α 0.692), C with four observers and missing data
// (nominal 0.743, ordinal 0.815, interval 0.849, ratio 0.797); A and B to
// 1e-9 of the exact fractions their coincidence matrices give, C at the
// published rounding and to 1e-9 of the brute force.
func TestPublishedAlpha(t *testing.T) {
	a := [][]float64{{0, 1}, {1, 1}, {0, 1}, {0, 0}, {0, 0}, {0, 1}, {0, 0}, {0, 0}, {1, 0}, {0, 0}}
	if got, want := Alpha(a, Nominal), 1-19.0*4/(14*6); !near(got, want) || math.Round(got*1000)/1000 != 0.095 {
		t.Errorf("example A: α %v, want %v (published 0.095)", got, want)
	}
	// a..e as 1..5
	b := [][]float64{{1, 2}, {1, 1}, {2, 2}, {2, 2}, {4, 2}, {3, 3}, {3, 3}, {3, 3}, {5, 5}, {4, 4}, {4, 4}, {1, 4}}
	if got, want := Alpha(b, Nominal), 1-23.0*6/(24*24-128); !near(got, want) || math.Round(got*1000)/1000 != 0.692 {
		t.Errorf("example B: α %v, want %v (published 0.692)", got, want)
	}
	for _, c := range []struct {
		metric Metric
		want   float64
	}{{Nominal, 0.743}, {Ordinal, 0.815}, {Interval, 0.849}, {Ratio, 0.797}} {
		got := Alpha(krippendorffC, c.metric)
		if math.Round(got*1000)/1000 != c.want {
			t.Errorf("example C, metric %d: α %v, published %v", c.metric, got, c.want)
		}
		if r := alphaRat(krippendorffC, c.metric); !near(got, r) {
			t.Errorf("example C, metric %d: α %v, brute force %v", c.metric, got, r)
		}
	}
}

// TestBruteForce: ≥ 20 seeded random vectors per statistic, each equal to
// 1e-9 to a brute force in exact rational arithmetic that enumerates pairs
// of items (chance agreement as the share of all truth–prediction pairs
// that agree; α from every pair of pairable values) rather than tables.
func TestBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(seed(t), 1))
	for v := range 40 {
		n, k := 1+rng.IntN(60), 2+rng.IntN(4)
		truth, pred := make([]int, n), make([]int, n)
		agree := rng.Float64()
		for i := range n {
			truth[i] = rng.IntN(k)
			pred[i] = rng.IntN(k)
			if rng.Float64() < agree {
				pred[i] = truth[i]
			}
		}
		if v%10 == 9 { // degenerate: one category throughout
			for i := range n {
				truth[i], pred[i] = 0, 0
			}
		}
		m := Confusion(truth, pred, k)
		name := fmt.Sprintf("vector %d (n %d, k %d)", v, n, k)
		if got, want := Accuracy(m), accuracyRat(truth, pred); !near(got, want) {
			t.Errorf("%s: accuracy %v, brute force %v", name, got, want)
		}
		if got, want := CohenKappa(m), kappaRat(truth, pred, false); !near(got, want) {
			t.Errorf("%s: κ %v, brute force %v", name, got, want)
		}
		if got, want := WeightedKappa(m), kappaRat(truth, pred, true); !near(got, want) {
			t.Errorf("%s: quadratic κ %v, brute force %v", name, got, want)
		}
		if got, want := MajorityBaseline(truth), majorityRat(truth); !near(got, want) {
			t.Errorf("%s: majority baseline %v, brute force %v", name, got, want)
		}
		// Several raters, some values missing.
		raters := 2 + rng.IntN(4)
		units := make([][]float64, n)
		counts := make([][]int, n)
		for u := range units {
			units[u] = make([]float64, raters)
			counts[u] = make([]int, k)
			base := rng.IntN(k)
			for r := range raters {
				x := base
				if rng.Float64() > agree {
					x = rng.IntN(k)
				}
				units[u][r] = float64(x + 1)
				counts[u][x]++
				if rng.IntN(5) == 0 {
					units[u][r] = nan
				}
			}
		}
		for _, metric := range []Metric{Nominal, Ordinal, Interval, Ratio} {
			if got, want := Alpha(units, metric), alphaRat(units, metric); !near(got, want) {
				t.Errorf("%s: α metric %d %v, brute force %v", name, metric, got, want)
			}
		}
		if got, want := FleissKappa(counts), fleissRat(counts); !near(got, want) {
			t.Errorf("%s: Fleiss κ %v, brute force %v", name, got, want)
		}
	}
}

func TestBootstrap(t *testing.T) {
	truth := []int{1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 0, 0, 1}
	pred := []int{1, 0, 0, 1, 0, 1, 1, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1}
	stat := func(idx []int) float64 {
		tt, pp := make([]int, len(idx)), make([]int, len(idx))
		for i, j := range idx {
			tt[i], pp[i] = truth[j], pred[j]
		}
		return CohenKappa(Confusion(tt, pp, 2))
	}
	lo, hi := Bootstrap(len(truth), 2000, 7, stat)
	lo2, hi2 := Bootstrap(len(truth), 2000, 7, stat)
	if lo != lo2 || hi != hi2 {
		t.Errorf("the same seed gave [%v, %v] and [%v, %v]", lo, hi, lo2, hi2)
	}
	k := CohenKappa(Confusion(truth, pred, 2))
	if !(lo <= k && k <= hi) || lo >= hi {
		t.Errorf("κ %v outside its interval [%v, %v]", k, lo, hi)
	}
	// The same resamples, drawn by hand: the interval is the percentiles of them.
	rng := rand.New(rand.NewPCG(7, uint64(len(truth))))
	var res []float64
	for range 2000 {
		idx := make([]int, len(truth))
		for i := range idx {
			idx[i] = rng.IntN(len(truth))
		}
		res = append(res, stat(idx))
	}
	sortFloats(res)
	if want := res[0] + 0; !near(Quantile(res, 0), want) {
		t.Error("quantile 0")
	}
	byHand := func(p float64) float64 {
		h := p * float64(len(res)-1)
		return res[int(h)] + (h-math.Floor(h))*(res[int(h)+1]-res[int(h)])
	}
	if want := byHand(0.025); !near(lo, want) {
		t.Errorf("lower bound %v, by hand %v", lo, want)
	}
	if want := byHand(0.975); !near(hi, want) {
		t.Errorf("upper bound %v, by hand %v", hi, want)
	}
	// The resamples themselves are the seed's: those Bootstrap hands the
	// statistic are the hand-drawn sequence of PCG(seed, n), and two seeds
	// draw different ones.
	drawn := map[uint64][]int{}
	for _, s := range []uint64{7, 8} {
		Bootstrap(len(truth), 5, s, func(idx []int) float64 {
			drawn[s] = append(drawn[s], idx...)
			return 0
		})
		rng := rand.New(rand.NewPCG(s, uint64(len(truth))))
		for i, got := range drawn[s] {
			if want := rng.IntN(len(truth)); got != want {
				t.Fatalf("seed %d: resampled index %d is %d, hand-drawn %d", s, i, got, want)
			}
		}
	}
	if fmt.Sprint(drawn[7]) == fmt.Sprint(drawn[8]) {
		t.Error("seeds 7 and 8 drew the same resamples")
	}
	if l, h := Bootstrap(0, 10, 1, stat); !math.IsNaN(l) || !math.IsNaN(h) {
		t.Error("no items: want NaN")
	}
}

func sortFloats(x []float64) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}

// Brute forces, in exact rationals.

func rat(a, b int64) *big.Rat { return big.NewRat(a, b) }

func f(r *big.Rat) float64 { x, _ := r.Float64(); return x }

func accuracyRat(truth, pred []int) float64 {
	if len(truth) == 0 {
		return 0
	}
	a := 0
	for i := range truth {
		if truth[i] == pred[i] {
			a++
		}
	}
	return f(rat(int64(a), int64(len(truth))))
}

// kappaRat: observed disagreement over the items, expected over every
// (truth of one item, prediction of any item) pair; quadratic or 0/1.
func kappaRat(truth, pred []int, quadratic bool) float64 {
	w := func(a, b int) int64 {
		if quadratic {
			return int64((a - b) * (a - b))
		}
		if a == b {
			return 0
		}
		return 1
	}
	n := int64(len(truth))
	var obs, exp int64
	for i := range truth {
		obs += w(truth[i], pred[i])
		for j := range pred {
			exp += w(truth[i], pred[j])
		}
	}
	// 1 − (obs/n) / (exp/n²)
	if exp == 0 {
		if obs == 0 {
			return 1
		}
		return 0
	}
	r := new(big.Rat).Sub(rat(1, 1), new(big.Rat).Quo(rat(obs*n, 1), rat(exp, 1)))
	return f(r)
}

func majorityRat(truth []int) float64 {
	best := 0
	for _, a := range truth {
		c := 0
		for _, b := range truth {
			if a == b {
				c++
			}
		}
		best = max(best, c)
	}
	return f(rat(int64(best), int64(len(truth))))
}

// fleissRat: P_i from the ordered pairs of distinct raters that agree.
func fleissRat(counts [][]int) float64 {
	raters := 0
	for _, c := range counts[0] {
		raters += c
	}
	N := int64(len(counts))
	pbar := new(big.Rat)
	tot := make([]int64, len(counts[0]))
	for _, row := range counts {
		var labels []int
		for c, x := range row {
			for range x {
				labels = append(labels, c)
			}
			tot[c] += int64(x)
		}
		var agree int64
		for i := range labels {
			for j := range labels {
				if i != j && labels[i] == labels[j] {
					agree++
				}
			}
		}
		pbar.Add(pbar, rat(agree, int64(raters*(raters-1))))
	}
	pbar.Quo(pbar, rat(N, 1))
	pe := new(big.Rat)
	for _, x := range tot {
		p := rat(x, N*int64(raters))
		pe.Add(pe, new(big.Rat).Mul(p, p))
	}
	one := rat(1, 1)
	if pe.Cmp(one) == 0 {
		if pbar.Cmp(one) == 0 {
			return 1
		}
		return 0
	}
	return f(new(big.Rat).Quo(new(big.Rat).Sub(pbar, pe), new(big.Rat).Sub(one, pe)))
}

// alphaRat: D_o over the pairs within units, D_e over every pair of
// pairable values in the data (values are small integers, ×1 exact).
func alphaRat(units [][]float64, metric Metric) float64 {
	type val struct {
		v    int64
		unit int
		m    int64
	}
	var all []val
	for u, row := range units {
		var m int64
		for _, x := range row {
			if !math.IsNaN(x) {
				m++
			}
		}
		if m < 2 {
			continue
		}
		for _, x := range row {
			if !math.IsNaN(x) {
				all = append(all, val{int64(x), u, m})
			}
		}
	}
	n := int64(len(all))
	if n == 0 {
		return 0
	}
	count := map[int64]int64{}
	for _, a := range all {
		count[a.v]++
	}
	delta := func(a, b int64) *big.Rat {
		switch metric {
		case Ordinal:
			lo, hi := min(a, b), max(a, b)
			s := new(big.Rat)
			for g, c := range count {
				if g >= lo && g <= hi {
					s.Add(s, rat(c, 1))
				}
			}
			s.Sub(s, rat(count[a]+count[b], 2))
			return s.Mul(s, s)
		case Interval:
			return rat((a-b)*(a-b), 1)
		case Ratio:
			if a+b == 0 {
				return new(big.Rat)
			}
			r := rat(a-b, a+b)
			return r.Mul(r, r)
		}
		if a == b {
			return new(big.Rat)
		}
		return rat(1, 1)
	}
	type pair struct{ a, b int64 }
	memo := map[pair]*big.Rat{}
	obs, exp := new(big.Rat), new(big.Rat)
	for i, a := range all {
		for j, b := range all {
			if i == j {
				continue
			}
			d, ok := memo[pair{a.v, b.v}]
			if !ok {
				d = delta(a.v, b.v)
				memo[pair{a.v, b.v}] = d
			}
			exp.Add(exp, d)
			if a.unit == b.unit {
				obs.Add(obs, new(big.Rat).Quo(d, rat(a.m-1, 1)))
			}
		}
	}
	// α = 1 − (n − 1) obs / exp
	if exp.Sign() == 0 {
		if obs.Sign() == 0 {
			return 1
		}
		return 0
	}
	r := new(big.Rat).Quo(new(big.Rat).Mul(obs, rat(n-1, 1)), exp)
	return f(new(big.Rat).Sub(rat(1, 1), r))
}
