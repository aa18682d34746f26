// stats_test.go: each estimator against published worked examples and a brute-force computation.

package rundiff

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// exactHalf returns P(X = k) and P(X ≤ k) for every k, X ~ Binomial(n, ½), from exact integers:
// C(n,k) / 2^n and Σ C(n,i) / 2^n.
func exactHalf(n int) (pmf, cdf []float64) {
	den := new(big.Int).Lsh(big.NewInt(1), uint(n))
	sum, c := new(big.Int), big.NewInt(1)
	for k := 0; k <= n; k++ {
		sum.Add(sum, c)
		p, _ := new(big.Rat).SetFrac(c, den).Float64()
		q, _ := new(big.Rat).SetFrac(sum, den).Float64()
		pmf, cdf = append(pmf, p), append(cdf, q)
		c.Mul(c, big.NewInt(int64(n-k)))
		c.Quo(c, big.NewInt(int64(k+1)))
	}
	return pmf, cdf
}

func exactHalfPMF(k, n int) float64 {
	c := new(big.Int).Binomial(int64(n), int64(k))
	f, _ := new(big.Rat).SetFrac(c, new(big.Int).Lsh(big.NewInt(1), uint(n))).Float64()
	return f
}

func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

// TestHalfBinomialExact: the tails and point probabilities equal the exact rational values to 1e-12
// relative, for every k of n up to 60 and of several larger n (the series and the recurrence both).
func TestHalfBinomialExact(t *testing.T) {
	ns := []int{1, 2, 3, 7, 15, 16, 17, 35, 36, 60, 81, 237, 501, 1000, 2000}
	worst := 0.0
	for _, n := range ns {
		pmf, cdf := exactHalf(n)
		for k := 0; k <= n; k++ {
			want := cdf[k]
			if want < 1e-290 {
				continue
			}
			e := relErr(halfCDF(k, n), want)
			worst = max(worst, e)
			if e > 1e-12 {
				t.Fatalf("halfCDF(%d, %d) = %.17g, exact %.17g (relative error %.2g)", k, n, halfCDF(k, n), want, e)
			}
			if pmf[k] > 1e-290 && relErr(halfPMF(k, n), pmf[k]) > 1e-12 {
				t.Fatalf("halfPMF(%d, %d) = %.17g, exact %.17g", k, n, halfPMF(k, n), pmf[k])
			}
		}
	}
	t.Logf("worst relative error of the tails: %.2g", worst)
}

// TestMcNemarWorkedExample: Armitage and Berry's two culture media (Statistical Methods in Medical
// Research, 1994, p. 127): 12 specimens grew on A only and 2 on B only. The exact two-sided p-value is
// 0.0129 (Liddell 1983's exact test as StatsDirect reports it): 2·P(X ≤ 2), X ~ Binomial(14, ½) =
// 212/16384. The one-sided mid-p toward A is P(X > 12) + ½·P(X = 12) = 60.5/16384.
func TestMcNemarWorkedExample(t *testing.T) {
	if got, want := 2*halfCDF(2, 14), 212.0/16384; relErr(got, want) > 1e-14 {
		t.Errorf("two-sided exact p = %.17g, want %.17g (0.0129)", got, want)
	}
	if got, want := mcnemarMidP(12, 14), 60.5/16384; relErr(got, want) > 1e-14 {
		t.Errorf("mid-p = %.17g, want %.17g", got, want)
	}
	if got := mcnemarMidP(2, 14) + mcnemarMidP(12, 14); math.Abs(got-1) > 1e-15 {
		t.Errorf("the two directions' mid-p sum to %.17g, want 1", got)
	}
	if got := mcnemarMidP(0, 0); got != 0.5 {
		t.Errorf("no discordant pair: mid-p %g, want 0.5", got)
	}
}

// TestMcNemarBruteForce: the mid-p equals a sum over the exact distribution for every (r, d) up to 80.
func TestMcNemarBruteForce(t *testing.T) {
	for d := 0; d <= 80; d++ {
		pmf, _ := exactHalf(d)
		for r := 0; r <= d; r++ {
			want := 0.0
			for x := r + 1; x <= d; x++ {
				want += pmf[x]
			}
			want += 0.5 * pmf[r]
			if e := relErr(mcnemarMidP(r, d), want); e > 1e-12 {
				t.Fatalf("mcnemarMidP(%d, %d) = %.17g, brute force %.17g", r, d, mcnemarMidP(r, d), want)
			}
		}
	}
}

