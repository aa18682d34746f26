// bootstrap.go: seeded percentile bootstrap intervals over resampled items.

package agreement

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Bootstrap is the percentile bootstrap 95% interval of stat over n items:
// replicates resamples of n item indexes drawn with replacement from a PCG
// seeded with (seed, n), stat computed on each, and the 2.5th and 97.5th
// percentiles of the results (linear interpolation between order
// statistics, the "type 7" rule). It is a pure function of its arguments:
// the same seed gives the same interval. NaN results of stat are dropped;
// with none left, or n or replicates below 1, the interval is [NaN, NaN].
func Bootstrap(n, replicates int, seed uint64, stat func(idx []int) float64) (lo, hi float64) {
	if n < 1 || replicates < 1 {
		return math.NaN(), math.NaN()
	}
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	idx := make([]int, n)
	res := make([]float64, 0, replicates)
	for range replicates {
		for i := range idx {
			idx[i] = rng.IntN(n)
		}
		if v := stat(idx); !math.IsNaN(v) {
			res = append(res, v)
		}
	}
	if len(res) == 0 {
		return math.NaN(), math.NaN()
	}
	slices.Sort(res)
	return Quantile(res, 0.025), Quantile(res, 0.975)
}

// Quantile is the p-quantile of sorted values by linear interpolation
// between order statistics (Hyndman and Fan's type 7, R's default).
func Quantile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	h := p * float64(len(sorted)-1)
	i := int(math.Floor(h))
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}
