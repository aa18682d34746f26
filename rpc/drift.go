// drift.go: the session's result history (--state-dir): results
// recorded by assertion key (package resultkey), query_drift, and
// drift_alert notifications for a client that asked for them at initialize.

package rpc

import (
	"cmp"
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
func (s *Server) recordHistory(traceID string, list []assert.Assertion, results []assert.Result, keys *batchKeys) []byte {
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
		// above (Replayed). The assertion key, else (a spec with no
		// canonical text) its id.
		key, label := cmp.Or(keys.keys[i], a.ID), keys.labels[i]
		hr := history.Result{
			TraceID: traceID, Assertion: key, Label: label, Type: a.Type, Status: st, Score: min(max(r.Score, 0), 1),
			Timestamp: now, Seq: s.runNo,
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
		// A key's alerts are those that name it, in order; two assertions
		// of a batch with one key (the same check twice) share them, and
		// the first takes them.
		a := list[recorded[k]]
		fired := false
		for j := range alerts {
			if alerts[j].Assertion == r.Assertion {
				lines, fired = s.appendDriftNote(lines, a.ID, r.Assertion, &alerts[j], "drift"), true
				alerts[j].Assertion = "" // taken
			}
		}
		if !fired && r.Status != history.Pass && r.Status != history.Skipped && a.Spec["threshold"] == "dynamic" {
			lines = s.appendDriftNote(lines, a.ID, r.Assertion, nil, "dynamic_threshold_failed")
		}
	}
	return lines
}

func (s *Server) appendDriftNote(b []byte, id, key string, a *history.Alert, reason string) []byte {
	rep := s.drift(id, key, defaultDriftWindow)
	params, err := json.Marshal(driftNote{Report: rep, Alert: a, Reason: reason})
	if err != nil {
		return b
	}
	b = append(b, `{"jsonrpc":"2.0","method":"drift_alert","params":`...)
	b = append(b, params...)
	return append(b, "}\n"...)
}

// drift is the report of key, named by id: the assertion_id the client
// knows it by, with assertion_key the history's key when they differ.
func (s *Server) drift(id, key string, windowSize int) history.Report {
	rep, ok := s.history.Drift(key, windowSize)
	if !ok {
		rep = history.Report{Status: history.StatusOK, Phase: "baseline", Alerts: []history.Alert{}}
	}
	rep.AssertionID, rep.AssertionKey = id, ""
	if key != id {
		rep.AssertionKey = key
	}
	return rep
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
// fields (history.Report). The history is keyed by assertion key: an
// assertion_id this session evaluated is read as its key (the SDKs draw a
// new id every run; the key stays), anything else as a key itself (the
// answer then names it assertion_id, as asked). An assertion with no
// history has count 0 and status "ok".
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
	rep := s.drift(id, s.historyKey(id), int(ws))
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
