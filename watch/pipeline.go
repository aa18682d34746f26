// pipeline.go: input → sampling and sharding → span assembly → worker pool → result lines, in order, with bounded memory.

package watch

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"attest-engine/assert"
	"attest-engine/ingest"
	"attest-engine/sample"
)

type command struct {
	o      options
	ev     *evaluator
	suite  *Suite
	log    *slog.Logger
	rec    Recorder
	prefer sample.Rate // the highest rate of any agent: below it a trace id is out everywhere
	stats  stats
}

// stats are counted by the goroutine that owns each field.
type stats struct {
	lines, traces, sampledOut, filteredOut, results, recordErrs int
}

// job is one trace on its way through the pool.
type job struct {
	t    ingest.Trace
	done chan []Result // buffered: a worker never waits on the writer
}

func newCommand(o options, env Env, log *slog.Logger) (*command, error) {
	f, err := os.Open(o.suite)
	if err != nil {
		return nil, fmt.Errorf("--suite: %v", err)
	}
	suite, err := ReadSuite(f, o.suite)
	f.Close()
	if err != nil {
		return nil, err
	}
	var cfg assert.Config
	if o.config != "" {
		if cfg, err = assert.LoadConfig(o.config); err != nil {
			return nil, err
		}
	}
	engine, err := assert.New(cfg)
	if err != nil {
		return nil, err
	}
	for _, w := range engine.Warnings() {
		log.Warn(w)
	}
	c := &command{o: o, suite: suite, log: log, prefer: suite.maxRate(o.rate)}
	c.ev = &evaluator{engine: engine, timeout: o.timeout, suite: suite, version: env.Version,
		wallClock: !o.deterministic, warn: func(msg string) { log.Warn(msg) }}
	if o.stateDir != "" {
		if env.Recorder == nil {
			return nil, errors.New("--state-dir: this engine is built without result history")
		}
		if c.rec, err = env.Recorder(o.stateDir, log); err != nil {
			return nil, fmt.Errorf("--state-dir: %v", err)
		}
	}
	return c, nil
}

// live: traces also close by the wall clock (a stream with no end).
func (c *command) live() bool { return !c.o.deterministic && (c.o.follow || c.o.listen != "") }

// run streams the input through. Memory is bounded by the input line
// (--max-line), the assembler's bounds (--max-open-traces, --max-spans,
// --max-open-bytes) and at most 2×jobs traces between reading and writing.
func (c *command) run(ctx context.Context, stdin io.Reader, stdout io.Writer) (err error) {
	out, closeOut, err := openOut(c.o.out, stdout)
	if err != nil {
		return fmt.Errorf("--out: %v", err)
	}
	defer func() {
		if cerr := closeOut(); err == nil && cerr != nil {
			err = fmt.Errorf("--out: %v", cerr)
		}
		if c.rec != nil {
			if cerr := c.rec.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("--state-dir: %v", cerr)
			}
		}
	}()
	stop, cancel := context.WithCancel(ctx)
	defer cancel()

	items := make(chan ingest.Item, 4) // few: each may hold a line of up to --max-line
	var producers sync.WaitGroup
	var inErr, listenErr error
	if c.o.in != "" {
		in, closeIn, err := c.openIn(stop, stdin)
		if err != nil {
			return fmt.Errorf("--in: %v", err)
		}
		defer closeIn()
		producers.Go(func() { inErr = c.read(stop, in, items) })
	}
	if c.o.listen != "" {
		ready := make(chan error, 1)
		producers.Go(func() { listenErr = c.serve(stop, items, ready) })
		if err := <-ready; err != nil {
			cancel()
			producers.Wait()
			return err
		}
	}
	go func() {
		producers.Wait()
		close(items)
	}()

	order := make(chan *job, 2*c.o.jobs)
	work := make(chan *job)
	go c.assemble(stop, items, order, work)
	var workers sync.WaitGroup
	for range c.o.jobs {
		workers.Go(func() {
			for j := range work {
				j.done <- c.ev.results(j.t)
			}
		})
	}
	writeErr := c.write(out, order, cancel)
	workers.Wait()
	c.log.Info("watch finished", "lines", c.stats.lines, "traces", c.stats.traces, "sampled_out", c.stats.sampledOut,
		"filtered_out", c.stats.filteredOut, "results", c.stats.results)
	switch {
	case writeErr != nil:
		return fmt.Errorf("writing results: %v", writeErr)
	case inErr != nil:
		return fmt.Errorf("reading %s: %v", c.o.in, inErr)
	case listenErr != nil:
		return listenErr
	}
	return nil
}

