// certify.go: one judge's agreement with the people, its report lines, and the certificate file.

package calibrate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"math"

	"attest-engine/agreement"
	"attest-engine/assert"
)

// ordinalLevels is the number of ordinal levels of numeric labels and
// scores for the quadratic-weighted κ: 0, 0.25, 0.5, 0.75 and 1.
const ordinalLevels = 5

func level(score float64) int {
	return int(math.Round(min(max(score, 0), 1) * (ordinalLevels - 1)))
}

// certify computes a judge's certificate entry from its verdicts on the
// items that are for it; false when there are none.
func (c *cmd) certify(j *judge, items []item, vs []verdict) (assert.JudgeCert, bool) {
	var truth, pred, truthLevel, predLevel []int
	numeric := true
	var units [][]float64 // raters: the people, then the judge
	var humans [][]float64
	maxRaters := 0
	for i := range items {
		v := vs[i]
		if !v.ok {
			continue
		}
		it := &items[i]
		h := consensus(it, j.threshold)
		truth = append(truth, b2i(h))
		pred = append(pred, b2i(v.pass))
		if r := it.consensus; r != nil && r.numeric {
			truthLevel = append(truthLevel, level(r.score))
		} else if r == nil && allNumeric(it.raters) {
			truthLevel = append(truthLevel, level(meanScore(it.raters)))
		} else {
			numeric = false
		}
		predLevel = append(predLevel, level(v.score))
		raters := it.raters
		if len(raters) == 0 {
			raters = []rating{*it.consensus}
		}
		maxRaters = max(maxRaters, len(raters))
		u := make([]float64, 0, len(raters)+1)
		for _, r := range raters {
			u = append(u, float64(b2i(r.passAt(j.threshold))))
		}
		humans = append(humans, u)
		units = append(units, append(append([]float64(nil), u...), float64(b2i(v.pass))))
	}
	n := len(truth)
	if n == 0 {
		return assert.JudgeCert{}, false
	}
	// Units of different sizes: missing values pad every row to a column
	// per rater, the judge last.
	withJudge := make([][]float64, len(units))
	for i, u := range units {
		row := make([]float64, maxRaters+1)
		for k := range row {
			row[k] = math.NaN()
		}
		copy(row, u[:len(u)-1])
		row[maxRaters] = u[len(u)-1]
		withJudge[i] = row
	}
	m := agreement.Confusion(truth, pred, 2)
	jc := assert.JudgeCert{
		Assertion: j.a.ID, Hash: j.decides.Hash(), Decides: j.decides, N: n,
		Accuracy: agreement.Accuracy(m), CohenKappa: agreement.CohenKappa(m),
		Confusion: [2][2]int{{m[0][0], m[0][1]}, {m[1][0], m[1][1]}},
		Alpha:     agreement.Alpha(withJudge, agreement.Nominal), AlphaRaters: maxRaters + 1,
		Majority: agreement.MajorityBaseline(truth), BootstrapSeed: c.seed, BootstrapReps: c.replicates,
		HumanRaters: maxRaters,
	}
	resample := func(idx []int, a, b []int) ([]int, []int) {
		x, y := make([]int, len(idx)), make([]int, len(idx))
		for k, i := range idx {
			x[k], y[k] = a[i], b[i]
		}
		return x, y
	}
	jc.AccuracyCI = ci(agreement.Bootstrap(n, c.replicates, c.seed, func(idx []int) float64 {
		x, y := resample(idx, truth, pred)
		return agreement.Accuracy(agreement.Confusion(x, y, 2))
	}))
	jc.CohenKappaCI = ci(agreement.Bootstrap(n, c.replicates, c.seed, func(idx []int) float64 {
		x, y := resample(idx, truth, pred)
		return agreement.CohenKappa(agreement.Confusion(x, y, 2))
	}))
	if numeric {
		q := agreement.WeightedKappa(agreement.Confusion(truthLevel, predLevel, ordinalLevels))
		qci := ci(agreement.Bootstrap(n, c.replicates, c.seed, func(idx []int) float64 {
			x, y := resample(idx, truthLevel, predLevel)
			return agreement.WeightedKappa(agreement.Confusion(x, y, ordinalLevels))
		}))
		jc.QuadraticKappa, jc.QuadraticCI = &q, &qci
	}
	if maxRaters >= 2 {
		rows := make([][]float64, len(humans))
		for i, u := range humans {
			row := make([]float64, maxRaters)
			for k := range row {
				row[k] = math.NaN()
			}
			copy(row, u)
			rows[i] = row
		}
		a := agreement.Alpha(rows, agreement.Nominal)
		jc.HumansAlpha = &a
	}
	return jc, true
}

