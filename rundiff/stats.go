// stats.go: the tests and intervals diff decides with: exact binomial tails, McNemar's mid-p, Holm, Wilson,
// Newcombe's paired interval, the sign-flip test and the smallest detectable change.

package rundiff

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// stirlerr is ln(n!) − ((n+½)·ln n − n + ln √(2π)), the error of Stirling's formula, for n ≥ 1: from n!
// itself up to 15 (exact in a float64 up to 22!), else from the asymptotic series, whose next term is below
// 1e-17 from there on (Loader, "Fast and accurate computation of binomial probabilities", 2000).
func stirlerr(n float64) float64 {
	if n <= 15 {
		f := 1.0
		for i := 2.0; i <= n; i++ {
			f *= i
		}
		return math.Log(f) - ((n+0.5)*math.Log(n) - n + 0.5*math.Log(2*math.Pi))
	}
	const s0, s1, s2, s3, s4 = 1.0 / 12, 1.0 / 360, 1.0 / 1260, 1.0 / 1680, 1.0 / 1188
	n2 := n * n
	switch {
	case n > 500:
		return (s0 - s1/n2) / n
	case n > 80:
		return (s0 - (s1-s2/n2)/n2) / n
	case n > 35:
		return (s0 - (s1-(s2-s3/n2)/n2)/n2) / n
	}
	return (s0 - (s1-(s2-(s3-s4/n2)/n2)/n2)/n2) / n
}

// bd0 is x·ln(x/m) + m − x, computed without cancellation when x is near m (Loader's series in
// v = (x−m)/(x+m)).
func bd0(x, m float64) float64 {
	if math.Abs(x-m) >= 0.1*(x+m) {
		return x*math.Log(x/m) + m - x
	}
	v := (x - m) / (x + m)
	s := (x - m) * v
	ej := 2 * x * v
	for j := 1; j < 1000; j++ {
		ej *= v * v
		s1 := s + ej/float64(2*j+1)
		if s1 == s {
			return s1
		}
		s = s1
	}
	return s
}

// halfPMF is P(X = k) for X ~ Binomial(n, ½), to about 1e-15 relative: Loader's saddle-point form,
// exp(stirlerr(n) − stirlerr(k) − stirlerr(n−k) − bd0(k, n/2) − bd0(n−k, n/2)) · √(n / (2π·k·(n−k))).
func halfPMF(k, n int) float64 {
	if k < 0 || k > n {
		return 0
	}
	if k == 0 || k == n {
		return math.Ldexp(1, -n)
	}
	fn, fk, fr := float64(n), float64(k), float64(n-k)
	e := stirlerr(fn) - stirlerr(fk) - stirlerr(fr) - bd0(fk, fn/2) - bd0(fr, fn/2)
	return math.Exp(e) * math.Sqrt(fn/(2*math.Pi*fk*fr))
}

// halfCDF is P(X ≤ k) for X ~ Binomial(n, ½): the terms from k down, each from the one above by
// P(X = i−1) = P(X = i) · i / (n−i+1), until they no longer change the sum.
func halfCDF(k, n int) float64 {
	if k < 0 {
		return 0
	}
	if k >= n {
		return 1
	}
	if 2*k > n { // the upper tail is the shorter sum: P(X ≤ k) = 1 − P(X ≤ n−k−1) by symmetry
		return 1 - halfCDF(n-k-1, n)
	}
	term := halfPMF(k, n)
	sum := 0.0
	for i := k; i >= 0 && term > 0; i-- {
		sum += term
		if term < sum*1e-17 {
			break
		}
		term *= float64(i) / float64(n-i+1)
	}
	return sum
}

// mcnemarMidP is the one-sided mid-p of McNemar's exact conditional test that the pairs moved toward the
// side with `toward` of the d discordant pairs: P(X > toward) + ½·P(X = toward), X ~ Binomial(d, ½)
// (Lancaster's mid-p; Fagerland, Lydersen and Laake 2013 recommend it over the exact p, whose size falls
// well below α). With no discordant pair it is ½: nothing moved either way.
func mcnemarMidP(toward, d int) float64 {
	// P(X > t) = P(X ≤ d−t−1) by symmetry.
	return halfCDF(d-toward-1, d) + 0.5*halfPMF(toward, d)
}

// holm adjusts p-values for the family they form (Holm 1979): sorted ascending, the i-th (from 0) of m is
// multiplied by m−i, each adjusted value is at least the one before, and none exceeds 1. A hypothesis is
// rejected at level α when its adjusted value is at most α; the family-wise error rate is then at most α.
func holm(p []float64) []float64 {
	m := len(p)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	adj := make([]float64, m)
	run := 0.0
	for i, j := range idx {
		run = max(run, min(1, float64(m-i)*p[j]))
		adj[j] = run
	}
	return adj
}

// zQuantile is the standard normal quantile Φ⁻¹(q).
func zQuantile(q float64) float64 { return math.Sqrt2 * math.Erfinv(2*q-1) }

