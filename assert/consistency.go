// consistency.go: repeated judge verdicts (the llm_judge "consistency" field): when to draw another sample, the verdict, the median score.

package assert

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"attest-engine/clip"
	"attest-engine/trace"
)

// Consistency modes of an llm_judge spec (docs/judges.md):
//
//	{"mode": "single"}                  one sample: the default
//	{"mode": "sequential", "max": 5}    two samples; stop when they agree on
//	                                    the side of the threshold, else draw
//	                                    until a strict majority of max is
//	                                    reached or can no longer change
//	{"mode": "confirm_on_fail"}         one sample; a failing one is
//	                                    confirmed by two more (majority of 3)
const (
	modeSingle        = "single"
	modeSequential    = "sequential"
	modeConfirmOnFail = "confirm_on_fail"
)

// Bounds of "max": at least 2 (two samples are always drawn), at most
// maxSamples, so that one assertion cannot ask for unbounded spend.
const (
	defaultSequentialMax = 5
	maxSamples           = 15
)

// consistency is a compiled "consistency" field.
type consistency struct {
	mode string
	max  int // samples at most: 1 (single), max (sequential), 3 (confirm_on_fail)
}

func (c consistency) String() string {
	if c.mode == modeSequential {
		return fmt.Sprintf("%s max %d", c.mode, c.max)
	}
	return c.mode
}

// readConsistency reads the optional "consistency" field.
func readConsistency(s spec) (consistency, error) {
	v, ok := s["consistency"]
	if !ok || v == nil {
		return consistency{mode: modeSingle, max: 1}, nil
	}
	const help = `Set 'consistency' to {"mode": "sequential", "max": 5}, {"mode": "confirm_on_fail"} or {"mode": "single"}.`
	m, ok := v.(map[string]any)
	if !ok {
		return consistency{}, specErrorf(help, "spec field 'consistency' must be an object, got %s", trace.Kind(v))
	}
	cs := spec(m)
	mode, err := cs.str("mode", true)
	if err != nil {
		return consistency{}, specErrorf(help, "consistency: %v", err)
	}
	n, hasMax, err := cs.num("max")
	if err != nil {
		return consistency{}, specErrorf(help, "consistency: %v", err)
	}
	switch mode {
	case modeSingle, modeConfirmOnFail:
		if hasMax {
			return consistency{}, specErrorf(help, "consistency: 'max' applies to mode 'sequential' only")
		}
		if mode == modeSingle {
			return consistency{mode: mode, max: 1}, nil
		}
		return consistency{mode: mode, max: 3}, nil
	case modeSequential:
		if !hasMax {
			return consistency{mode: mode, max: defaultSequentialMax}, nil
		}
		if n != float64(int(n)) || n < 2 || n > maxSamples {
			return consistency{}, specErrorf(help, "consistency: 'max' must be an integer from 2 to %d, got %s", maxSamples, fmtNum(n))
		}
		return consistency{mode: mode, max: int(n)}, nil
	}
	return consistency{}, specErrorf(help, "consistency: unknown mode '%s'", clip.String(mode, 60))
}

// sample is one judge verdict.
type sample struct {
	score  float64
	reason string
	pass   bool // score >= threshold
}

// tally is the decision over the samples drawn.
type tally struct {
	samples []sample
	passes  int
	pass    bool // the verdict; false for a split
	split   bool // no strict majority when every sample allowed was drawn
}

// agreeing is the number of samples on the verdict's side (on the larger
// side for a split).
func (t *tally) agreeing() int {
	return max(t.passes, len(t.samples)-t.passes)
}

// median is the median score of the samples drawn (the mean of the two
// middle ones for an even count), on the verdict's side of threshold: the
// side a strict majority of samples took is the side of their median.
func (t *tally) median(threshold float64) float64 {
	s := make([]float64, len(t.samples))
	for i, x := range t.samples {
		s[i] = x.score
	}
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	// Printed to 15 significant digits and read back, so that the mean of
	// two decimal scores is the decimal it should be (0.85, not
	// 0.8500000000000001): a pure function of the scores. Unless that moves
	// it across a threshold of more digits (0.6274415180425912 twice would
	// read 0.627441518042591, below it): then the mean as computed, or,
	// should the sum's rounding have moved that, the middle sample on the
	// verdict's side.
	mean := (s[n/2-1] + s[n/2]) / 2
	m, _ := strconv.ParseFloat(strconv.FormatFloat(mean, 'g', 15, 64), 64)
	side := func(x float64) bool { return x >= threshold }
	switch {
	case t.split || side(m) == t.pass:
		return m
	case side(mean) == t.pass:
		return mean
	case t.pass:
		return s[n/2]
	}
	return s[n/2-1]
}

// more reports whether the mode draws another sample after those drawn.
// It is a pure function of the mode and the sides of the samples so far,
// so a replay that draws the same samples stops at the same one.
func (c consistency) more(drawn, passes int) bool {
	fails := drawn - passes
	switch c.mode {
	case modeSequential:
		if drawn < 2 {
			return true
		}
		if drawn == 2 && (passes == 2 || fails == 2) {
			return false // the first two agree
		}
		need := c.max/2 + 1 // a strict majority of max
		return drawn < c.max && passes < need && fails < need
	case modeConfirmOnFail:
		switch {
		case drawn == 0:
			return true
		case drawn == 1:
			return passes == 0 // a failing verdict is confirmed by two more
		}
		return drawn < 3
	}
	return drawn < 1
}

// decide draws samples in index order until the mode stops, and tallies
// them. draw(i) is sample i; its error ends the decision (a judge that
// cannot answer is an error, never a verdict).
func (c consistency) decide(draw func(i int) (sample, error)) (tally, error) {
	var t tally
	for c.more(len(t.samples), t.passes) {
		s, err := draw(len(t.samples))
		if err != nil {
			return t, err
		}
		t.samples = append(t.samples, s)
		if s.pass {
			t.passes++
		}
	}
	fails := len(t.samples) - t.passes
	switch {
	case t.passes > fails:
		t.pass = true
	case t.passes == fails:
		t.split = true
	}
	return t, nil
}

// reason is the reason of the sample that best stands for the verdict:
// the one on the verdict's side whose score is closest to the median.
func (t *tally) reason(threshold float64) string {
	med := t.median(threshold)
	best, bestD := -1, 0.0
	for i, s := range t.samples {
		if !t.split && s.pass != t.pass {
			continue
		}
		d := s.score - med
		if d < 0 {
			d = -d
		}
		if best < 0 || d < bestD {
			best, bestD = i, d
		}
	}
	return t.samples[best].reason
}

// summary is the sentence an explanation adds for more than one sample:
// "Median of 3 samples (sequential max 5), 2 agreeing."
func (t *tally) summary(c consistency) string {
	var b strings.Builder
	if t.split {
		fmt.Fprintf(&b, "Split verdict: %d of %d samples pass and %d fail (%s), so this is not a pass.", t.passes, len(t.samples), len(t.samples)-t.passes, c)
	} else {
		fmt.Fprintf(&b, "%d of %d samples agree (%s).", t.agreeing(), len(t.samples), c)
	}
	return b.String()
}
