// alpha.go: Krippendorff's α over a coincidence matrix, for any number of raters and missing values.

package agreement

import (
	"math"
	"slices"
)

// Metric is the level of measurement of Alpha's values.
type Metric int

// Metrics of Krippendorff's α. Wire-free, but explicit anyway.
const (
	Nominal  Metric = 1
	Ordinal  Metric = 2
	Interval Metric = 3
	Ratio    Metric = 4
)

// Alpha is Krippendorff's α of units[u][r], the value rater r gave unit u,
// NaN when the rater gave none. Units with fewer than two values are not
// pairable and are left out, as the method prescribes. Values are compared
// exactly; with the ordinal metric their order is their numeric order.
func Alpha(units [][]float64, metric Metric) float64 {
	// The values that occur in pairable units, sorted.
	var vals []float64
	for _, u := range units {
		if pairable(u) {
			for _, v := range u {
				if !math.IsNaN(v) {
					vals = append(vals, v)
				}
			}
		}
	}
	slices.Sort(vals)
	vals = slices.Compact(vals)
	idx := func(v float64) int { i, _ := slices.BinarySearch(vals, v); return i }
	k := len(vals)
	if k == 0 {
		return 0
	}
	// The coincidence matrix: each ordered pair of values of a unit adds
	// 1/(m_u − 1), m_u the number of values in the unit.
	o := make([][]float64, k)
	for i := range o {
		o[i] = make([]float64, k)
	}
	for _, u := range units {
		if !pairable(u) {
			continue
		}
		m := 0
		for _, v := range u {
			if !math.IsNaN(v) {
				m++
			}
		}
		for a, va := range u {
			if math.IsNaN(va) {
				continue
			}
			for b, vb := range u {
				if a == b || math.IsNaN(vb) {
					continue
				}
				o[idx(va)][idx(vb)] += 1 / float64(m-1)
			}
		}
	}
	nc := make([]float64, k)
	var n float64
	for c := range k {
		for d := range k {
			nc[c] += o[c][d]
		}
		n += nc[c]
	}
	delta := func(c, d int) float64 {
		switch metric {
		case Ordinal:
			lo, hi := min(c, d), max(c, d)
			s := 0.0
			for g := lo; g <= hi; g++ {
				s += nc[g]
			}
			s -= (nc[c] + nc[d]) / 2
			return s * s
		case Interval:
			x := vals[c] - vals[d]
			return x * x
		case Ratio:
			if vals[c]+vals[d] == 0 {
				return 0
			}
			x := (vals[c] - vals[d]) / (vals[c] + vals[d])
			return x * x
		}
		if c == d {
			return 0
		}
		return 1
	}
	var obs, exp float64
	for c := range k {
		for d := range k {
			dd := delta(c, d)
			obs += o[c][d] * dd
			exp += nc[c] * nc[d] * dd
		}
	}
	// α = 1 − D_o/D_e with D_o = Σ o δ / n and D_e = Σ n_c n_k δ / (n(n − 1)).
	return chanceCorrected(obs, exp/(n-1))
}

// pairable reports whether a unit holds at least two values.
func pairable(u []float64) bool {
	m := 0
	for _, v := range u {
		if !math.IsNaN(v) {
			m++
		}
	}
	return m >= 2
}