// normalCDF is Φ(x).
func normalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// wilson is the Wilson score interval of x successes in n trials at normal quantile z.
func wilson(x, n int, z float64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	fn := float64(n)
	p := float64(x) / fn
	z2 := z * z
	den := 1 + z2/fn
	center := (p + z2/(2*fn)) / den
	half := z * math.Sqrt(p*(1-p)/fn+z2/(4*fn*fn)) / den
	return max(0, center-half), min(1, center+half)
}

// newcombePaired is Newcombe's interval (1998, paired data, method 10) for the difference of two paired
// proportions p1 − p2, from the 2×2 table of n pairs: a both succeed, b only the first, c only the
// second, d neither. Each proportion gets its Wilson interval, and the two are combined with the pairs'
// correlation φ, taken as 0 unless the table's ad − bc exceeds n/2 (then reduced by n/2) or is negative.
func newcombePaired(a, b, c, d int, z float64) (lo, hi float64) {
	n := a + b + c + d
	if n == 0 {
		return -1, 1
	}
	fn := float64(n)
	p1, p2 := float64(a+b)/fn, float64(a+c)/fn
	l1, u1 := wilson(a+b, n, z)
	l2, u2 := wilson(a+c, n, z)
	phi := 0.0
	if den := float64(a+b) * float64(c+d) * float64(a+c) * float64(b+d); den > 0 {
		num := float64(a)*float64(d) - float64(b)*float64(c)
		switch {
		case num > fn/2:
			phi = (num - fn/2) / math.Sqrt(den)
		case num < 0:
			phi = num / math.Sqrt(den)
		}
	}
	diff := p1 - p2
	dl := math.Sqrt(max(0, (p1-l1)*(p1-l1)-2*phi*(p1-l1)*(u2-p2)+(u2-p2)*(u2-p2)))
	du := math.Sqrt(max(0, (u1-p1)*(u1-p1)-2*phi*(u1-p1)*(p2-l2)+(p2-l2)*(p2-l2)))
	return max(-1, diff-dl), min(1, diff+du)
}

// signFlipResamples is how many random sign assignments the score test draws at most when the pairs are
// too many to enumerate (more than exactFlips); a direction stops drawing once signFlipStop of its draws
// have reached the observed sum (Besag and Clifford's sequential p-value).
const (
	signFlipResamples = 20_000
	signFlipStop      = 50
	exactFlips        = 16
)

// signFlip is the paired sign-flip (permutation) test on the score differences, one-sided each way from
// the same sign assignments of |diffs|: down is the share whose sum is at most the observed sum (the
// p-value of a drop in mean score), up the share whose sum is at least it (of a rise). With at most
// exactFlips non-zero diffs every assignment is enumerated. Beyond, sign assignments are drawn from rng,
// and each direction is Besag and Clifford's sequential Monte Carlo p-value (Biometrika 78, 1991): the
// draws stop once signFlipStop of them have reached the observed sum (at least as low, for down; as high,
// for up), p = signFlipStop / draws; else after signFlipResamples, p = (1 + count) / (1 + resamples). It is
// a valid p-value as the fixed-count one is (its size never exceeds α), and a key with no change stops
// after about 2·signFlipStop draws where it took 20,000: only a small p-value, the one a verdict turns on,
// costs the whole count.
//
// A draw costs one random bit per pair, but the sum over the c pairs whose |diff| is the same v is
// v·(c − 2·B), B the number of minus signs among them: the ones in c random bits, counted a word at a
// time. Graded scores take few values (a judge's rubric), so a draw costs about pairs/64 words, not pairs.
// Magnitudes that occur a few times go together, their signed sum looked up from their bits (flipSteps).
func signFlip(diffs []float64, rng *rand.Rand) (down, up float64) {
	abs := make([]float64, 0, len(diffs))
	obs, total := 0.0, 0.0
	for _, d := range diffs {
		if d != 0 {
			abs = append(abs, math.Abs(d))
			obs += d
			total += math.Abs(d)
		}
	}
	if len(abs) == 0 {
		return 1, 1 // no pair moved: nothing suggests a change
	}
	// The sums are compared with a tolerance: a permuted sum equal to the observed one in exact arithmetic
	// may differ from it in the last bits of sums as large as the magnitudes' total.
	tol := 1e-9 * (1 + total)
	if len(abs) <= exactFlips {
		le, ge, n := 0, 0, 1<<len(abs)
		for mask := range n {
			s := 0.0
			for i, a := range abs {
				if mask&(1<<i) != 0 {
					s -= a
				} else {
					s += a
				}
			}
			if s <= obs+tol {
				le++
			}
			if s >= obs-tol {
				ge++
			}
		}
		return float64(le) / float64(n), float64(ge) / float64(n)
	}
	steps, sums := flipSteps(abs)
	le, ge := 0, 0
	leAt, geAt := 0, 0 // the draws after which a direction stopped, 0 while it draws
	var word uint64
	left := 0 // unused bits in word, its low bits
	for draw := 1; draw <= signFlipResamples && (leAt == 0 || geAt == 0); draw++ {
		s := 0.0
		for _, st := range steps {
			if w := int(st.width); w > 0 { // its bits' signed sum, looked up
				var m uint64
				if left >= w {
					m, word, left = word&(1<<w-1), word>>w, left-w
				} else {
					need := w - left
					next := rng.Uint64()
					m, word, left = word|(next&(1<<need-1))<<left, next>>need, 64-need
				}
				s += sums[int(st.at)+int(m)]
				continue
			}
			c, minus := st.count, 0
			for c > 0 {
				if left == 0 {
					word, left = rng.Uint64(), 64
				}
				k := min(c, left)
				if k == 64 {
					minus += bits.OnesCount64(word)
					word = 0
				} else {
					minus += bits.OnesCount64(word & (1<<k - 1))
					word >>= k
				}
				left -= k
				c -= k
			}
			s += st.v * float64(st.count-2*minus)
		}
		if leAt == 0 && s <= obs+tol {
			if le++; le == signFlipStop {
				leAt = draw
			}
		}
		if geAt == 0 && s >= obs-tol {
			if ge++; ge == signFlipStop {
				geAt = draw
			}
		}
	}
	p := func(count, at int) float64 {
		if at > 0 {
			return float64(signFlipStop) / float64(at)
		}
		return float64(1+count) / float64(1+signFlipResamples)
	}
	return p(le, leAt), p(ge, geAt)
}

