// run.go: the eval command's run: traces streamed in, evaluated on the pool, reports out in input order.

package eval

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"attest-engine/assert"
	"attest-engine/pool"
	"attest-engine/report"
	"attest-engine/resultkey"
	"attest-engine/simulate"
	"attest-engine/tape"
	"attest-engine/trace"
)

// job is one trace with its assertions, on its way through the pool.
type job struct {
	index int // 0-based position in the trace file
	doc   doc
	as    assertionList
}

// run evaluates every trace and writes the report. Memory is bounded: one
// goroutine reads a trace at a time (each line at most trace.MaxLineBytes), at
// most 2×jobs traces are between reading and writing (pool.InOrder), and the
// report writer holds one trace's results at a time (HTML: what it will
// show, within its size bound). Reports come out in input order, each as
// soon as it and every trace before it are done.
func (c *evalCmd) run(ctx context.Context, traces, asserts io.Reader, openOut func() (io.Writer, func() error, error)) int {
	start := time.Now()
	src, err := readAssertions(asserts, inputName(c.assertionsPath))
	if err != nil {
		return c.badInput(err)
	}
	// The first trace is read before any output: a trace file that is not
	// JSON at all leaves no report behind.
	dr := newDocReader(traces, inputName(c.tracePath), trace.MaxLineBytes)
	// One malformed line of an NDJSON trace file is that trace's
	// INVALID_TRACE entry, naming its line; the traces after it are
	// evaluated all the same.
	dr.lenient = true
	first, firstErr := dr.next()
	if firstErr != nil && !errors.Is(firstErr, io.EOF) {
		return c.badInput(firstErr)
	}
	out, closeOut, err := openOut()
	if err != nil {
		return c.badInput(err)
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	rw := report.NewWriter(c.format, bw)
	writeErr := rw.Begin()

	next := func(i int) (job, error) {
		d, err := first, firstErr
		if i > 0 {
			d, err = dr.next()
		}
		if errors.Is(err, io.EOF) {
			if err := src.finish(i); err != nil {
				return job{}, err
			}
			return job{}, io.EOF
		}
		if err != nil {
			return job{}, err
		}
		as, err := src.forTrace(i)
		if err != nil {
			return job{}, err
		}
		return job{index: i, doc: d, as: as}, nil
	}
	var tot report.Totals
	interrupted, fatal := pool.InOrder(ctx, c.jobs, next, c.evaluate, func(tr *report.Trace) error {
		if c.deterministic {
			tr.DurationMS = 0
			for i := range tr.Results {
				tr.Results[i].Result.DurationMS = 0
			}
		}
		tot.Add(tr)
		if writeErr == nil {
			if writeErr = rw.Trace(tr); writeErr == nil {
				writeErr = bw.Flush()
			}
		}
		c.con.progress(&tot, start)
		return writeErr // a report that cannot be written stops the reading
	})
	c.con.clear()
	if !c.deterministic {
		tot.DurationMS = time.Since(start).Milliseconds()
		tot.Generated = start
	}
	tot.Incomplete = fatal != nil || interrupted || writeErr != nil
	if writeErr == nil {
		writeErr = rw.End(&tot)
	}
	if writeErr == nil {
		writeErr = bw.Flush()
	}
	if err := closeOut(); writeErr == nil {
		writeErr = err
	}
	switch {
	case fatal != nil:
		return c.badInput(fatal)
	case writeErr != nil:
		return c.badInput(fmt.Errorf("writing the report: %w", writeErr))
	case interrupted:
		c.con.printf("attest-engine eval: interrupted after %d traces; the rest were not evaluated\n", tot.Traces)
		return 1
	case !tot.Passed():
		return 1
	}
	return 0
}

// evaluate is one job: a too-long line is an INVALID_TRACE entry; anything
// else goes to the Evaluator, its warnings to stderr.
func (c *evalCmd) evaluate(j job) *report.Trace {
	if j.doc.tooLong {
		return &report.Trace{Name: "#" + strconv.Itoa(j.index+1), Err: &report.Error{Code: assert.CodeInvalidTrace,
			Message: fmt.Sprintf("trace line exceeds max size: %d > %d bytes", j.doc.size, trace.MaxLineBytes),
			Detail:  trace.SizeDetail}}
	}
	if j.doc.bad != "" {
		return &report.Trace{Name: "#" + strconv.Itoa(j.index+1), Err: &report.Error{Code: assert.CodeInvalidTrace,
			Message: fmt.Sprintf("%s: line %d: %s", inputName(c.tracePath), j.doc.line, j.doc.bad),
			Detail:  "Each line of an NDJSON trace file must be one JSON object, with no repeated keys (spec §7). Fix or remove this line; the other traces were evaluated."}}
	}
	tr := c.ev.Trace(j.index, j.doc.tv, j.doc.size, j.as.list, j.as.err, func(name, w string) {
		c.con.printf("attest-engine eval: trace %s: warning: %s\n", report.Clean(name), report.Clean(w))
	})
	if j.doc.parsed != nil {
		j.doc.parsed.Release() // evaluated: the report holds nothing of the tape
	}
	return tr
}

// Evaluator evaluates one trace at a time into its part of a report, as
// evaluate_batch evaluates a batch (the evaluation core, assert.Engine.Run).
// It is safe for concurrent use.
type Evaluator struct {
	Engine  *assert.Engine
	Timeout time.Duration // per trace, as --eval-timeout is per batch
	Specs   bool          // fill each result's Spec (report.SpecText), for an HTML report
	// Keys fills the trace's case key and each result's assertion key
	// (package resultkey), for a JSON report.
	Keys bool
}

// Trace validates the trace at 0-based position index of its input
// (decoded from size bytes of text; 0 when unknown) and evaluates list over
// it. listErr, when set, is why the list cannot be evaluated (an
// *assert.Error): the trace is still validated first, as evaluate_batch
// does. warn receives the trace's name and each validation warning. Every
// failure becomes the trace's error entry, coded as the server answers it.
func (ev *Evaluator) Trace(index int, tv tape.Value, size int, list []assert.Assertion, listErr error, warn func(name, warning string)) *report.Trace {
	start := time.Now()
	tr := &report.Trace{Name: "#" + strconv.Itoa(index+1)}
	defer func() {
		// Run recovers its own panics; this is for the rest, as the server's
		// request loop does.
		if p := recover(); p != nil {
			f := assert.FailureOf(&assert.Panic{Value: p}, ev.Timeout)
			tr.Results, tr.Err = nil, &report.Error{Code: f.Code, Message: f.Message, Detail: f.Detail}
		}
	}()
	if id := tv.Get("trace_id"); id.Kind() == tape.String && strings.TrimSpace(id.Str()) != "" {
		id := id.Str()
		tr.Name, tr.TraceID = id, id
	}
	if ev.Keys {
		in := tv.Get("input")
		tr.CaseKey, _ = resultkey.Case(tv.Get("agent_id").Str(), in.Any(), in.Exists())
	}
	ctx, cancel := context.WithTimeout(context.Background(), ev.Timeout)
	defer cancel()
	results, err := ev.Engine.Run(ctx, assert.Batch{Trace: tv, SourceBytes: size},
		func(warnings []string) {
			for _, w := range warnings {
				warn(tr.Name, w)
			}
		},
		func(tape.Value) ([]assert.Assertion, error) { return list, listErr })
	if err != nil && listErr == nil && len(list) > 0 {
		if f := assert.FailureOf(err, ev.Timeout); f.Code == assert.CodeProviderError {
			if len(list) == 1 { // the one assertion is the failing one: no need to ask again
				f.AssertionID = list[0].ID
				results, err = []assert.Result{{AssertionID: list[0].ID, RequestID: list[0].RequestID, Failure: f}}, nil
			} else {
				results, err = ev.isolate(tv, size, list), nil
			}
		}
	}
	tr.DurationMS = time.Since(start).Milliseconds()
	if err != nil {
		f := assert.FailureOf(err, ev.Timeout)
		tr.Err = &report.Error{Code: f.Code, Message: f.Message, Detail: f.Detail, AssertionID: f.AssertionID, Type: typeOf(list, f.AssertionID)}
		return tr
	}
	tr.Results = make([]report.Recorded, len(results))
	for i, r := range results { // one result per assertion, in request order (assert.Engine.Run)
		tr.Results[i] = report.Recorded{TraceID: tr.TraceID, Type: list[i].Type, Result: r, CaseKey: tr.CaseKey}
		if ev.Keys {
			a := &list[i]
			if c, err := simulate.Canonical(a.Spec); err == nil {
				tr.Results[i].AssertionKey = resultkey.AssertionOf(a.Type, c, a.AgentID, "")
				tr.Results[i].KeyLabel = resultkey.Label(a.Type, c, "")
			}
		}
		if ev.Specs {
			tr.Results[i].Spec = report.SpecText(list[i].Spec)
		}
	}
	return tr
}

// isolate evaluates list one assertion at a time, after a provider failure
// (an outage, an offline cache miss) failed the batch: only the assertions
// that fail carry the failure (assert.Result.Failure), and the others
// their results, as watch does. The pass has one --eval-timeout of its
// own; what the batch computed is mostly in the provider cache already.
func (ev *Evaluator) isolate(tv tape.Value, size int, list []assert.Assertion) []assert.Result {
	ctx, cancel := context.WithTimeout(context.Background(), ev.Timeout)
	defer cancel()
	out := make([]assert.Result, len(list))
	for i, a := range list {
		rs, err := ev.Engine.Run(ctx, assert.Batch{Trace: tv, SourceBytes: size}, nil,
			func(tape.Value) ([]assert.Assertion, error) { return list[i : i+1], nil })
		if err == nil && len(rs) != 1 {
			err = fmt.Errorf("the engine returned %d results for one assertion", len(rs))
		}
		if err != nil {
			f := assert.FailureOf(err, ev.Timeout)
			f.AssertionID = a.ID
			out[i] = assert.Result{AssertionID: a.ID, RequestID: a.RequestID, Failure: f}
			continue
		}
		out[i] = rs[0]
	}
	return out
}

func typeOf(list []assert.Assertion, id string) string {
	if id == "" {
		return ""
	}
	for _, a := range list {
		if a.ID == id {
			return a.Type
		}
	}
	return ""
}

// console is the run's stderr: messages, and a progress line that is shown
// only when stderr is a terminal (never in a pipe or a file).
type console struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	shown bool // a progress line is on screen
	last  time.Time
}

func newConsole(w io.Writer) *console {
	c := &console{w: w}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			c.tty = true
		}
	}
	return c
}

func (c *console) printf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
	fmt.Fprintf(c.w, format, args...)
}

// progress redraws the progress line, at most ten times a second.
func (c *console) progress(tot *report.Totals, start time.Time) {
	if !c.tty {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if now := time.Now(); now.Sub(c.last) >= 100*time.Millisecond {
		c.last = now
		c.shown = true
		fmt.Fprintf(c.w, "\rattest-engine eval: %d %s, %d failed, %.1fs\x1b[K", tot.Traces, plural(tot.Traces, "trace"), tot.FailedTraces, now.Sub(start).Seconds())
	}
}

func (c *console) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
}

func (c *console) clearLocked() {
	if c.shown {
		fmt.Fprint(c.w, "\r\x1b[K")
		c.shown = false
	}
}
