// drift.go: the drift detectors, run over window summaries in window order:
// a one-sided Bernoulli CUSUM on the failure rate, and a windowed mean-shift
// test on scores with an effect-size floor.

package history

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
)

// DriftConfig sets the detectors (doc.go, "Drift", gives the reasoning and
// the measured figures). Zero fields take the defaults.
type DriftConfig struct {
	// MinN: no alert from a current window of fewer scored results. Default 30.
	MinN int `json:"min_n"`
	// BaselineN: the baseline is the first windows of a key holding at least
	// this many scored results; nothing alerts before it is complete.
	// Default 1000.
	BaselineN int `json:"baseline_n"`
	// Delta: the drop in pass rate the CUSUM is tuned to detect fastest
	// (its out-of-control failure rate is the baseline's plus Delta).
	// Default 0.10.
	Delta float64 `json:"delta"`
	// H: the CUSUM's decision threshold, in nats of log-likelihood ratio.
	// Default 7.
	H float64 `json:"h"`
	// CurrentN: the mean-shift test compares the most recent windows
	// holding at least this many scored results with the baseline.
	// Default 50.
	CurrentN int `json:"current_n"`
	// Z: the one-sided Welch z the mean drop must reach. Default 4.
	Z float64 `json:"z"`
	// EffectFloor: and the drop must be at least this many baseline
	// standard deviations (Cohen's d). Default 0.5.
	EffectFloor float64 `json:"effect_floor"`
	// MinShift: and at least this much in absolute score. Default 0.05.
	MinShift float64 `json:"min_shift"`
	// ReferenceN: the CUSUM's reference failure rate is estimated from the
	// baseline and then from every later run of windows that ended with
	// the CUSUM back at 0 without an alert, until it holds at least this
	// many scored results. Default 20,000.
	ReferenceN int `json:"reference_n"`
	// ReferenceZ: the reference failure rate is the upper end of the
	// reference's Wilson interval at this many standard errors. Default 1.
	ReferenceZ float64 `json:"reference_z"`
}

func (c DriftConfig) withDefaults() DriftConfig {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	deff := func(v *float64, d float64) {
		if !(*v > 0) {
			*v = d
		}
	}
	def(&c.MinN, 30)
	def(&c.BaselineN, 1000)
	def(&c.CurrentN, 50)
	def(&c.ReferenceN, 20_000)
	deff(&c.ReferenceZ, 1)
	deff(&c.Delta, 0.10)
	deff(&c.H, 8.5)
	deff(&c.Z, 4)
	deff(&c.EffectFloor, 0.5)
	deff(&c.MinShift, 0.05)
	return c
}

// Span describes a run of windows: the baseline or the current window of an
// alert or report.
type Span struct {
	From     int64      `json:"from_window"`
	To       int64      `json:"to_window"`
	N        uint64     `json:"n"`
	Passes   uint64     `json:"passes"`
	PassRate float64    `json:"pass_rate"`
	Mean     float64    `json:"mean"`
	StdDev   float64    `json:"stddev"`
	Wilson   [2]float64 `json:"wilson"`
}

func spanOf(s *Summary, from, to int64) Span {
	return Span{From: from, To: to, N: s.Scored(), Passes: s.Passes, PassRate: s.PassRate(), Mean: s.Mean(), StdDev: s.StdDev(), Wilson: s.Wilson()}
}

// Alert kinds and statistics.
const (
	KindPassRate   = "pass_rate"
	KindScoreMean  = "score_mean"
	StatCUSUM      = "bernoulli_cusum"
	StatMeanShiftZ = "mean_shift_z"
)

// Alert is one drift detection; it carries everything needed to judge it.
type Alert struct {
	ID        string `json:"alert_id"` // SHA-256 of assertion, kind and window, 16 hex digits
	Assertion string `json:"assertion"`
	// Label is how a person names the assertion key (Result.Label); "" when none.
	Label     string  `json:"label,omitempty"`
	Kind      string  `json:"kind"`
	Statistic string  `json:"statistic"`
	Value     float64 `json:"value"`
	Threshold float64 `json:"threshold"`
	Baseline  Span    `json:"baseline"`
	Current   Span    `json:"current"`
	N         uint64  `json:"n"`
	// Effect: for pass_rate the drop in pass rate (baseline − current); for
	// score_mean the drop in mean in baseline standard deviations.
	Effect float64 `json:"effect"`
	// Wilson is the 95% Wilson interval of the current pass rate.
	Wilson      [2]float64 `json:"wilson"`
	Window      int64      `json:"window"`
	Explanation string     `json:"explanation"`
}

