// sim_test.go: diff's error rates on simulated pairs of runs, seeded: no true difference (calibration) and
// a true drop of 10 points (power, against the power computed exactly).

package rundiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"attest-engine/testseed"
)

// simSeed is ATTEST_DIFF_SEED, else 1: rerun the simulations with another seed to see that their
// bounds hold by design, not by the seed.
func simSeed(t *testing.T) uint64 { return testseed.Uint64(t, "ATTEST_DIFF_SEED", 1) }

// nullKey draws one assertion key's n pairs from two runs with no true difference: case i passes with
// probability π_i in both runs, drawn independently (π_i uniform from 0.2 to 1: easy and hard cases).
func nullKey(rng *rand.Rand, n int) *keyCounts {
	k := &keyCounts{}
	for range n {
		pi := 0.2 + 0.8*rng.Float64()
		b, h := rng.Float64() < pi, rng.Float64() < pi
		switch {
		case b && h:
			k.bothPass++
		case b:
			k.regressions++
		case h:
			k.improvements++
		default:
			k.bothFail++
		}
	}
	return k
}

// TestFalseRegressionRate: over 20,000 simulated keys of 500 pairs with no true difference, the share a
// one-sided test at α 0.05 calls regressed is 5.0% ± 0.5% (the exact test's would be well under); and over
// 2,000 families of 50 such keys, Holm keeps the share of families with any key regressed at most 5%
// (plus two standard errors of the simulation).
func TestFalseRegressionRate(t *testing.T) {
	seed := simSeed(t)
	rng := rand.New(rand.NewPCG(seed, 101))
	const keys, n = 20_000, 500
	fired, exactFired := 0, 0
	for range keys {
		k := nullKey(rng, n)
		d := k.regressions + k.improvements
		if mcnemarMidP(k.regressions, d) <= 0.05 {
			fired++
		}
		if 1-halfCDF(k.regressions-1, d) <= 0.05 {
			exactFired++
		}
	}
	rate := float64(fired) / keys
	t.Logf("seed %d: %d keys, false regressions %.2f%% with the mid-p (%.2f%% with the exact p)", seed, keys, 100*rate, 100*float64(exactFired)/keys)
	if math.Abs(rate-0.05) > 0.005 {
		t.Errorf("false-regression rate %.2f%%, want 5.0%% ± 0.5%%", 100*rate)
	}

	const families, perFamily = 2_000, 50
	any := 0
	o := Options{Alpha: 0.05, Detectable: 0.1, Seed: seed}
	for range families {
		p := &paired{}
		for range perFamily {
			p.keys = append(p.keys, nullKey(rng, n))
		}
		for _, r := range decide(p, o) {
			if r.Verdict == Regressed {
				any++
				break
			}
		}
	}
	fwer := float64(any) / families
	se := math.Sqrt(0.05 * 0.95 / families)
	t.Logf("family-wise false regressions (Holm, 50 keys): %.2f%%", 100*fwer)
	if fwer > 0.05+2*se {
		t.Errorf("family-wise false-regression rate %.2f%% over %d families of %d keys, want at most 5%%", 100*fwer, families, perFamily)
	}
}

