// summary.go: per (assertion, window) summaries in exact integer arithmetic,
// so that merging is associative and commutative bit for bit.

package history

import (
	"math"
	"math/bits"
)

// HistBins is the number of fixed histogram bins over scores 0..1: bin i
// holds scores in [i/10, (i+1)/10), the last bin also 1.0.
const HistBins = 10

// scoreUnit is the fixed-point scale of score sums: scores are summed in
// millionths, exactly. Floating-point sums would depend on the order of
// addition, and drift from merged shards must equal drift from one process.
const scoreUnit = 1e6

// Summary aggregates the results of one assertion in one window. Scores
// count only for pass and fail results (soft_fail, hard_fail); errors and
// skipped results are counted and otherwise ignored.
type Summary struct {
	Window  int64  `json:"window"`
	Passes  uint64 `json:"passes"`
	Fails   uint64 `json:"fails"`
	Errors  uint64 `json:"errors"`
	Skipped uint64 `json:"skipped"`
	// Fractional counts scores strictly between 0 and 1: a key with any is
	// a scored assertion and gets the mean-shift test as well.
	Fractional uint64 `json:"fractional"`
	// ScoreSum is Σ score in millionths; ScoreSq is Σ (score in
	// millionths)², 128 bits as [high, low].
	ScoreSum uint64           `json:"score_sum"`
	ScoreSq  [2]uint64        `json:"score_sq"`
	Hist     [HistBins]uint64 `json:"hist"`
}

// N is the number of results in the summary.
func (s *Summary) N() uint64 { return s.Passes + s.Fails + s.Errors + s.Skipped }

// Scored is the number of results with a pass/fail outcome and a score.
func (s *Summary) Scored() uint64 { return s.Passes + s.Fails }

// add counts one result.
func (s *Summary) add(st Status, score float64) {
	switch st {
	case Pass:
		s.Passes++
	case SoftFail, HardFail:
		s.Fails++
	case Error:
		s.Errors++
		return
	default:
		s.Skipped++
		return
	}
	q := uint64(math.Round(score * scoreUnit))
	s.ScoreSum += q
	hi, lo := bits.Mul64(q, q)
	var c uint64
	s.ScoreSq[1], c = bits.Add64(s.ScoreSq[1], lo, 0)
	s.ScoreSq[0] += hi + c
	if score > 0 && score < 1 {
		s.Fractional++
	}
	s.Hist[min(int(score*HistBins), HistBins-1)]++
}

// sub takes back one result add counted: a verdict superseded.
func (s *Summary) sub(st Status, score float64) {
	var o Summary
	o.add(st, score)
	s.Passes -= o.Passes
	s.Fails -= o.Fails
	s.Errors -= o.Errors
	s.Skipped -= o.Skipped
	s.Fractional -= o.Fractional
	s.ScoreSum -= o.ScoreSum
	var b uint64
	s.ScoreSq[1], b = bits.Sub64(s.ScoreSq[1], o.ScoreSq[1], 0)
	s.ScoreSq[0] -= o.ScoreSq[0] + b
	for i := range s.Hist {
		s.Hist[i] -= o.Hist[i]
	}
}

// Merge adds o's counts to s (the windows are assumed equal).
func (s *Summary) Merge(o *Summary) {
	s.Passes += o.Passes
	s.Fails += o.Fails
	s.Errors += o.Errors
	s.Skipped += o.Skipped
	s.Fractional += o.Fractional
	s.ScoreSum += o.ScoreSum
	var c uint64
	s.ScoreSq[1], c = bits.Add64(s.ScoreSq[1], o.ScoreSq[1], 0)
	s.ScoreSq[0] += o.ScoreSq[0] + c
	for i := range s.Hist {
		s.Hist[i] += o.Hist[i]
	}
}

// Mean is the mean score (0 with no scored result).
func (s *Summary) Mean() float64 {
	if s.Scored() == 0 {
		return 0
	}
	return float64(s.ScoreSum) / scoreUnit / float64(s.Scored())
}

// StdDev is the sample standard deviation of the scores.
func (s *Summary) StdDev() float64 {
	n := float64(s.Scored())
	if n < 2 {
		return 0
	}
	sq := (float64(s.ScoreSq[0])*0x1p64 + float64(s.ScoreSq[1])) / (scoreUnit * scoreUnit)
	sum := float64(s.ScoreSum) / scoreUnit
	v := (sq - sum*sum/n) / (n - 1)
	if v < 0 {
		v = 0
	}
	return math.Sqrt(v)
}

// PassRate is passes / (passes + fails), 0 with none.
func (s *Summary) PassRate() float64 {
	if s.Scored() == 0 {
		return 0
	}
	return float64(s.Passes) / float64(s.Scored())
}

// Wilson is the 95% Wilson score interval of the pass rate.
func (s *Summary) Wilson() [2]float64 {
	return wilson(s.Passes, s.Scored())
}

func wilson(k, n uint64) [2]float64 {
	if n == 0 {
		return [2]float64{0, 1}
	}
	const z = 1.959963984540054
	nf, p := float64(n), float64(k)/float64(n)
	d := 1 + z*z/nf
	c := (p + z*z/(2*nf)) / d
	h := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / d
	return [2]float64{math.Max(0, c-h), math.Min(1, c+h)}
}
