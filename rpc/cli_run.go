// cli_run.go: the eval subcommand's run: traces streamed in, a small worker pool, reports out in input order.

package rpc

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
	"attest-engine/trace"
)

// job is one trace on its way through the pool.
type job struct {
	index int // 0-based position in the trace file
	doc   doc
	as    assertionList
	done  chan *TraceReport // buffered: a worker never waits on the writer
}

// run evaluates every trace and writes the report. Memory is bounded: one
// goroutine reads a trace at a time (each line at most MaxLineBytes), at
// most 2×jobs traces are between reading and writing, and the report
// writer holds one trace's results at a time. Reports come out in input
// order, each as soon as it and every trace before it are done.
func (c *evalCmd) run(ctx context.Context, traces, asserts io.Reader, openOut func() (io.Writer, func() error, error)) int {
	start := time.Now()
	src, err := readAssertions(asserts, inputName(c.assertionsPath))
	if err != nil {
		return c.badInput(err)
	}
	// The first trace is read before any output: a trace file that is not
	// JSON at all leaves no report behind.
	dr := newDocReader(traces, inputName(c.tracePath), MaxLineBytes)
	first, firstErr := dr.next()
	if firstErr != nil && !errors.Is(firstErr, io.EOF) {
		return c.badInput(firstErr)
	}
	out, closeOut, err := openOut()
	if err != nil {
		return c.badInput(err)
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	rw := newReportWriter(c.format, bw)
	writeErr := rw.begin()

	// stop ends reading early: on ctx (a signal) or when output fails.
	readCtx, stop := context.WithCancel(ctx)
	defer stop()
	order := make(chan *job, 2*c.jobs)
	work := make(chan *job)
	var fatal error // set by the reader before it closes order
	interrupted := false
	go func() {
		defer close(work)
		defer close(order)
		for i := 0; ; i++ {
			if readCtx.Err() != nil {
				interrupted = ctx.Err() != nil
				return
			}
			d, err := first, firstErr
			if i > 0 {
				d, err = dr.next()
			}
			if errors.Is(err, io.EOF) {
				fatal = src.finish(i)
				return
			}
			if err != nil {
				fatal = err
				return
			}
			as, err := src.forTrace(i)
			if err != nil {
				fatal = err
				return
			}
			j := &job{index: i, doc: d, as: as, done: make(chan *TraceReport, 1)}
			order <- j
			work <- j
		}
	}()
	var workers sync.WaitGroup
	for range c.jobs {
		workers.Go(func() {
			for j := range work {
				j.done <- c.evaluate(j)
			}
		})
	}

	var tot Totals
	for j := range order {
		tr := <-j.done
		tot.add(tr)
		if writeErr == nil {
			if writeErr = rw.trace(tr); writeErr == nil {
				writeErr = bw.Flush()
			}
			if writeErr != nil {
				stop()
			}
		}
		c.con.progress(&tot, start)
	}
	workers.Wait()
	c.con.clear()
	tot.DurationMS = time.Since(start).Milliseconds()
	tot.Incomplete = fatal != nil || interrupted || writeErr != nil
	if writeErr == nil {
		writeErr = rw.end(&tot)
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

// evaluate validates one trace and evaluates its assertions, as
// evaluate_batch does; any failure becomes the trace's error entry.
func (c *evalCmd) evaluate(j *job) (tr *TraceReport) {
	start := time.Now()
	tr = &TraceReport{Name: "#" + strconv.Itoa(j.index+1)}
	defer func() {
		if p := recover(); p != nil {
			tr.Results = nil
			tr.Err = &EntryError{Code: codeEngineError, Message: "internal engine error: " + panicText(p),
				Detail: "This is a bug in the engine. Please report it with the trace and assertions that caused it."}
		}
		tr.DurationMS = time.Since(start).Milliseconds()
	}()
	if j.doc.tooLong {
		tr.Err = &EntryError{Code: codeInvalidTrace,
			Message: fmt.Sprintf("trace line exceeds max size: %d > %d bytes", j.doc.size, MaxLineBytes),
			Detail:  trace.SizeDetail}
		return tr
	}
	obj, _ := j.doc.value.(map[string]any)
	if id, ok := obj["trace_id"].(string); ok && strings.TrimSpace(id) != "" {
		tr.Name, tr.TraceID = id, id
	}
	// The text's length lets Validate skip measuring a trace that cannot
	// be over the size limits, as the server's request line does.
	warnings, terr := trace.Validate(j.doc.value, trace.Options{Strict: c.cfg.StrictStepTypes, SourceBytes: j.doc.size})
	for _, w := range warnings {
		c.con.printf("attest-engine eval: trace %s: warning: %s\n", clean(tr.Name), clean(w))
	}
	if terr != nil {
		tr.Err = c.entryError(terr, nil)
		return tr
	}
	if j.as.err != nil {
		tr.Err = c.entryError(j.as.err, j.as.list)
		return tr
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	results, err := c.engine.Evaluate(ctx, obj, j.as.list)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err() // as the server does: a late batch is a timeout
	}
	if err != nil {
		tr.Err = c.entryError(err, j.as.list)
		return tr
	}
	tr.Results = make([]Recorded, len(results))
	for i, r := range results { // one result per assertion, in request order (assert.Engine.Evaluate)
		tr.Results[i] = Recorded{TraceID: tr.TraceID, Type: j.as.list[i].Type, Result: r}
	}
	return tr
}

// entryError maps an error as the server would answer it (toWire).
func (c *evalCmd) entryError(err error, list []assert.Assertion) *EntryError {
	w := wireError(err, c.timeout)
	e := &EntryError{Code: w.Code, Message: w.Message, Detail: w.Detail}
	var ae *assert.Error
	if errors.As(err, &ae) {
		e.AssertionID, e.Type = ae.AssertionID, typeOf(list, ae.AssertionID)
	}
	return e
}

func typeOf(list []assert.Assertion, id string) string {
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
func (c *console) progress(tot *Totals, start time.Time) {
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
