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

	"attest-engine/cli"
	"attest-engine/ingest"
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
	exports chan struct{} // --listen: a slot per request being read or handed over
	dur     *durable      // --state-dir: the ledger, the input checkpoint, the spool; nil without
	spoolMu sync.Mutex    // orders spool appends with the pipeline's items
	// taking is held (read) by deliver while it hands a request over; the
	// source, stopping, takes it (write) to set stopped, so that every
	// request deliver handed over (and answered 200) is in items before
	// the source's last read of them, and none comes after.
	taking  sync.RWMutex
	stopped bool
	// writeErr is the first failed write (the emitting goroutine's).
	writeErr error
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
	c := &command{o: o, suite: st, log: log, prefer: st.MaxRate(o.rate)}
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
// (--max-line), the assembler's bounds (--max-open-traces, --max-spans,
// --max-open-bytes) and at most 2×jobs traces between reading and writing.
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
	stop, cancel := context.WithCancel(ctx)
	defer cancel()

	items := make(chan ingest.Item, 4) // few: each may hold a line of up to --max-line
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
			if err := c.read(stop, in, items); err != nil {
				setErr(fmt.Errorf("reading %s: %v", c.o.in, err))
			}
		})
	}
	if c.o.listen != "" && c.dur != nil {
		if err := c.dur.openSpool(); err != nil {
			return err
		}
	}
	if c.o.listen != "" {
		ready := make(chan error, 1)
		producers.Go(func() {
			if err := c.serve(stop, items, ready); err != nil {
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
		close(items)
	}()

	// The eval command's pool: traces are read on one goroutine (the
	// assembler's), evaluated by --jobs workers, and written in input order
	// on this one. Its own context is not the signal's: on a signal the
	// source flushes what it holds and ends, so that everything read is
	// evaluated and written.
	src := c.newSource(stop, items)
	if c.dur != nil {
		stopCheckpoints := c.dur.start()
		defer stopCheckpoints()
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	_, _ = pool.InOrder(context.Background(), c.o.jobs, src.next, c.ev.results, func(rs []Result) error {
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
		"duplicate_spans", src.feed.Duplicates(), "unrecorded_traces", c.stats.recordErrs)
	if c.writeErr != nil {
		return fmt.Errorf("writing results: %v", c.writeErr)
	}
	errMu.Lock()
	defer errMu.Unlock()
	return inputErr
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

// source owns the span assembler: it takes input items, keeps this
// process's sample of them, and hands out finished traces in order. It runs
// on the pool's reading goroutine.
type source struct {
	c     *command
	stop  context.Context
	items <-chan ingest.Item
	feed  *ingest.Feed
	tick  <-chan time.Time
	queue []ingest.Trace
	done  bool
}

func (c *command) newSource(stop context.Context, items <-chan ingest.Item) *source {
	warn := &ingest.Warnings{Func: func(msg string) { c.log.Warn(msg) }}
	s := &source{c: c, stop: stop, items: items}
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
func (s *source) next(int) (ingest.Trace, error) {
	for {
		if len(s.queue) > 0 {
			t := s.queue[0]
			s.queue = s.queue[1:]
			return t, nil
		}
		if s.done {
			return ingest.Trace{}, io.EOF
		}
		select {
		case it, ok := <-s.items:
			if !ok {
				s.add(s.feed.Flush())
				s.done = true
				continue
			}
			s.item(it)
		case <-s.tick:
			s.add(s.feed.Tick())
		case <-s.stop.Done():
			// Signalled or output failed: what was read is evaluated (the
			// producers may be blocked in a read, so no waiting for them),
			// and every request answered 200 (stopTaking).
			s.c.stopTaking()
			for drained := false; !drained; {
				select {
				case it, ok := <-s.items:
					if ok {
						s.item(it)
					} else {
						drained = true
					}
				default:
					drained = true
				}
			}
			s.add(s.feed.Flush())
			s.done = true
		}
	}
}

func (s *source) item(it ingest.Item) {
	c := s.c
	c.stats.lines++
	if it.Seq == 0 {
		it.Seq = uint64(c.stats.lines) // a spooled request comes numbered
	}
	if it.Trace != nil && it.Trace.Err != nil {
		c.log.Warn("unreadable input line: its results carry the error", "line", it.Line, "error", it.Trace.Err.Error())
	}
	it = c.keepItem(it)
	if c.dur != nil {
		c.dur.item(it)
	}
	ts := s.feed.Item(it)
	if c.dur != nil {
		c.dur.read(it, s.feed.Mark())
	}
	s.add(ts)
}

func (s *source) add(ts []ingest.Trace) {
	for _, t := range ts {
		switch {
		case s.c.keepTrace(t) && !s.c.dur.judged(t):
			s.c.stats.traces++
			s.queue = append(s.queue, t)
		default:
			if t.Doc != nil {
				t.Doc.Release() // another shard's, or sampled out: its tape is reused
			}
			t.Hold.Done() // nothing to record
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
	if c.rec != nil {
		if err := c.rec.Record(rs); err != nil {
			if c.stats.recordErrs == 0 {
				c.log.Error("recording results in --state-dir failed; results are still written", "error", err.Error())
			}
			c.stats.recordErrs++
		}
	}
}
