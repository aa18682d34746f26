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
	"sync/atomic"
	"time"

	"attest-engine/cli"
	"attest-engine/ingest"
	"attest-engine/otlpexport"
	"attest-engine/pool"
	"attest-engine/sample"
	"attest-engine/suite"
)

type command struct {
	o       options
	ev      *evaluator
	suite   *suite.Suite
	log     *slog.Logger
	rec     Recorder
	prefer  sample.Rate // the highest rate of any agent: below it a trace id is out everywhere
	stats   stats
	dur     *durable             // --state-dir: the ledger, the input checkpoint, the spool; nil without
	spoolMu sync.Mutex           // orders spool appends with the hand-off's queue
	exp     *otlpexport.Exporter // --export-otlp, --export-otlp-file; nil without
	// unknownSeen: the paths --listen answered 404, logged once each.
	unknownMu   sync.Mutex
	unknownSeen map[string]bool
	// writeErr is the first failed write (the emitting goroutine's).
	writeErr error

	// The pipeline's stages and their byte bounds (budget.go).
	items    chan ingest.Item // producers → source
	inflight *budget          // bytes of the items sent and not yet taken by the source
	pool     *budget          // bytes of the traces between the source and the end of their evaluation
	chunk    int              // the most span bytes (Span.Size) in one item
	// abandon ends when run returns: producers stop handing on, even what
	// was acknowledged (the output failed).
	abandon context.Context

	// --listen (admission.go, conns.go).
	lim     listenLimits
	bodies  *budget     // request bytes being read or taken and not yet handed on
	growing atomic.Bool // a body is waiting for room in bodies (readBody)
	handoff *handoff    // requests answered 200, to hand on in order
}

// stats are counted by the goroutine that owns each field.
type stats struct {
	lines, traces, sampledOut, filteredOut, results int
	recordErrs                                      int // traces whose Record failed (wholly or in part)
}

func newCommand(o options, env Env, log *slog.Logger) (*command, error) {
	f, err := os.Open(o.suite)
	if err != nil {
		return nil, fmt.Errorf("--suite: %v", err)
	}
	st, err := suite.Read(f, o.suite)
	f.Close()
	if err != nil {
		return nil, err
	}
	engine, _, err := cli.LoadEngine(o.config, o.offline)
	if err != nil {
		return nil, err
	}
	for _, w := range engine.Warnings() {
		log.Warn(w)
	}
	c := &command{o: o, suite: st, log: log, prefer: st.MaxRate(o.rate), chunk: ingest.DefaultChunk,
		lim: o.listenLimits.withDefaults(o.maxLine)}
	c.inflight, c.pool, c.bodies = newBudget(inflightBytes), newBudget(poolBytes), newBudget(c.lim.Bodies)
	c.ev = &evaluator{engine: engine, timeout: o.timeout, suite: st, version: env.Version,
		wallClock: !o.deterministic, warn: func(msg string) { log.Warn(msg) },
		price: engine.Provider().PriceOf, costly: make([]bool, len(st.Assertions))}
	for i, a := range st.Assertions {
		c.ev.costly[i] = isCostAssertion(a)
	}
	if o.history.Dir != "" {
		if env.Recorder == nil {
			return nil, errors.New("--state-dir: this engine is built without result history")
		}
		if c.rec, err = env.Recorder(o.history, log); err != nil {
			return nil, fmt.Errorf("--state-dir: %v", err)
		}
	}
	return c, nil
}

// live: traces also close by the wall clock (a stream with no end).
func (c *command) live() bool { return !c.o.deterministic && (c.o.follow || c.o.listen != "") }