// binomPMF is P(X = k), X ~ Binomial(n, p), from log-gamma (ample for a power figure).
func binomPMF(k, n int, p float64) float64 {
	if p == 0 || p == 1 {
		if (p == 0 && k == 0) || (p == 1 && k == n) {
			return 1
		}
		return 0
	}
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	return math.Exp(lg(n) - lg(k) - lg(n-k) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}

// exactPower is the probability that the one-sided mid-p McNemar test at alpha calls a regression over n
// pairs that move pass→fail with probability p10 and fail→pass with p01, summed over every outcome: the
// discordant count d ~ Binomial(n, p10+p01), then the pass→fail count ~ Binomial(d, p10/(p10+p01)),
// with each d's critical count found from exact rational probabilities (exactHalf), not from halfCDF.
func exactPower(n int, p10, p01, alpha float64) float64 {
	q := p10 + p01
	power := 0.0
	for d := 0; d <= n; d++ {
		pd := binomPMF(d, n, q)
		if pd < 1e-16 {
			continue // outcomes this unlikely change the power by less than 1e-13 in all
		}
		pmf, _ := exactHalf(d)
		crit := -1 // the smallest pass→fail count with mid-p ≤ alpha
		upper := 0.0
		for r := d; r >= 0; r-- {
			if upper+0.5*pmf[r] > alpha {
				break
			}
			crit = r
			upper += pmf[r]
		}
		if crit < 0 {
			continue
		}
		tail := 0.0
		for r := crit; r <= d; r++ {
			tail += binomPMF(r, d, p10/q)
		}
		power += pd * tail
	}
	return power
}

// TestPowerAtTenPoints: 500 pairs whose pass rate truly drops 10 points, from 80% to 70% with the two runs
// independent given the case (the most discordant way: 24% of pairs pass→fail, 14% fail→pass): the exact
// power of the test is at least 0.9, and 4,000 simulated keys regress at that rate (within four standard
// errors).
func TestPowerAtTenPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("computes the exact power over every outcome")
	}
	const n, p10, p01 = 500, 0.8 * 0.3, 0.2 * 0.7
	exact := exactPower(n, p10, p01, 0.05)
	if exact < 0.9 {
		t.Errorf("exact power %.4f at a 10-point drop over %d pairs, want at least 0.9", exact, n)
	}
	seed := simSeed(t)
	rng := rand.New(rand.NewPCG(seed, 202))
	const sims = 4_000
	hit := 0
	for range sims {
		b, c := 0, 0
		for range n {
			switch u := rng.Float64(); {
			case u < p10:
				b++
			case u < p10+p01:
				c++
			}
		}
		if mcnemarMidP(b, b+c) <= 0.05 {
			hit++
		}
	}
	sim := float64(hit) / sims
	se := math.Sqrt(exact * (1 - exact) / sims)
	t.Logf("seed %d: power exact %.4f, simulated %.4f (%d keys)", seed, exact, sim, sims)
	if math.Abs(sim-exact) > 4*se+1.0/sims {
		t.Errorf("simulated power %.4f, exact %.4f (standard error %.4f)", sim, exact, se)
	}
}

// TestDetectableDropIsTheFamilys: the drop a key's data could have shown is the one Holm's first step would
// show, at α/m for m hypotheses toward a regression: alone, a key of 500 pairs (10% discordant) could show
// a smaller drop than the same key among 50, whose lone regression must reach p ≤ 0.001. It failed when
// every key was stated at α, as if tested alone: in a family of 50 keys, a drop of the size stated has
// power 0.27 at Holm's first step, not 0.8.
func TestDetectableDropIsTheFamilys(t *testing.T) {
	key := func() *keyCounts {
		return &keyCounts{info: keyInfo{key: "k"}, bothPass: 400, regressions: 25, improvements: 25, bothFail: 50}
	}
	o := Options{Alpha: 0.05, Detectable: 0.1, Seed: 1}
	alone := decide(&paired{keys: []*keyCounts{key()}}, o)[0].DetectableDrop
	family := &paired{}
	for range 50 {
		family.keys = append(family.keys, key())
	}
	among := decide(family, o)[0].DetectableDrop
	if want := detectableDrop(500, 0.1, 0.05); math.Abs(alone-want) > 1e-12 {
		t.Errorf("alone: detectable drop %g, want %g (at α)", alone, want)
	}
	if want := detectableDrop(500, 0.1, 0.05/50); math.Abs(among-want) > 1e-12 || among <= alone {
		t.Errorf("among 50 keys: detectable drop %g, want %g (at α/50), more than alone (%g)", among, want, alone)
	}
}