func ci(lo, hi float64) [2]float64 { return [2]float64{round(lo), round(hi)} }

// round keeps 12 decimals: a certificate's figures are reproducible, not
// float noise.
func round(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return math.Round(x*1e12) / 1e12
}

// consensus is the people's verdict on an item at a threshold: label when
// given, else the majority of labels, a tie counted as fail.
func consensus(it *item, threshold float64) bool {
	if it.consensus != nil {
		return it.consensus.passAt(threshold)
	}
	pass := 0
	for _, r := range it.raters {
		if r.passAt(threshold) {
			pass++
		}
	}
	return 2*pass > len(it.raters)
}

func allNumeric(rs []rating) bool {
	for _, r := range rs {
		if !r.numeric {
			return false
		}
	}
	return len(rs) > 0
}

func meanScore(rs []rating) float64 {
	s := 0.0
	for _, r := range rs {
		s += r.score
	}
	return s / float64(len(rs))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// writeReport prints a judge's figures for people.
func writeReport(w io.Writer, j *assert.JudgeCert) {
	fmt.Fprintf(w, "judge %s (hash %s, model %s): %d labelled items\n", j.Assertion, j.Hash[:12], j.Decides.Model, j.N)
	fmt.Fprintf(w, "  accuracy          %.4f  95%% [%.4f, %.4f]   majority baseline %.4f\n", j.Accuracy, j.AccuracyCI[0], j.AccuracyCI[1], j.Majority)
	fmt.Fprintf(w, "  Cohen's κ         %.4f  95%% [%.4f, %.4f]\n", j.CohenKappa, j.CohenKappaCI[0], j.CohenKappaCI[1])
	if j.QuadraticKappa != nil {
		fmt.Fprintf(w, "  quadratic κ       %.4f  95%% [%.4f, %.4f]\n", *j.QuadraticKappa, j.QuadraticCI[0], j.QuadraticCI[1])
	}
	fmt.Fprintf(w, "  Krippendorff's α  %.4f  (%d raters: the people and the judge)\n", j.Alpha, j.AlphaRaters)
	if j.HumansAlpha != nil {
		fmt.Fprintf(w, "  people's own α    %.4f  (%d raters)\n", *j.HumansAlpha, j.HumanRaters)
	}
	c := j.Confusion
	fmt.Fprintf(w, "  confusion (people × judge): fail·fail %d  fail·pass %d  pass·fail %d  pass·pass %d\n", c[0][0], c[0][1], c[1][0], c[1][1])
	if j.Accuracy <= j.Majority {
		fmt.Fprintf(w, "  warning: the judge is no more accurate than always answering the most common label\n")
	}
}

// writeCertificate writes the certificate as indented JSON.
func writeCertificate(w io.Writer, c *assert.Certificate) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// hashReader hashes what is read through it (the labels file).
type hashReader struct {
	r io.Reader
	h hash.Hash
}

func (hr *hashReader) Read(p []byte) (int, error) {
	if hr.h == nil {
		hr.h = sha256.New()
	}
	n, err := hr.r.Read(p)
	hr.h.Write(p[:n])
	return n, err
}

func (hr *hashReader) sum() string {
	if hr.h == nil {
		hr.h = sha256.New()
	}
	return hex.EncodeToString(hr.h.Sum(nil))
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
