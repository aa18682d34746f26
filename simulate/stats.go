// stats.go: summaries of repeated runs of a scenario: pass^k and the Wilson interval of the pass rate.

package simulate

import "math"

// PassHatK is pass^k as tau-bench defines it: the chance that k runs drawn without replacement from n
// runs, c of which passed, all pass: C(c,k)/C(n,k). It is computed as the product of (c−i)/(n−i) for
// i < k, which never forms the large binomials. k outside 1..n gives 0.
func PassHatK(n, c, k int) float64 {
	if k < 1 || k > n || c < 0 || c > n {
		return 0
	}
	p := 1.0
	for i := range k {
		if c-i <= 0 {
			return 0
		}
		p *= float64(c-i) / float64(n-i)
	}
	return p
}

// z95 is the two-sided 95% quantile of the standard normal distribution.
const z95 = 1.959963984540054

// Wilson returns the Wilson score interval at 95% for c passes out of n runs (Wilson 1927): unlike the
// normal approximation it stays inside [0, 1] and is not empty at c = 0 or c = n. n = 0 gives [0, 1].
func Wilson(n, c int) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	p, nf, z2 := float64(c)/float64(n), float64(n), z95*z95
	den := 1 + z2/nf
	center := (p + z2/(2*nf)) / den
	half := z95 * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / den
	return max(0, center-half), min(1, center+half)
}

// Summary is the per-scenario summary of repeated runs.
type Summary struct {
	N, Passes int
	PassHatK  []float64 // index k−1 holds pass^k, for k = 1..N
	WilsonLo  float64
	WilsonHi  float64
}

// Summarize computes the summary of n runs with c passes.
func Summarize(n, c int) Summary {
	s := Summary{N: n, Passes: c}
	// pass^k = pass^(k−1)·(c−k+1)/(n−k+1): linear in n, and equal to PassHatK term by term.
	p := 1.0
	for k := 1; k <= n; k++ {
		if c-k+1 <= 0 {
			p = 0
		} else {
			p *= float64(c-k+1) / float64(n-k+1)
		}
		s.PassHatK = append(s.PassHatK, p)
	}
	s.WilsonLo, s.WilsonHi = Wilson(n, c)
	return s
}