// flipBits is the most random bits one table step of a sign-flip draw takes (flipSteps): its signed sums
// are made once, 2^flipBits of them at most, and a draw looks one up from its bits.
const flipBits = 4

// flipStep is one step of a sign-flip draw. A table step (width > 0) takes width bits, and its sum is
// sums[at + the bits]; any other is count magnitudes v, drawn together (count random bits, their sum v
// times the signs' balance).
type flipStep struct {
	v     float64
	count int
	at    int32
	width uint8
}

// flipSteps lays out a draw over magnitudes abs (sorted here): a step for each distinct magnitude, in
// ascending order, but magnitudes in a row that together occur at most flipBits times as one step that
// takes their bits at once and looks up its signed sum (bit i set: the i-th of its pairs subtracted). The
// bits a draw takes, and which pair each signs, are those of one step a magnitude, and each magnitude's
// term v·(count − 2·minus) is the same; only the order in which a draw's sum adds them differs, in its
// last bits, which the comparison's tolerance absorbs. Magnitudes that occur once or twice are common,
// even for a rubric's few scores (0.7 − 0.3 and 0.9 − 0.5 differ in floating point), and a step of four
// costs about what one did.
func flipSteps(abs []float64) (steps []flipStep, sums []float64) {
	slices.Sort(abs)
	var groups []flipStep
	for i, a := range abs {
		if i > 0 && a == abs[i-1] {
			groups[len(groups)-1].count++
			continue
		}
		groups = append(groups, flipStep{v: a, count: 1})
	}
	for i := 0; i < len(groups); {
		if groups[i].count > flipBits {
			steps = append(steps, groups[i])
			i++
			continue
		}
		j, width := i, 0
		for j < len(groups) && width+groups[j].count <= flipBits {
			width += groups[j].count
			j++
		}
		steps = append(steps, flipStep{at: int32(len(sums)), width: uint8(width)})
		for m := range 1 << width {
			sum, bit := 0.0, 0
			for _, g := range groups[i:j] {
				minus := bits.OnesCount(uint(m>>bit) & (1<<g.count - 1))
				sum += g.v * float64(g.count-2*minus)
				bit += g.count
			}
			sums = append(sums, sum)
		}
		i = j
	}
	return steps, sums
}

// detectablePower is the power at which diff states the smallest change the data could have detected.
const detectablePower = 0.8

// detectableDrop is the smallest drop in pass rate that a one-sided test at level alpha would detect with
// power detectablePower over n pairs whose discordant share is q (under the null, half each way), by the
// normal approximation to McNemar's test: the δ solving Φ((δ√n − z₁₋α·√q′) / √(q′ − δ²)) = power with
// q′ = max(q, δ) (a drop of δ needs at least that share of discordant pairs). 1 when even a drop of every
// pair would not be detected.
func detectableDrop(n int, q, alpha float64) float64 {
	if n == 0 {
		return 1
	}
	za := zQuantile(1 - alpha)
	power := func(delta float64) float64 {
		qq := max(q, delta)
		v := qq - delta*delta
		if v <= 0 {
			return 1
		}
		return normalCDF((delta*math.Sqrt(float64(n)) - za*math.Sqrt(qq)) / math.Sqrt(v))
	}
	if power(1) < detectablePower {
		return 1
	}
	lo, hi := 0.0, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if power(mid) >= detectablePower {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// detectableScoreDrop is the smallest drop in mean score a one-sided test at level alpha would detect
// with power detectablePower over n pairs whose differences have standard deviation sd (normal
// approximation): (z₁₋α + z_power)·sd/√n. Infinite with no pair.
func detectableScoreDrop(n int, sd, alpha float64) float64 {
	if n == 0 {
		return math.Inf(1)
	}
	return (zQuantile(1-alpha) + zQuantile(detectablePower)) * sd / math.Sqrt(float64(n))
}
