// report.go: the results model, totals, format choice, and writing a whole report or a report file.

package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"attest-engine/assert"
	"attest-engine/simulate"
)

// Format is a report format.
type Format string

const (
	FormatText  Format = "text"  // a readable summary
	FormatJSON  Format = "json"  // one JSON document (json.go)
	FormatJUnit Format = "junit" // JUnit XML as CI systems read it (junit.go)
	FormatHTML  Format = "html"  // one self-contained page for people (html.go)
)

// ParseFormat reads a --format value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatText, FormatJSON, FormatJUnit, FormatHTML:
		return f, nil
	}
	return "", fmt.Errorf("--format %q: want text, json, junit or html", s)
}

// FormatForPath picks a report file's format from its extension: .xml is
// JUnit, .json is JSON, .html and .htm HTML, anything else text (case does
// not matter).
func FormatForPath(path string) Format {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".xml":
		return FormatJUnit
	case ".json":
		return FormatJSON
	case ".html", ".htm":
		return FormatHTML
	}
	return FormatText
}

// Trace is one trace's part of a report: its results, or the error
// that kept it from being evaluated.
type Trace struct {
	Name    string // trace_id; "#<n>" (1-based position in the input) when there is none
	TraceID string // "" when the trace has no usable trace_id
	// CaseKey is what was evaluated (package resultkey); "" when unknown.
	// A server's trace takes its first result's.
	CaseKey    string
	Results    []Recorded
	Err        *Error // set when the trace could not be evaluated; Results is then empty
	DurationMS int64
}

// Error is why a trace has no results: an invalid trace (1001), an
// assertion that cannot be evaluated (1002), a timeout, a provider failure.
type Error struct {
	AssertionID string // the assertion at fault, for ASSERTION_ERROR; "" otherwise
	Type        string // that assertion's type, when known
	Code        int    // the wire code the server would answer with (spec §5)
	Message     string
	Detail      string
}

// ErrorType names the code as spec §5 does (INVALID_TRACE, ...).
func (e *Error) ErrorType() string {
	return assert.ErrorType(e.Code)
}

// Status sums up a trace: error, hard_fail, soft_fail or pass.
func (t *Trace) Status() string {
	if t.Err != nil {
		return "error"
	}
	st := assert.Pass
	for _, r := range t.Results {
		if r.Result.Failure != nil {
			return "error"
		}
		switch r.Result.Status {
		case assert.HardFail:
			return string(assert.HardFail)
		case assert.SoftFail:
			st = assert.SoftFail
		}
	}
	return string(st)
}

// Totals sums a report up.
type Totals struct {
	Traces       int // traces reported
	FailedTraces int // traces with a hard_fail or an error
	Results      int // assertion results, whatever their status
	Pass         int
	SoftFail     int
	HardFail     int
	Skipped      int // results the engine did not evaluate (skip_after_hard_fail); counted in SoftFail too
	Errors       int // traces, and single assertions of an evaluated trace, that could not be evaluated
	Cost         float64
	DurationMS   int64 // the eval command: wall time of the run; the server: the sum of result durations
	// Scenarios summarises repeated runs per scenario (the server's evaluate_batch scenario_id and
	// repeat, capability simulation): n, passes, pass^k and the Wilson interval. Empty: not reported.
	Scenarios []simulate.ScenarioSummary
	// Incomplete is set when the run stopped before the end of its input
	// (bad input met on the way, an interrupt): the report cannot pass.
	Incomplete bool
	// Generated is when the report was made, for the formats that show it
	// (HTML); zero leaves it out (eval --deterministic, goldens).
	Generated time.Time
}

// Add counts one trace.
func (t *Totals) Add(tr *Trace) {
	t.Traces++
	if tr.Err != nil {
		t.Errors++
	}
	for _, r := range tr.Results {
		t.Results++
		if r.Result.Failure != nil {
			t.Errors++
		}
		switch r.Result.Status {
		case assert.Pass:
			t.Pass++
		case assert.SoftFail:
			t.SoftFail++
		case assert.HardFail:
			t.HardFail++
		}
		if r.Result.Skipped {
			t.Skipped++
		}
		t.Cost += r.Result.Cost
	}
	if st := tr.Status(); st == "error" || st == string(assert.HardFail) {
		t.FailedTraces++
	}
}

// Passed reports whether nothing hard-failed and every trace was evaluated.
func (t *Totals) Passed() bool { return t.HardFail == 0 && t.Errors == 0 && !t.Incomplete }

// Writer writes a report as it is produced: begin, one trace at a
// time in report order, then end. No format holds more than one trace,
// but HTML, which shows failures before passes and the totals first: it
// keeps what it will show, within its size bound (htmlMaxBytes).
type Writer interface {
	Begin() error
	Trace(tr *Trace) error // the next trace, in report order
	End(tot *Totals) error
}

// NewWriter returns the streaming writer of format f.
func NewWriter(f Format, w io.Writer) Writer {
	switch f {
	case FormatJSON:
		return &jsonReport{w: w}
	case FormatJUnit:
		return &junitReport{w: w}
	case FormatHTML:
		return &htmlReport{w: w}
	}
	return &textReport{w: w}
}

// writeTotals writes the report, starting its totals from tot (timestamp, scenarios).
func writeTotals(w io.Writer, f Format, traces []Trace, tot Totals) error {
	rw := NewWriter(f, w)
	if err := rw.Begin(); err != nil {
		return err
	}
	for i := range traces {
		tot.Add(&traces[i])
		tot.DurationMS += traces[i].DurationMS
		if err := rw.Trace(&traces[i]); err != nil {
			return err
		}
	}
	return rw.End(&tot)
}

// dollars prints a cost for a person: "$" and the amount to 12 significant
// digits, which is past any price's precision and short of the float
// error a sum of costs gathers (0.00016062, not 0.00016062000000000002).
// The JSON report keeps the exact sum.
func dollars(c float64) string {
	c, _ = strconv.ParseFloat(strconv.FormatFloat(finite(c), 'g', 12, 64), 64)
	return "$" + strconv.FormatFloat(c, 'f', -1, 64)
}

// seconds formats milliseconds as seconds with 3 decimals (JUnit's time).
func seconds(ms int64) string {
	if ms < 0 {
		ms = 0
	}
	return fmt.Sprintf("%d.%03d", ms/1000, ms%1000)
}