// read sends the items of the input file until its end (or, with
// --follow, until stopped).
func (c *command) read(stop context.Context, in io.Reader, items chan<- ingest.Item) error {
	r := ingest.NewReader(in, c.o.format, c.o.maxLine)
	for {
		it, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if stop.Err() != nil {
				return nil
			}
			return err
		}
		select {
		case items <- it:
		case <-stop.Done():
			return nil
		}
	}
}

// assemble owns the span assembler: it takes items, keeps this process's
// sample of them, and hands finished traces to the pool in order.
func (c *command) assemble(stop context.Context, items <-chan ingest.Item, order, work chan<- *job) {
	defer close(work)
	defer close(order)
	warn := &ingest.Warnings{Func: func(msg string) { c.log.Warn(msg) }}
	var clock func() int64
	var tick <-chan time.Time
	if c.live() {
		clock = func() int64 { return time.Now().UnixNano() }
		t := time.NewTicker(max(min(c.o.limits.Grace, c.o.limits.Idle)/4, 10*time.Millisecond))
		defer t.Stop()
		tick = t.C
	}
	feed := ingest.NewFeed(c.o.limits, warn, clock)
	send := func(ts []ingest.Trace) {
		for _, t := range ts {
			if !c.keepTrace(t) {
				continue
			}
			c.stats.traces++
			j := &job{t: t, done: make(chan []Result, 1)}
			order <- j // the writer drains order even after a failure
			work <- j
		}
	}
	for {
		select {
		case it, ok := <-items:
			if !ok {
				send(feed.Flush())
				if n := feed.Late(); n > 0 {
					c.log.Warn("spans arrived after their trace was evaluated and were not evaluated again", "spans", n)
				}
				return
			}
			c.stats.lines++
			it.Seq = uint64(c.stats.lines)
			if it.Trace != nil && it.Trace.Err != nil {
				c.log.Warn("unreadable input line: its results carry the error", "line", it.Line, "error", it.Trace.Err.Error())
			}
			send(feed.Item(c.keepItem(it)))
		case <-tick:
			send(feed.Tick())
		case <-stop.Done():
			// Signalled or output failed: what was read is evaluated (the
			// producers may be blocked in a read, so no waiting for them).
			for {
				select {
				case it, ok := <-items:
					if ok {
						c.stats.lines++
						it.Seq = uint64(c.stats.lines)
						send(feed.Item(c.keepItem(it)))
						continue
					}
				default:
				}
				break
			}
			send(feed.Flush())
			return
		}
	}
}

// keepItem drops, before assembly, the spans and traces this process will
// never evaluate: other shards', and those out at every sampling rate.
func (c *command) keepItem(it ingest.Item) ingest.Item {
	if it.Trace != nil {
		return it // judged whole by keepTrace
	}
	kept := it.Spans[:0]
	for _, sp := range it.Spans {
		if c.o.shard.Keep(sp.TraceID) && c.prefer.Keep(sp.TraceID) {
			kept = append(kept, sp)
		}
	}
	it.Spans = kept
	return it
}

// keepTrace: this shard's, sampled at its agent's rate, through the filter.
func (c *command) keepTrace(t ingest.Trace) bool {
	key := t.ID
	if t.Err != nil {
		key = "line-sha256:" + t.Digest
	}
	agent, _ := t.Value["agent_id"].(string)
	switch {
	case !c.o.shard.Keep(key):
		return false
	case !c.suite.rate(agent, c.o.rate).Keep(key):
		c.stats.sampledOut++
		return false
	case c.suite.Agents != nil && t.Err == nil && !c.suite.Agents[agent]:
		c.stats.filteredOut++
		return false
	}
	return true
}

// write writes each trace's lines in input order, flushing whenever no
// finished trace is waiting, and hands each line to the recorder.
func (c *command) write(out io.Writer, order <-chan *job, stop func()) error {
	bw := bufio.NewWriterSize(out, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	var werr error
	for j := range order {
		rs := <-j.done
		if werr != nil {
			continue // draining after a failed write
		}
		for _, r := range rs {
			if werr = enc.Encode(r); werr != nil {
				break
			}
			c.stats.results++
			if c.rec != nil {
				if err := c.rec.Record(r); err != nil {
					if c.stats.recordErrs == 0 {
						c.log.Error("recording a result in --state-dir failed; results are still written", "error", err.Error())
					}
					c.stats.recordErrs++
				}
			}
		}
		if werr == nil && len(order) == 0 {
			werr = bw.Flush()
		}
		if werr != nil {
			stop()
		}
	}
	if werr == nil {
		werr = bw.Flush()
	}
	return werr
}
