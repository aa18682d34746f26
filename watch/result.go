// result.go: one result line per (trace, assertion), its content-addressed id, and the seam to history.

package watch

import (
	"crypto/sha256"
	"encoding/hex"
)

// Statuses of a result line: the engine's three (spec §2.2), and two of
// the command's own.
const (
	StatusPass     = "pass"
	StatusSoftFail = "soft_fail"
	StatusHardFail = "hard_fail"
	StatusSkipped  = "skipped" // not evaluated; explanation says why
	StatusError    = "error"   // could not be evaluated; error says why
)

// Result is one output line. Members are written in this order;
// TS and DurationMS (wall-clock) are left out with --deterministic.
type Result struct {
	TraceID     string       `json:"trace_id"`
	Assertion   string       `json:"assertion"` // the suite's stable name
	Type        string       `json:"type"`
	Status      string       `json:"status"`
	Score       float64      `json:"score"`
	Explanation string       `json:"explanation"`
	ResultID    string       `json:"result_id"`
	AgentID     string       `json:"agent_id,omitempty"`
	Incomplete  bool         `json:"incomplete,omitempty"`
	Error       *ResultError `json:"error,omitempty"`
	Cost        float64      `json:"cost,omitempty"`
	DurationMS  *int64       `json:"duration_ms,omitempty"`
	TS          string       `json:"ts,omitempty"`
	// Seq is the trace's 1-based position in the input (ingest.Trace.Seq),
	// for the Recorder's count windows. It is not written: a line fed twice
	// must give the same line.
	Seq uint64 `json:"-"`
}

// ResultError is why a result could not be evaluated, with the spec's
// error code (§5) and whether retrying may help.
type ResultError struct {
	Code      int    `json:"code"`
	Message   string `json:"message"`
	Retryable bool   `json:"retryable"`
}

// Recorder receives every result line after it is written: the history
// package keeps them for drift and alerts. Record is given one trace's
// lines at a time (so a history can write them together), from one
// goroutine, in output order.
type Recorder interface {
	Record([]Result) error
	Close() error
}

// resultID is content-addressed: the same trace, assertion, suite and
// engine version always give the same id, so feeding input twice and
// keeping one line per id gives the single-run set.
func resultID(traceID, assertion, suiteHash, version string) string {
	h := sha256.New()
	for _, s := range []string{traceID, assertion, suiteHash, version} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
