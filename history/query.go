// query.go: the drift report of one assertion, computed from its summaries
// alone, so that merged shards and one process give the same answer.

package history

import (
	"slices"
	"time"
)

// defaultWindowSize is query_drift's default window_size.
const defaultWindowSize = 50

// MaxReportAlerts bounds the alerts a Report lists (the most recent).
const MaxReportAlerts = 16

// Report answers query_drift. Its first seven fields are the earlier
// engine's answer (../shared/sdk-compat.md); the rest are additions.
type Report struct {
	AssertionID string `json:"assertion_id"`
	// AssertionKey is the history's key when the report was asked for by
	// another name (query_drift by a session's assertion_id); Label how a
	// person names the key.
	AssertionKey string `json:"assertion_key,omitempty"`
	Label        string `json:"label,omitempty"`
	// Mean, StdDev and Count are the scores of the current window: the
	// most recent windows holding at least window_size scored results.
	Mean        float64 `json:"mean"`
	StdDev      float64 `json:"stddev"`
	Count       uint64  `json:"count"`
	LatestScore float64 `json:"latest_score"`
	// Deviation is the current window's mean minus the baseline's, in
	// baseline standard deviations (0 while there is no baseline).
	Deviation float64 `json:"deviation"`
	// Status is "drift_detected" while a detector is in alarm (it has
	// alerted and not recovered), else "ok".
	Status string `json:"status"`

	Type string `json:"type,omitempty"`
	// Phase is "baseline" until the key has BaselineN scored results,
	// then "monitoring".
	Phase          string  `json:"phase"`
	Window         Span    `json:"window"`
	Baseline       *Span   `json:"baseline,omitempty"`
	PassRate       float64 `json:"pass_rate"`
	CUSUM          float64 `json:"cusum"`
	CUSUMThreshold float64 `json:"cusum_threshold"`
	// Total counts every result of the key, errors and skipped included.
	Total   uint64  `json:"total"`
	Errors  uint64  `json:"errors"`
	Skipped uint64  `json:"skipped"`
	Alerts  []Alert `json:"alerts"`
}

// Status values of Report.
const (
	StatusOK    = "ok"
	StatusDrift = "drift_detected"
)

// analyze replays the detectors over a key's windows, in window order.
func analyze(key string, sr *series, cfg DriftConfig, windowSize int) Report {
	if windowSize <= 0 {
		windowSize = defaultWindowSize
	}
	d := newDetector(key, cfg)
	rep := Report{AssertionID: key, Label: sr.Label, Type: sr.Type, Status: StatusOK, Phase: "baseline", CUSUMThreshold: cfg.H, Alerts: []Alert{}}
	for i := range sr.Windows {
		w := &sr.Windows[i]
		rep.Total += w.N()
		rep.Errors += w.Errors
		rep.Skipped += w.Skipped
		for _, a := range d.step(w) {
			a.Label = sr.Label
			rep.Alerts = append(rep.Alerts, a)
			if len(rep.Alerts) > MaxReportAlerts {
				rep.Alerts = rep.Alerts[1:]
			}
		}
	}
	var cur Summary
	var from, to int64
	if n := len(sr.Windows); n > 0 {
		to = sr.Windows[n-1].Window
	}
	for i := len(sr.Windows) - 1; i >= 0 && cur.Scored() < uint64(windowSize); i-- {
		cur.Merge(&sr.Windows[i])
		from = sr.Windows[i].Window
	}
	rep.Window = spanOf(&cur, from, to)
	rep.Mean, rep.StdDev, rep.Count = rep.Window.Mean, rep.Window.StdDev, rep.Window.N
	rep.PassRate = rep.Window.PassRate
	rep.LatestScore = sr.Latest.Score
	if d.baseDone {
		rep.Phase = "monitoring"
		b := spanOf(&d.base, d.baseFrom, d.baseTo)
		rep.Baseline = &b
		if b.StdDev > 0 {
			rep.Deviation = (rep.Mean - b.Mean) / b.StdDev
		}
		rep.CUSUM = d.s
		if d.cusumAlarm || d.meanAlarm {
			rep.Status = StatusDrift
		}
	}
	return rep
}

// Drift reports on one assertion; false when it has no history.
// windowSize is query_drift's window_size (default 50).
func (s *Store) Drift(key string, windowSize int) (Report, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sr := s.keys[key]
	if sr == nil {
		return Report{}, false
	}
	return analyze(key, sr, s.opts.Drift, windowSize), true
}

// Lookup is the key that name names: name itself when it is a key of the
// store, or a key labelled name (a watch suite's assertion name); of
// several, the one holding the latest result (ties by key). A dir written
// before assertion keys holds series keyed by names, so a name can be both:
// the series still recorded to wins. False when none.
func (s *Store) Lookup(name string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var key string
	var at latest
	for k, sr := range s.keys {
		if k != name && sr.Label != name {
			continue
		}
		if key == "" || at.less(sr.Latest) || (at == sr.Latest && k < key) {
			key, at = k, sr.Latest
		}
	}
	return key, key != ""
}

// Series is one assertion's windows as stored, for charts (the HTML
// history page, report.HistoryKey): oldest first, with the alerts the
// detectors raise over them (the latest MaxReportAlerts).
type Series struct {
	Assertion string
	Label     string
	Type      string
	// WindowTraces or WindowDuration: what a window is (doc.go, "Windows").
	WindowTraces   int64
	WindowDuration time.Duration
	WindowRuns     bool // each window is a run (Options.WindowRuns)
	Windows        []Summary
	Alerts         []Alert
}

// Series returns a copy of key's windows; false when it has no history.
func (s *Store) Series(key string) (Series, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sr := s.keys[key]
	if sr == nil {
		return Series{}, false
	}
	w := s.windowing()
	return Series{
		Assertion: key, Label: sr.Label, Type: sr.Type, WindowTraces: w.Traces, WindowDuration: time.Duration(w.DurationNS), WindowRuns: w.Runs,
		Windows: slices.Clone(sr.Windows), Alerts: analyze(key, sr, s.opts.Drift, defaultWindowSize).Alerts,
	}, true
}
