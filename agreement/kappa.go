// kappa.go: confusion tables, accuracy, Cohen's κ (plain and quadratic-weighted), Fleiss' κ and the majority baseline.

package agreement

// Confusion counts pairs (truth[i], pred[i]) of categories 0..k−1 into a
// k×k table, truth by row. Pairs outside 0..k−1 are not counted.
func Confusion(truth, pred []int, k int) [][]int {
	m := make([][]int, k)
	for i := range m {
		m[i] = make([]int, k)
	}
	for i := range min(len(truth), len(pred)) {
		t, p := truth[i], pred[i]
		if t >= 0 && t < k && p >= 0 && p < k {
			m[t][p]++
		}
	}
	return m
}

// total is the sum of a table's cells.
func total(m [][]int) int {
	n := 0
	for _, row := range m {
		for _, c := range row {
			n += c
		}
	}
	return n
}

// Accuracy is the share of a confusion table on its diagonal; 0 when empty.
func Accuracy(m [][]int) float64 {
	n := total(m)
	if n == 0 {
		return 0
	}
	d := 0
	for i := range m {
		d += m[i][i]
	}
	return float64(d) / float64(n)
}

// CohenKappa is Cohen's κ of a square confusion table.
func CohenKappa(m [][]int) float64 {
	return weighted(m, func(i, j int) float64 {
		if i == j {
			return 0
		}
		return 1
	})
}

// WeightedKappa is Cohen's κ with quadratic disagreement weights (i − j)²
// for ordinal categories 0..k−1.
func WeightedKappa(m [][]int) float64 {
	return weighted(m, func(i, j int) float64 { return float64((i - j) * (i - j)) })
}

// weighted is 1 − Σ w·observed / Σ w·expected, the expected counts from the
// table's marginals: Cohen's κ for 0/1 weights, since then it equals
// (p_o − p_e)/(1 − p_e).
func weighted(m [][]int, w func(i, j int) float64) float64 {
	n := float64(total(m))
	if n == 0 {
		return 0
	}
	k := len(m)
	rows, cols := make([]float64, k), make([]float64, k)
	for i := range k {
		for j := range k {
			rows[i] += float64(m[i][j])
			cols[j] += float64(m[i][j])
		}
	}
	var obs, exp float64
	for i := range k {
		for j := range k {
			obs += w(i, j) * float64(m[i][j])
			exp += w(i, j) * rows[i] * cols[j] / n
		}
	}
	return chanceCorrected(obs, exp)
}

// chanceCorrected is 1 − observed/expected disagreement, with the
// degenerate case defined: no disagreement expected by chance (every
// rating the same category) is 1 when none was observed, else 0.
func chanceCorrected(obs, exp float64) float64 {
	if exp == 0 {
		if obs == 0 {
			return 1
		}
		return 0
	}
	return 1 - obs/exp
}

// FleissKappa is Fleiss' κ of counts[s][c], the number of raters who put
// subject s in category c; every subject must have the same categories and
// the same number of raters (at least 2), and no count may be negative,
// else the result is 0.
func FleissKappa(counts [][]int) float64 {
	if len(counts) == 0 {
		return 0
	}
	raters := 0
	for _, c := range counts[0] {
		raters += c
	}
	if raters < 2 {
		return 0
	}
	k := len(counts[0])
	pj := make([]float64, k)
	var pbar float64
	for _, row := range counts {
		if len(row) != k {
			return 0
		}
		sum, sq := 0, 0
		for j, c := range row {
			if c < 0 {
				return 0
			}
			sum += c
			sq += c * c
			pj[j] += float64(c)
		}
		if sum != raters {
			return 0
		}
		pbar += float64(sq-raters) / float64(raters*(raters-1))
	}
	N := float64(len(counts))
	pbar /= N
	var pe float64
	for j := range pj {
		p := pj[j] / (N * float64(raters))
		pe += p * p
	}
	if pe == 1 {
		if pbar == 1 {
			return 1
		}
		return 0
	}
	return (pbar - pe) / (1 - pe)
}

// MajorityBaseline is the accuracy of always predicting the most frequent
// of the true labels (categories 0..k−1): the share of that label.
func MajorityBaseline(truth []int) float64 {
	if len(truth) == 0 {
		return 0
	}
	counts := map[int]int{}
	best := 0
	for _, t := range truth {
		counts[t]++
		best = max(best, counts[t])
	}
	return float64(best) / float64(len(truth))
}