// TestHolmWorkedExample: four hypotheses with p-values 0.01, 0.04, 0.03 and 0.005: sorted 0.005, 0.01, 0.03,
// 0.04 are multiplied by 4, 3, 2, 1 (0.02, 0.03, 0.06, 0.04) and made non-decreasing (0.02, 0.03, 0.06,
// 0.06); at α 0.05 the first two are rejected, as Holm's step-down procedure does by hand (0.005 ≤
// 0.05/4, 0.01 ≤ 0.05/3, 0.03 > 0.05/2: stop).
func TestHolmWorkedExample(t *testing.T) {
	got := holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("holm = %v, want %v", got, want)
		}
	}
}

// holmRejects is Holm's procedure as written: reject the smallest p-values one by one while the i-th
// (from 1) of m is at most α/(m−i+1).
func holmRejects(p []float64, alpha float64) []bool {
	m := len(p)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if p[a] < p[b] {
			return -1
		}
		if p[a] > p[b] {
			return 1
		}
		return 0
	})
	rej := make([]bool, m)
	for i, j := range idx {
		if p[j]*float64(m-i) > alpha { // p ≤ α/(m−i), multiplied out so both sides round alike
			break
		}
		rej[j] = true
	}
	return rej
}

// TestHolmBruteForce: on 40 seeded random families, a hypothesis's adjusted p-value is at most α exactly
// when the step-down procedure rejects it at α, for α at every critical value and on a grid.
func TestHolmBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 1))
	for f := range 40 {
		m := 1 + rng.IntN(30)
		p := make([]float64, m)
		for i := range p {
			p[i] = math.Pow(rng.Float64(), 3) // many small values
			if rng.IntN(5) == 0 && i > 0 {
				p[i] = p[i-1] // ties
			}
		}
		adj := holm(p)
		alphas := []float64{0.001, 0.01, 0.05, 0.1, 0.2, 0.5}
		for i := range p {
			for j := 1; j <= m; j++ {
				alphas = append(alphas, p[i]*float64(j), math.Nextafter(p[i]*float64(j), 0))
			}
		}
		for _, a := range alphas {
			if a >= 1 {
				continue // adjusted values are capped at 1: at α 1 everything is "rejected"
			}
			rej := holmRejects(p, a)
			for i := range p {
				if (adj[i] <= a) != rej[i] {
					t.Fatalf("family %d, α %.17g: hypothesis %d (p %.17g, adjusted %.17g): adjusted ≤ α is %v, the procedure rejects: %v",
						f, a, i, p[i], adj[i], adj[i] <= a, rej[i])
				}
			}
		}
	}
}

