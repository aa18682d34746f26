// drift.go: the session's result history (--state-dir): results
// recorded by assertion_id, query_drift, and drift_alert notifications for a
// client that asked for them at initialize.

package rpc

import (
	"encoding/json"
	"time"

	"attest-engine/assert"
	"attest-engine/history"
)

// notifyDriftAlert is the name a client lists in initialize's additive
// param "notifications" to receive drift_alert notifications. Without it no
// notification is ever written: the SDK fixtures read one line per request,
// and an unsolicited line would be taken for the answer
// (../shared/sdk-compat.md).
const notifyDriftAlert = "drift_alert"

// defaultDriftWindow is query_drift's window_size when absent
// (../shared/sdk-compat.md); maxDriftWindow bounds it.
const (
	defaultDriftWindow = 50
	maxDriftWindow     = 1_000_000
)

// driftNote is a drift_alert notification's params: the assertion's report
// (the earlier engine's keys first) and, when a detector fired, its alert.
type driftNote struct {
	history.Report
	Alert *history.Alert `json:"alert,omitempty"`
	// Reason: "drift" (a detector fired) or "dynamic_threshold_failed" (an
	// assertion with "threshold": "dynamic" did not pass, as the earlier
	// engine notified).
	Reason string `json:"reason"`
}

// recordHistory adds a batch's results to the history and returns the
// drift_alert lines to write before its answer (none unless the client
// opted in). The batch's results are recorded together (history.AddAll: one
// write call, and one fsync under --fsync always, per batch, not per result).
func (s *Server) recordHistory(traceID string, list []assert.Assertion, results []assert.Result) []byte {
	if s.history == nil || len(list) != len(results) {
		return nil
	}
	now := time.Now().UTC()
	rs := make([]history.Result, 0, len(results))
	recorded := make([]int, 0, len(results)) // rs[k] is results[recorded[k]]
	for i, r := range results {
		a := list[i]
		if r.Replayed {
			continue // a retried request_id answered from the record: counted when first evaluated
		}
		st := history.Skipped
		if !r.Skipped {
			var err error
			if st, err = history.ParseStatus(string(r.Status)); err != nil {
				continue
			}
		}
		// No result id: every evaluation is a result of its own, of a
		// trace id evaluated before too (a test suite run again, its ids
		// fixed); the history's verdict index refuses or replaces only
		// results that carry one (watch's). A retried request_id is told
		// above (Replayed).
		hr := history.Result{
			TraceID: traceID, Assertion: a.ID, Type: a.Type, Status: st, Score: min(max(r.Score, 0), 1),
			Timestamp: now,
		}
		if err := hr.Validate(); err != nil { // checked here so that AddAll fails only as a whole
			s.repeats.warn(s.log, "recording a result in --state-dir failed: "+err.Error(), traceID)
			continue
		}
		rs, recorded = append(rs, hr), append(recorded, i)
	}
	if len(rs) == 0 {
		return nil
	}
	alerts, err := s.history.AddAll(rs)
	if err != nil {
		s.repeats.warn(s.log, "recording a result in --state-dir failed: "+err.Error(), traceID)
		return nil
	}
	if !s.notifies() {
		return nil
	}
	var lines []byte
	for k, r := range rs {
		// An assertion_id is unique within a batch (assert.Run refuses a
		// duplicate): its alerts are those that name it, in order.
		fired := false
		for j := range alerts {
			if alerts[j].Assertion == r.Assertion {
				lines, fired = s.appendDriftNote(lines, r.Assertion, &alerts[j], "drift"), true
			}
		}
		a := list[recorded[k]]
		if !fired && r.Status != history.Pass && r.Status != history.Skipped && a.Spec["threshold"] == "dynamic" {
			lines = s.appendDriftNote(lines, a.ID, nil, "dynamic_threshold_failed")
		}
	}
	return lines
}

func (s *Server) appendDriftNote(b []byte, id string, a *history.Alert, reason string) []byte {
	rep, ok := s.history.Drift(id, defaultDriftWindow)
	if !ok {
		rep = emptyReport(id)
	}
	params, err := json.Marshal(driftNote{Report: rep, Alert: a, Reason: reason})
	if err != nil {
		return b
	}
	b = append(b, `{"jsonrpc":"2.0","method":"drift_alert","params":`...)
	b = append(b, params...)
	return append(b, "}\n"...)
}

func emptyReport(id string) history.Report {
	return history.Report{AssertionID: id, Status: history.StatusOK, Phase: "baseline", Alerts: []history.Alert{}}
}

// notifies reports whether the client opted in to drift_alert.
func (s *Server) notifies() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notifyDrift
}

// queryDrift answers query_drift {assertion_id, window_size}: the earlier
// engine's {report: {assertion_id, mean, stddev, count, latest_score,
// deviation, status}} (../shared/sdk-compat.md) plus the history's own
// fields (history.Report). An assertion with no history has count 0 and
// status "ok".
func (s *Server) queryDrift(req *request) {
	if s.history == nil {
		s.replyError(req, newError(codeMethodNotFound, "query_drift needs the result history: start the engine with --state-dir DIR.", "method not found: query_drift (no --state-dir)"))
		return
	}
	p := params(req.params)
	id, err := p.str("assertion_id")
	ws := int64(defaultDriftWindow)
	if err == nil {
		if _, ok := p["window_size"]; ok && p["window_size"] != nil {
			ws, err = p.integer("window_size")
			if err == nil && (ws < 1 || ws > maxDriftWindow) {
				err = errWindowSize
			}
		}
	}
	if err != nil {
		s.replyError(req, newError(codeInvalidParams, "query_drift takes {assertion_id: string, window_size: integer 1..1000000 (default 50)}.", "invalid params: %s", err.Error()))
		return
	}
	rep, ok := s.history.Drift(id, int(ws))
	if !ok {
		rep = emptyReport(id)
	}
	body, err := json.Marshal(rep)
	if err != nil { // a Report always marshals: finite numbers, valid strings
		s.replyError(req, newError(codeEngineError, "", "internal error: %s", err.Error()))
		return
	}
	b := appendHead(make([]byte, 0, 128+len(body)), req.id)
	b = append(b, `,"result":{"report":`...)
	b = append(b, body...)
	s.reply(req, append(b, "}}\n"...))
}

type paramError string

func (e paramError) Error() string { return string(e) }

const errWindowSize = paramError("field 'window_size' must be between 1 and 1000000")
