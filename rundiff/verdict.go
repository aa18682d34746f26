// verdict.go: from each assertion key's pairs to its tests, Holm's adjustment across keys, and a verdict.

package rundiff

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// Verdicts of an assertion key.
const (
	Regressed    = "regressed"
	Improved     = "improved"
	Unchanged    = "unchanged"
	Underpowered = "underpowered"
)

// Options are diff's settings.
type Options struct {
	Alpha      float64 // the family-wise error rate of each direction's family of tests (0.05)
	Detectable float64 // the drop in pass rate the data must be able to show for "unchanged" (0.10)
	Seed       uint64  // the sign-flip test's draws
}

// KeyResult is one assertion key's comparison.
type KeyResult struct {
	AssertionKey string `json:"assertion_key"`
	Label        string `json:"label"`
	Type         string `json:"type,omitempty"`
	Verdict      string `json:"verdict"`
	Pairs        int    `json:"pairs"`
	// The 2×2 table of the comparable pairs.
	BothPass     int `json:"both_pass"`
	Regressions  int `json:"pass_to_fail"`
	Improvements int `json:"fail_to_pass"`
	BothFail     int `json:"both_fail"`
	// Pass rates, and the head's minus the base's with Newcombe's 95% interval.
	BasePassRate float64    `json:"base_pass_rate"`
	HeadPassRate float64    `json:"head_pass_rate"`
	PassRateDiff float64    `json:"pass_rate_diff"`
	PassRateCI   [2]float64 `json:"pass_rate_ci95"`
	// McNemar's one-sided mid-p toward a regression and toward an improvement, and Holm's adjusted values
	// of the key's hypotheses (its smallest in each direction).
	PRegression       float64 `json:"p_regression"`
	PImprovement      float64 `json:"p_improvement"`
	MeanScoreDiff     float64 `json:"mean_score_diff"`
	Graded            bool    `json:"graded"`
	PScoreRegression  float64 `json:"p_score_regression,omitempty"`
	PScoreImprovement float64 `json:"p_score_improvement,omitempty"`
	AdjRegression     float64 `json:"holm_regression"`
	AdjImprovement    float64 `json:"holm_improvement"`
	// The smallest drop the data could have shown (power 0.8) at Holm's first step (Alpha over the
	// hypotheses tested): in pass rate, and in mean score.
	DetectableDrop      float64 `json:"detectable_drop"`
	DetectableScoreDrop float64 `json:"detectable_score_drop,omitempty"`
	NotComparable       int     `json:"not_comparable"`
	OnlyBase            int     `json:"only_in_base"`
	OnlyHead            int     `json:"only_in_head"`
}

// hypothesis is one test in a direction's family: its key and p-value.
type hypothesis struct {
	key int
	p   float64
}

// decide tests every key and adjusts each direction's family with Holm.
func decide(p *paired, o Options) []KeyResult {
	z := zQuantile(0.975)
	out := make([]KeyResult, len(p.keys))
	var regress, improve []hypothesis
	for i, k := range p.keys {
		r := &out[i]
		n := k.pairs()
		*r = KeyResult{AssertionKey: k.info.key, Label: k.info.label, Type: k.info.typ, Pairs: n,
			BothPass: k.bothPass, Regressions: k.regressions, Improvements: k.improvements, BothFail: k.bothFail,
			NotComparable: k.notComparable, OnlyBase: k.onlyBase, OnlyHead: k.onlyHead, Graded: k.graded,
			AdjRegression: 1, AdjImprovement: 1, PRegression: 1, PImprovement: 1}
		if n == 0 {
			r.DetectableDrop = 1
			continue
		}
		fn := float64(n)
		r.BasePassRate = float64(k.bothPass+k.regressions) / fn
		r.HeadPassRate = float64(k.bothPass+k.improvements) / fn
		r.PassRateDiff = float64(k.improvements-k.regressions) / fn
		// Newcombe's first proportion is the head's: a = both pass, b = head only, c = base only.
		r.PassRateCI[0], r.PassRateCI[1] = newcombePaired(k.bothPass, k.improvements, k.regressions, k.bothFail, z)
		disc := k.regressions + k.improvements
		r.PRegression = mcnemarMidP(k.regressions, disc)
		r.PImprovement = mcnemarMidP(k.improvements, disc)
		regress = append(regress, hypothesis{i, r.PRegression})
		improve = append(improve, hypothesis{i, r.PImprovement})

		diffs := k.scoreDiffs()
		mean, sd := meanSD(diffs)
		r.MeanScoreDiff = mean
		if k.graded {
			r.PScoreRegression, r.PScoreImprovement = signFlip(diffs, keyRand(o.Seed, k.info.key))
			regress = append(regress, hypothesis{i, r.PScoreRegression})
			improve = append(improve, hypothesis{i, r.PScoreImprovement})
			r.DetectableScoreDrop = sd // the differences' standard deviation, until the level is known (below)
		}
	}
	// The smallest drop the data could have shown is the family's: a lone regression among the m
	// hypotheses tested must pass Holm's first step, p ≤ α/m (at one key, α itself).
	level := o.Alpha / float64(max(1, len(regress)))
	for i, k := range p.keys {
		if r := &out[i]; r.Pairs > 0 {
			r.DetectableDrop = detectableDrop(r.Pairs, float64(k.regressions+k.improvements)/float64(r.Pairs), level)
			if r.Graded {
				r.DetectableScoreDrop = detectableScoreDrop(r.Pairs, r.DetectableScoreDrop, level)
			}
		}
	}
	for _, fam := range []struct {
		hs  []hypothesis
		adj func(r *KeyResult) *float64
	}{
		{regress, func(r *KeyResult) *float64 { return &r.AdjRegression }},
		{improve, func(r *KeyResult) *float64 { return &r.AdjImprovement }},
	} {
		ps := make([]float64, len(fam.hs))
		for i, h := range fam.hs {
			ps[i] = h.p
		}
		for i, a := range holm(ps) {
			v := fam.adj(&out[fam.hs[i].key])
			*v = min(*v, a)
		}
	}
	for i := range out {
		r := &out[i]
		switch {
		case r.Pairs > 0 && r.AdjRegression <= o.Alpha:
			r.Verdict = Regressed
		case r.Pairs > 0 && r.AdjImprovement <= o.Alpha:
			r.Verdict = Improved
		case r.Pairs > 0 && r.DetectableDrop <= o.Detectable:
			r.Verdict = Unchanged
		default:
			r.Verdict = Underpowered
		}
	}
	return out
}

// keyRand is the sign-flip test's generator for a key: a pure function of the seed and the key's text, so
// a key's p-value does not depend on the other keys or their order.
func keyRand(seed uint64, key string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(key))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

func meanSD(xs []float64) (mean, sd float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}