// detector folds a key's windows, in window order, into drift state.
type detector struct {
	cfg DriftConfig
	key string

	base           Summary
	baseFrom       int64
	baseTo         int64
	baseDone, seen bool
	scored         bool    // the baseline has fractional scores: run the mean-shift test
	llrFail        float64 // CUSUM increment per failure
	llrPass        float64 // and per pass (negative)
	f0, f1         float64

	ref        Summary // the CUSUM's reference: the baseline, then runs that ended in control
	s          float64 // CUSUM statistic
	run        Summary // windows since s was last 0
	runFrom    int64
	runAlarmed bool // the run raised an alert: its windows never join the reference
	cusumAlarm bool

	recent    []Summary // most recent windows holding ≥ CurrentN scored results
	meanAlarm bool
	lastZ     float64
	lastD     float64
}

func newDetector(key string, cfg DriftConfig) *detector {
	return &detector{cfg: cfg, key: key}
}

// step folds in the next window and returns the alerts it raises.
func (d *detector) step(w *Summary) []Alert {
	if w.Scored() == 0 {
		return nil
	}
	if !d.baseDone {
		if !d.seen {
			d.baseFrom, d.seen = w.Window, true
		}
		d.base.Merge(w)
		d.baseTo = w.Window
		if d.base.Scored() >= uint64(d.cfg.BaselineN) {
			d.freeze()
		}
		return nil
	}
	var alerts []Alert
	if a, ok := d.stepCUSUM(w); ok {
		alerts = append(alerts, a)
	}
	if d.scored {
		if a, ok := d.stepMean(w); ok {
			alerts = append(alerts, a)
		}
	}
	return alerts
}

// freeze ends the baseline and derives the CUSUM's increments from it.
func (d *detector) freeze() {
	d.baseDone = true
	d.scored = d.base.Fractional > 0
	d.ref = d.base
	d.tune()
}

// tune derives the CUSUM's increments from the reference. Its failure rate
// f0 is the upper end of the reference's Wilson interval (ReferenceZ
// standard errors), not the point estimate: a reference that happened to
// run lucky would otherwise tune the CUSUM to a failure rate below the true
// one, and false alarms come far sooner (doc.go, "Drift").
func (d *detector) tune() {
	d.f0 = min(max(wilsonUpper(d.ref.Fails, d.ref.Scored(), d.cfg.ReferenceZ), 0.001), 0.5)
	d.f1 = min(d.f0+d.cfg.Delta, 0.999)
	d.llrFail = math.Log(d.f1 / d.f0)
	d.llrPass = math.Log((1 - d.f1) / (1 - d.f0))
}

func (d *detector) stepCUSUM(w *Summary) (Alert, bool) {
	if d.s == 0 {
		d.run, d.runFrom, d.runAlarmed = Summary{}, w.Window, false
	}
	d.s += float64(w.Fails)*d.llrFail + float64(w.Passes)*d.llrPass
	d.run.Merge(w)
	if d.s <= 0 {
		d.s = 0
		d.cusumAlarm = false // recovered: the next excursion may alert again
		// A run that came back to 0 without an alert was in control: it
		// sharpens the reference, up to ReferenceN results.
		if !d.runAlarmed && d.ref.Scored() < uint64(d.cfg.ReferenceN) {
			d.ref.Merge(&d.run)
			d.tune()
		}
		return Alert{}, false
	}
	if d.cusumAlarm || d.s < d.cfg.H || d.run.Scored() < uint64(d.cfg.MinN) {
		return Alert{}, false
	}
	d.cusumAlarm, d.runAlarmed = true, true
	base, cur := spanOf(&d.base, d.baseFrom, d.baseTo), spanOf(&d.run, d.runFrom, w.Window)
	a := Alert{
		Assertion: d.key, Kind: KindPassRate, Statistic: StatCUSUM,
		Value: d.s, Threshold: d.cfg.H, Baseline: base, Current: cur, N: cur.N,
		Effect: base.PassRate - cur.PassRate, Wilson: cur.Wilson, Window: w.Window,
	}
	a.Explanation = fmt.Sprintf("pass rate fell from %.4f (baseline, n=%d) to %.4f (n=%d since window %d, 95%% Wilson %.4f–%.4f): "+
		"Bernoulli CUSUM S=%.3f ≥ h=%.3f, tuned for failure rate %.4f → %.4f",
		base.PassRate, base.N, cur.PassRate, cur.N, d.runFrom, cur.Wilson[0], cur.Wilson[1], d.s, d.cfg.H, d.f0, d.f1)
	a.ID = alertID(a)
	return a, true
}