// run streams the input through. Memory is bounded by the input line
// (--max-line), the request bodies the listener holds (listenLimits.Bodies),
// the items in flight (inflightBytes), the assembler's bounds
// (--max-open-traces, --max-spans, --max-open-bytes) and the traces between
// the source and the end of their evaluation (poolBytes, and at most
// 2×jobs of them).
func (c *command) run(ctx context.Context, stdin io.Reader, stdout io.Writer) (err error) {
	out, closeOut, err := openOut(ctx, c.o.out, stdout, c.rec != nil)
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
	if c.o.exportURL != "" || c.o.exportFile != "" {
		exp, err := otlpexport.Start(otlpexport.Config{URL: c.o.exportURL, File: c.o.exportFile, Version: c.ev.version}, c.log)
		if err != nil {
			return err
		}
		c.exp = exp
		defer exp.Close() // after the last line is written: the pool has returned
	}
	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	abandon, drop := context.WithCancel(context.Background())
	defer drop()
	c.abandon = abandon

	c.items = make(chan ingest.Item, 4) // few: each holds up to a chunk, and all of them at most inflightBytes
	var producers sync.WaitGroup
	var errMu sync.Mutex
	var inputErr error // the first failure of a producer
	setErr := func(err error) {
		errMu.Lock()
		if inputErr == nil {
			inputErr = err
		}
		errMu.Unlock()
	}
	if c.rec != nil {
		c.dur = &durable{c: c}
		defer c.dur.close()
	} else if c.o.listen != "" {
		c.log.Info("no --state-dir: spans answered 200 are held in memory until evaluated; a crash loses them (with --state-dir they are kept in a spool)")
	}
	if c.o.in != "" {
		in, file, closeIn, err := c.openIn(stop, stdin)
		if err != nil {
			return fmt.Errorf("--in: %v", err)
		}
		defer closeIn()
		if c.dur != nil {
			if err := c.dur.resume(file); err != nil {
				return err
			}
		}
		producers.Go(func() {
			if err := c.read(stop, in); err != nil {
				setErr(fmt.Errorf("reading %s: %v", c.o.in, err))
			}
		})
	}
	if c.o.listen != "" && c.dur != nil {
		if err := c.dur.openSpool(); err != nil {
			return err
		}
	}
	var listening chan struct{} // closed once every request the listener took is handed on
	if c.o.listen != "" {
		ready := make(chan error, 1)
		listening = make(chan struct{})
		producers.Go(func() {
			defer close(listening)
			if err := c.serve(stop, ready); err != nil {
				setErr(err)
			}
		})
		if err := <-ready; err != nil {
			cancel()
			producers.Wait()
			return err
		}
	}
	go func() {
		producers.Wait()
		close(c.items)
	}()

	// The eval command's pool: traces are read on one goroutine (the
	// assembler's), evaluated by --jobs workers, and written in input order
	// on this one. Its own context is not the signal's: on a signal the
	// source flushes what it holds and ends, so that everything read is
	// evaluated and written.
	src := c.newSource(stop, listening)
	if c.dur != nil {
		stopCheckpoints := c.dur.start()
		defer stopCheckpoints()
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	work := func(t ingest.Trace) []Result {
		defer c.pool.release(traceCost(t))
		return c.ev.results(t)
	}
	_, _ = pool.InOrder(context.Background(), c.o.jobs, src.next, work, func(rs []Result) error {
		if err := c.write(enc, rs); err != nil {
			cancel() // the source stops reading
			return err
		}
		if err := bw.Flush(); err != nil {
			c.writeErr = err // the last trace's flush may be the only failing write
			cancel()
			return err
		}
		// Written, then recorded, then settled: a crash before the record
		// writes the lines again after a restart (the history refuses
		// them then), never records what was not written.
		c.record(rs)
		return nil
	})
	c.log.Info("watch finished", "lines", c.stats.lines, "traces", c.stats.traces, "sampled_out", c.stats.sampledOut,
		"filtered_out", c.stats.filteredOut, "results", c.stats.results, "late_spans", src.feed.Late(),
		"duplicate_spans", src.feed.Duplicates(), "unrecorded_traces", c.stats.recordErrs, "peak_rss_bytes", peakRSS())
	if c.writeErr != nil {
		return fmt.Errorf("writing results: %v", c.writeErr)
	}
	errMu.Lock()
	defer errMu.Unlock()
	return inputErr
}

// read sends the items of the input file until its end (or, with
// --follow, until stopped). A long OTLP line comes in chunks (Reader.Each),
// each sent once it fits in the budget of items in flight.
func (c *command) read(stop context.Context, in io.Reader) error {
	r := ingest.NewReader(in, c.o.format, c.o.maxLine)
	r.Chunk = c.chunk
	for {
		err := r.Each(func(it ingest.Item) error { return c.send(stop, it) })
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil && stop.Err() != nil:
			return nil
		case err != nil:
			return err
		}
	}
}

// source owns the span assembler: it takes input items, keeps this
// process's sample of them, and hands out finished traces one at a time,
// in order, each once it fits in the pool's byte budget. It runs on the
// pool's reading goroutine.
type source struct {
	c    *command
	stop context.Context
	feed *ingest.Feed
	tick <-chan time.Time
	// listening is closed once the listener has handed on every request
	// it acknowledged (nil without --listen, or once seen closed).
	listening <-chan struct{}
	stopping  bool   // stop came: take what is acknowledged, then end
	seq       uint64 // Seq of the last item that began a line or request
	done      bool
}

func (c *command) newSource(stop context.Context, listening <-chan struct{}) *source {
	warn := &ingest.Warnings{Func: func(msg string) { c.log.Warn(msg) }}
	s := &source{c: c, stop: stop, listening: listening}
	var clock func() int64
	if c.live() {
		clock = func() int64 { return time.Now().UnixNano() }
		// The ticker lives as long as the process: watch runs once.
		s.tick = time.NewTicker(max(min(c.o.limits.Grace, c.o.limits.Idle)/4, 10*time.Millisecond)).C
	}
	s.feed = ingest.NewFeed(c.o.limits, warn, clock)
	if c.dur != nil {
		c.dur.attach(s.feed)
	}
	return s
}

