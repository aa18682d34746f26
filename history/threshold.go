// threshold.go: a threshold learned from history ("threshold": "dynamic").

package history

import (
	"errors"
	"fmt"
	"math"
)

// atResolution lowers a threshold computed from n scores held to the
// history's resolution (scoreUnit) by the most that rounding can have
// raised it, and rounds it down to that resolution. Each score is held
// within half a unit of its value, so the mean may read up to half a unit
// high and the standard deviation up to half a unit × √(n/(n−1)) low: a
// score equal to its whole history (30 results of 0.6274415180425912,
// held as 0.627442) is never below the threshold learned from it, and a
// score lower by more than the history can resolve still is.
func atResolution(thr float64, n uint64) float64 {
	slack := 0.5
	if n > 1 {
		slack += DynamicSigmas * 0.5 * math.Sqrt(float64(n)/float64(n-1))
	}
	return math.Floor(thr*scoreUnit-slack) / scoreUnit
}

// ErrNoHistory: a dynamic threshold was asked of an assertion with too few
// earlier scored results.
var ErrNoHistory = errors.New("not enough history")

// DynamicSigmas: a dynamic threshold is the reference mean minus this many
// standard deviations.
const DynamicSigmas = 2

// Threshold learns a pass threshold for key from its history: the mean
// score minus DynamicSigmas standard deviations, clamped to 0..1, over the
// key's baseline (its first BaselineN scored results) or, while that is
// incomplete, over all its results so far — never over the recent windows,
// which may be the drift being judged. It needs at least MinN scored
// results; with fewer the error wraps ErrNoHistory.
func (s *Store) Threshold(key string) (float64, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cfg := s.opts.Drift
	var ref Summary
	if sr := s.keys[key]; sr != nil {
		for i := range sr.Windows {
			if ref.Scored() >= uint64(cfg.BaselineN) {
				break
			}
			ref.Merge(&sr.Windows[i])
		}
	}
	if n := ref.Scored(); n < uint64(cfg.MinN) {
		return 0, "", fmt.Errorf("%w: assertion %q has %d earlier scored results, a dynamic threshold needs %d", ErrNoHistory, key, n, cfg.MinN)
	}
	m, sd := ref.Mean(), ref.StdDev()
	thr := math.Min(1, math.Max(0, atResolution(m-DynamicSigmas*sd, ref.Scored())))
	return thr, fmt.Sprintf("dynamic threshold %.4f = mean %.4f − %d × sd %.4f over %d earlier results", thr, m, DynamicSigmas, sd, ref.Scored()), nil
}