func (d *detector) stepMean(w *Summary) (Alert, bool) {
	d.recent = append(d.recent, *w)
	var cur Summary
	for _, r := range d.recent {
		cur.Merge(&r)
	}
	for len(d.recent) > 1 && cur.Scored()-d.recent[0].Scored() >= uint64(d.cfg.CurrentN) {
		cur = Summary{}
		d.recent = d.recent[1:]
		for _, r := range d.recent {
			cur.Merge(&r)
		}
	}
	if cur.Scored() < uint64(max(d.cfg.CurrentN, d.cfg.MinN)) {
		return Alert{}, false
	}
	bm, bs := d.base.Mean(), d.base.StdDev()
	cm, cs := cur.Mean(), cur.StdDev()
	nb, nc := float64(d.base.Scored()), float64(cur.Scored())
	se := math.Sqrt(bs*bs/nb + cs*cs/nc)
	drop := bm - cm
	z := 0.0
	if se > 0 {
		z = drop / se
	} else if drop > 0 {
		z = math.MaxFloat64
	}
	eff := 0.0
	if bs > 0 {
		eff = drop / bs
	} else if drop > 0 {
		eff = math.MaxFloat64
	}
	d.lastZ, d.lastD = z, eff
	firing := z >= d.cfg.Z && eff >= d.cfg.EffectFloor && drop >= d.cfg.MinShift
	if d.meanAlarm {
		// recovered once the drop is no longer half as strong on either count
		if z < d.cfg.Z/2 || eff < d.cfg.EffectFloor/2 || drop < d.cfg.MinShift/2 {
			d.meanAlarm = false
		}
		return Alert{}, false
	}
	if !firing {
		return Alert{}, false
	}
	d.meanAlarm = true
	base, cs2 := spanOf(&d.base, d.baseFrom, d.baseTo), spanOf(&cur, d.recent[0].Window, w.Window)
	a := Alert{
		Assertion: d.key, Kind: KindScoreMean, Statistic: StatMeanShiftZ,
		Value: finite(z), Threshold: d.cfg.Z, Baseline: base, Current: cs2, N: cs2.N,
		Effect: finite(eff), Wilson: cs2.Wilson, Window: w.Window,
	}
	a.Explanation = fmt.Sprintf("mean score fell from %.4f (sd %.4f, baseline n=%d) to %.4f (sd %.4f, n=%d, windows %d–%d): "+
		"Welch z=%.2f ≥ %.2f, effect %.2f sd ≥ floor %.2f, drop %.4f ≥ %.4f; pass rate %.4f (95%% Wilson %.4f–%.4f)",
		bm, bs, base.N, cm, cs, cs2.N, cs2.From, cs2.To, finite(z), d.cfg.Z, finite(eff), d.cfg.EffectFloor, drop, d.cfg.MinShift,
		cs2.PassRate, cs2.Wilson[0], cs2.Wilson[1])
	a.ID = alertID(a)
	return a, true
}

func finite(v float64) float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 1e300
	}
	return v
}

func alertID(a Alert) string {
	h := sha256.New()
	h.Write([]byte(a.Assertion))
	h.Write([]byte{0})
	h.Write([]byte(a.Kind))
	h.Write([]byte{0})
	h.Write([]byte(strconv.FormatInt(a.Window, 10)))
	return hex.EncodeToString(h.Sum(nil)[:8])
}

func wilsonUpper(k, n uint64, z float64) float64 {
	nf, p := float64(n), float64(k)/float64(n)
	d := 1 + z*z/nf
	return (p + z*z/(2*nf) + z*math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))) / d
}
