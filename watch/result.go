// result.go: one result line per (trace, assertion), its content-addressed id, and the seam to history.

package watch

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"

	"attest-engine/ingest"
	"attest-engine/otlpexport"
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
	TraceID string `json:"trace_id"`
	// CaseKey is what was evaluated (package resultkey: the trace's
	// agent_id and input); absent for a line that could not be read as a
	// trace, and for spans too late for their trace.
	CaseKey   string `json:"case_key,omitempty"`
	Assertion string `json:"assertion"` // the suite's name
	// AssertionKey is what checked it (package resultkey: type, spec,
	// agent_id and name): the history's key.
	AssertionKey string  `json:"assertion_key"`
	Type         string  `json:"type"`
	Status       string  `json:"status"`
	Score        float64 `json:"score"`
	Explanation  string  `json:"explanation"`
	ResultID     string  `json:"result_id"`
	AgentID      string  `json:"agent_id,omitempty"`
	Incomplete   bool    `json:"incomplete,omitempty"`
	// LateSpans counts the spans that came too late for this verdict
	// (docs/watch.md, "Late spans").
	LateSpans int `json:"late_spans,omitempty"`
	// Supersedes is the result_id of the verdict this line replaces: its
	// trace was evaluated again with spans that came after.
	Supersedes string       `json:"supersedes,omitempty"`
	Error      *ResultError `json:"error,omitempty"`
	Cost       float64      `json:"cost,omitempty"`
	DurationMS *int64       `json:"duration_ms,omitempty"`
	TS         string       `json:"ts,omitempty"`
	// Seq is the trace's 1-based position in the input (ingest.Trace.Seq),
	// for the Recorder's count windows. It is not written: a line fed twice
	// must give the same line.
	Seq uint64 `json:"-"`
	// Through and Spans are the trace's (ingest.Trace), for the
	// Recorder's verdict index.
	Through uint64 `json:"-"`
	Spans   int    `json:"-"`
	// SpanID is the evaluated span (ingest.Trace.SpanID), for
	// --export-otlp's events; not written.
	SpanID string `json:"-"`

	hold *ingest.Hold // released once the trace's lines are written and recorded
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

// Verdicts is a Recorder that also tells the latest verdict it recorded
// for a (trace, assertion key): after a restart, spans read again are told
// from late ones by it (ingest.Prior).
type Verdicts interface {
	Prior(traceID, assertion string) (resultID string, through uint64, spans int, ok bool)
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

// revisionID names a verdict that supersedes another: a trace evaluated
// again with more spans. Spans only grow, so each of a trace's verdicts
// has its own id, and the same spans always give the same one.
func revisionID(base string, spans int) string {
	return resultID(base, "spans", strconv.Itoa(spans), "")
}

// verdictIDs are the result_id of a trace's verdict for one assertion and
// of the verdict it supersedes ("" for none).
func verdictIDs(base string, t *ingest.Trace) (id, supersedes string) {
	if t.Prior == nil {
		return base, ""
	}
	supersedes = base
	if !t.Prior.First {
		supersedes = revisionID(base, t.Prior.Spans)
	}
	return revisionID(base, t.Spans), supersedes
}

// exported is one trace's results as --export-otlp sends them.
func exported(rs []Result) []otlpexport.Result {
	out := make([]otlpexport.Result, len(rs))
	now := time.Now()
	for i, r := range rs {
		e := otlpexport.Result{TraceID: r.TraceID, SpanID: r.SpanID, Name: r.Assertion, Type: r.Type, Status: r.Status,
			Score: r.Score, Explanation: r.Explanation, ResultID: r.ResultID, Time: now}
		if r.Error != nil {
			e.ErrorCode = r.Error.Code
			if e.Explanation == "" {
				e.Explanation = r.Error.Message
			}
		}
		out[i] = e
	}
	return out
}