// TestWilsonSolvesItsQuadratic: the Wilson limits are the roots of n·(p̂ − π)² = z²·π·(1 − π) (Wilson
// 1927), for 30 tables; and Newcombe's four examples ("Two-sided confidence intervals for the single
// proportion", Statistics in Medicine 1998, method 3, to the 4 places printed there).
func TestWilsonSolvesItsQuadratic(t *testing.T) {
	z := zQuantile(0.975)
	rng := rand.New(rand.NewPCG(29, 2))
	for range 30 {
		n := 1 + rng.IntN(2000)
		x := rng.IntN(n + 1)
		lo, hi := wilson(x, n, z)
		ph := float64(x) / float64(n)
		for _, pi := range []float64{lo, hi} {
			if pi <= 0 || pi >= 1 {
				continue // a limit clipped to 0 or 1 (x = 0 or x = n)
			}
			if r := float64(n)*(ph-pi)*(ph-pi) - z*z*pi*(1-pi); math.Abs(r) > 1e-9 {
				t.Fatalf("wilson(%d, %d) limit %.17g leaves %.3g in its quadratic", x, n, pi, r)
			}
		}
	}
	for _, c := range []struct {
		x, n   int
		lo, hi float64
	}{{81, 263, 0.2553, 0.3662}, {15, 148, 0.0624, 0.1605}, {0, 20, 0, 0.1611}, {1, 29, 0.0061, 0.1718}} {
		lo, hi := wilson(c.x, c.n, z)
		if math.Abs(lo-c.lo) > 5e-5 || math.Abs(hi-c.hi) > 5e-5 {
			t.Errorf("wilson(%d, %d) = %.4f, %.4f; want %.4f, %.4f", c.x, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

// newcombeByHand is the paired interval written from Newcombe's 1998 description (method 10) in its own
// order: the two marginal proportions' Wilson limits, the corrected phi, then the two distances.
func newcombeByHand(a, b, c, d int) (float64, float64) {
	n := float64(a + b + c + d)
	z := 1.959963984540054
	w := func(x float64) (float64, float64) {
		p := x / n
		r := math.Sqrt(z*z*p*(1-p)*n + z*z*z*z/4)
		return (x + z*z/2 - r) / (n + z*z), (x + z*z/2 + r) / (n + z*z)
	}
	p1, p2 := float64(a+b)/n, float64(a+c)/n
	l1, u1 := w(float64(a + b))
	l2, u2 := w(float64(a + c))
	A := float64(a+b) * float64(c+d) * float64(a+c) * float64(b+d)
	B := float64(a)*float64(d) - float64(b)*float64(c)
	C := 0.0
	if B > n/2 {
		C = B - n/2
	} else if B < 0 {
		C = B
	}
	phi := 0.0
	if A > 0 {
		phi = C / math.Sqrt(A)
	}
	D := p1 - p2
	lo := D - math.Sqrt((p1-l1)*(p1-l1)-2*phi*(p1-l1)*(u2-p2)+(u2-p2)*(u2-p2))
	hi := D + math.Sqrt((p2-l2)*(p2-l2)-2*phi*(p2-l2)*(u1-p1)+(u1-p1)*(u1-p1))
	return lo, hi
}

// TestNewcombePaired: a published worked example (Fagerland, Lydersen and Laake, "Statistical Analysis of
// Contingency Tables", 2017, chapter 8: complete response before and after consolidation therapy, Cavo et
// al. 2012, 59 6 / 16 80: −0.0621, 95% CI −0.1186 to −0.0046); the engine's interval equals the by-hand one
// on 40 seeded tables to 1e-12, and swapping the discordant cells mirrors it.
func TestNewcombePaired(t *testing.T) {
	z := zQuantile(0.975)
	if lo, hi := newcombePaired(59, 6, 16, 80, z); math.Round(lo*1e4) != -1186 || math.Round(hi*1e4) != -46 {
		t.Errorf("newcombePaired(59, 6, 16, 80) = [%.4f, %.4f], published [-0.1186, -0.0046]", lo, hi)
	}
	rng := rand.New(rand.NewPCG(29, 3))
	for range 40 {
		a, b, c, d := rng.IntN(200), rng.IntN(60), rng.IntN(60), rng.IntN(200)
		if a+b+c+d == 0 {
			continue
		}
		lo, hi := newcombePaired(a, b, c, d, z)
		wl, wh := newcombeByHand(a, b, c, d)
		if math.Abs(lo-wl) > 1e-12 || math.Abs(hi-wh) > 1e-12 {
			t.Fatalf("newcombePaired(%d, %d, %d, %d) = [%.15f, %.15f], by hand [%.15f, %.15f]", a, b, c, d, lo, hi, wl, wh)
		}
		ml, mh := newcombePaired(a, c, b, d, z)
		if math.Abs(ml+hi) > 1e-12 || math.Abs(mh+lo) > 1e-12 {
			t.Fatalf("swapping b and c: [%.15f, %.15f], want [%.15f, %.15f]", ml, mh, -hi, -lo)
		}
	}
}

// signFlipByRecursion counts the sign assignments of |d| whose sum is at most the observed sum, by
// recursion over the pairs.
func signFlipByRecursion(diffs []float64) float64 {
	obs := 0.0
	var abs []float64
	for _, d := range diffs {
		if d != 0 {
			abs = append(abs, math.Abs(d))
			obs += d
		}
	}
	if len(abs) == 0 {
		return 1
	}
	var count func(i int, s float64) int
	count = func(i int, s float64) int {
		if i == len(abs) {
			if s <= obs+1e-9*(1+math.Abs(obs)) {
				return 1
			}
			return 0
		}
		return count(i+1, s+abs[i]) + count(i+1, s-abs[i])
	}
	return float64(count(0, 0)) / math.Pow(2, float64(len(abs)))
}

// TestSignFlip: enumerated exactly up to 16 differing pairs, equal to the recursion each way (a rise is
// a drop of the negated differences); drawn beyond, within four standard errors of the exact value (20
// pairs, enumerated here), with magnitudes all distinct and with few that repeat (drawn a group at a time).
func TestSignFlip(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 4))
	neg := func(d []float64) []float64 {
		out := make([]float64, len(d))
		for i, x := range d {
			out[i] = -x
		}
		return out
	}
	for range 25 {
		n := 1 + rng.IntN(16)
		d := make([]float64, n)
		for i := range d {
			d[i] = math.Round((rng.Float64()-0.6)*100) / 100
		}
		down, up := signFlip(d, rng)
		if want := signFlipByRecursion(d); math.Abs(down-want) > 1e-12 {
			t.Fatalf("signFlip(%v) down = %g, exact %g", d, down, want)
		}
		if want := signFlipByRecursion(neg(d)); math.Abs(up-want) > 1e-12 {
			t.Fatalf("signFlip(%v) up = %g, exact %g", d, up, want)
		}
	}
	for _, tc := range []struct {
		name  string
		value func() float64
	}{
		{"distinct magnitudes", func() float64 { return math.Round((rng.Float64()-0.65)*1000) / 1000 }},
		{"a rubric's steps", func() float64 { return float64(rng.IntN(9)-5) / 4 }},
	} {
		d := make([]float64, 20)
		for i := range d {
			d[i] = tc.value()
		}
		down, up := signFlip(d, rand.New(rand.NewPCG(1, 1)))
		for _, c := range []struct {
			dir       string
			got, want float64
		}{{"down", down, signFlipByRecursion(d)}, {"up", up, signFlipByRecursion(neg(d))}} {
			// A direction stops after signFlipStop draws reach the observed sum: about signFlipStop/p draws.
			se := math.Sqrt(c.want * (1 - c.want) / min(signFlipResamples, signFlipStop/c.want))
			if math.Abs(c.got-c.want) > 4*se+1.0/signFlipResamples {
				t.Errorf("%s, 20 pairs %v: drawn p %s %g, exact %g (standard error %.2g)", tc.name, d, c.dir, c.got, c.want, se)
			}
		}
	}
}

// TestSignFlipSize: on 4,000 simulated graded keys of 30 pairs with no true difference (continuous
// scores, so no two sums tie), the share whose sign-flip p-value toward a drop is at most 0.05 is 5% within
// three standard errors, as is the share toward a rise: the sequential p-value keeps the test's size.
func TestSignFlipSize(t *testing.T) {
	rng := rand.New(rand.NewPCG(simSeed(t), 31))
	const keys, n = 4000, 30
	down, up := 0, 0
	d := make([]float64, n)
	for range keys {
		for i := range d {
			d[i] = rng.Float64() - rng.Float64()
		}
		pd, pu := signFlip(d, rng)
		if pd <= 0.05 {
			down++
		}
		if pu <= 0.05 {
			up++
		}
	}
	se := math.Sqrt(0.05 * 0.95 / keys)
	for _, c := range []struct {
		dir string
		n   int
	}{{"down", down}, {"up", up}} {
		if share := float64(c.n) / keys; math.Abs(share-0.05) > 3*se {
			t.Errorf("%s: %.2f%% of null keys at p ≤ 0.05, want 5%% ± %.2f", c.dir, 100*share, 300*se)
		}
	}
	t.Logf("null keys at p ≤ 0.05: %.2f%% down, %.2f%% up", 100*float64(down)/keys, 100*float64(up)/keys)
}

// TestDetectableDrop: the drop reported has the stated power by the same approximation, and shrinks as
// the pairs grow.
func TestDetectableDrop(t *testing.T) {
	prev := 1.0
	for _, n := range []int{10, 50, 100, 500, 2000, 10000} {
		d := detectableDrop(n, 0.2, 0.05)
		if d > prev {
			t.Errorf("n %d: detectable drop %g, more than %g at fewer pairs", n, d, prev)
		}
		prev = d
		if d < 1 {
			qq := max(0.2, d)
			pw := normalCDF((d*math.Sqrt(float64(n)) - zQuantile(0.95)*math.Sqrt(qq)) / math.Sqrt(qq-d*d))
			if math.Abs(pw-detectablePower) > 1e-6 {
				t.Errorf("n %d: power at the detectable drop %g is %g", n, d, pw)
			}
		}
	}
	if d := detectableDrop(500, 0.2, 0.05); d > 0.1 {
		t.Errorf("500 pairs, 20%% discordant: detectable drop %g, want at most 10 points", d)
	}
}