// next is the pool's reader: the next trace this process evaluates, or
// io.EOF once the input has ended (or a signal came) and all is flushed.
// A trace closed by the assembler is mapped only when its turn comes, and
// no further input is taken while closed traces wait: what waits is what
// the assembler held.
func (s *source) next(int) (ingest.Trace, error) {
	for {
		if t, ok := s.take(); ok {
			return t, nil
		}
		if s.done {
			return ingest.Trace{}, io.EOF
		}
		if s.stopping {
			s.ending()
			continue
		}
		select {
		case it, ok := <-s.c.items:
			if !ok {
				s.feed.Flush()
				s.done = true
				continue
			}
			s.item(it)
		case <-s.tick:
			s.feed.Tick()
		case <-s.stop.Done():
			s.stopping = true
		}
	}
}

// ending takes one step of the end after a signal (or a failed output):
// what the listener acknowledged is taken in full, as the pool takes the
// traces it closes; then what the producers have queued (the file reader
// may be blocked in a read: nothing waits for it), and everything open is
// flushed.
func (s *source) ending() {
	if s.listening != nil {
		select {
		case it, ok := <-s.c.items:
			if ok {
				s.item(it)
			} else {
				s.listening = nil
			}
		case <-s.listening:
			s.listening = nil
		case <-s.tick:
			s.feed.Tick()
		}
		return
	}
	for drained := false; !drained; {
		select {
		case it, ok := <-s.c.items:
			if ok {
				s.item(it)
			} else {
				drained = true
			}
		default:
			drained = true
		}
	}
	s.feed.Flush()
	s.done = true
}

// take is the next closed trace this process keeps, once it fits in the
// pool's budget (the workers release it as they finish); false when none
// is ready.
func (s *source) take() (ingest.Trace, bool) {
	for {
		t, ok := s.feed.Next()
		if !ok {
			return t, false
		}
		if !s.c.keepTrace(t) || s.c.dur.judged(t) {
			if t.Doc != nil {
				t.Doc.Release() // another shard's, or sampled out: its tape is reused
			}
			t.Hold.Done() // nothing to record
			continue
		}
		s.c.stats.traces++
		s.c.pool.acquire(context.Background(), traceCost(t)) // the workers always finish
		return t, true
	}
}

// item takes one input item into the feed. The chunks of one line or
// request after its first (Part > 0) share its Seq, so a trace's place in
// the input does not depend on how its line was cut.
func (s *source) item(it ingest.Item) {
	c := s.c
	c.inflight.release(itemCost(it))
	if it.Part == 0 {
		c.stats.lines++
	}
	switch {
	case it.Seq != 0: // a spooled request comes numbered
	case it.Part == 0:
		it.Seq = uint64(c.stats.lines)
	default:
		it.Seq = s.seq
	}
	s.seq = it.Seq
	if it.Trace != nil && it.Trace.Err != nil {
		c.log.Warn("unreadable input line: its results carry the error", "line", it.Line, "error", it.Trace.Err.Error())
	}
	it = c.keepItem(it)
	if c.dur != nil {
		c.dur.item(it)
	}
	s.feed.Add(it)
	if c.dur != nil {
		c.dur.read(it, s.feed.Mark())
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
	switch {
	case !c.o.shard.Keep(key):
		return false
	case !c.suite.Rate(t.AgentID, c.o.rate).Keep(key):
		c.stats.sampledOut++
		return false
	case c.suite.Agents != nil && t.Err == nil && !c.suite.Agents[t.AgentID]:
		// a too-late trace has its agent when this process mapped it
		c.stats.filteredOut++
		return false
	}
	return true
}

// write writes one trace's lines. It runs on the pool's emitting
// goroutine.
func (c *command) write(enc *json.Encoder, rs []Result) error {
	if c.writeErr != nil {
		return c.writeErr
	}
	for _, r := range rs {
		if c.writeErr = enc.Encode(r); c.writeErr != nil {
			return c.writeErr
		}
		c.stats.results++
	}
	return nil
}

// record hands one trace's written lines to the recorder, then releases
// the trace's hold on its input items. It runs on the pool's emitting
// goroutine.
func (c *command) record(rs []Result) {
	if len(rs) == 0 {
		return
	}
	defer rs[0].hold.Done()
	if c.exp != nil {
		c.exp.Export(exported(rs))
	}
	if c.rec != nil {
		if err := c.rec.Record(rs); err != nil {
			if c.stats.recordErrs == 0 {
				c.log.Error("recording results in --state-dir failed; results are still written", "error", err.Error())
			}
			c.stats.recordErrs++
		}
	}
}
