// server.go: the Server: read loop, dispatch, bounded concurrency, drain and shutdown.

package rpc

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"attest-engine/assert"
	"attest-engine/history"
	"attest-engine/lru"
	"attest-engine/trace"
	"attest-engine/version"
)

// Limits advertised in the initialize response (spec §2.1).
const (
	MaxInFlight     = 64
	ProtocolVersion = 1
	DrainTimeout    = 30 * time.Second // spec §2.3
	defaultTimeout  = 30 * time.Second
)

// Options configures a Server.
type Options struct {
	Engine      *assert.Engine
	Config      assert.Config
	EvalTimeout time.Duration // per batch; 0 means 30s
	Logger      *slog.Logger
	Version     string // engine_version; "" means version.Engine
	// ReportSpec, when set with RecordTo, turns each native result's
	// assertion spec into the Record's Spec (an HTML report shows it; its
	// text is bounded, report.SpecText); nil: no spec is kept.
	ReportSpec func(spec map[string]any) string
	// History, when set (--state-dir), records every evaluate_batch result
	// by assertion key (package resultkey) and answers query_drift
	// (drift.go); the caller opens and closes it.
	History *history.Store
	// Initialized, when set, is called once the session's initialize is
	// answered (compatible or not), on the read loop: the next line waits
	// for it. Every request before then is refused without work (a session
	// error: called before initialize), so what it sets up is in place
	// before any request does work, at no cost to the initialize answer:
	// the server command installs its signal handlers there (package serve).
	Initialized func()
}

type sessionState int

const (
	stateNew          sessionState = iota // no successful initialize yet
	stateReady                            // initialized and compatible
	stateIncompatible                     // initialized, but capabilities are missing
	stateShutdown                         // shutdown received, or input ended
)

// Server is one engine process's protocol endpoint.
type Server struct {
	engine      *assert.Engine
	cfg         assert.Config
	evalTimeout time.Duration
	log         *slog.Logger
	version     string
	history     *history.Store
	ids         *lru.Cache[string, string]   // with a history: assertion_id → assertion key (keys.go)
	keyCache    *lru.Cache[uint64, knownKey] // assertion keys by spec text (keys.go)
	runNo       uint64                       // with a history of per-run windows: this session's run number

	out *lineWriter
	// writeFailed counts failed stdout writes: the first is logged, the
	// rest only counted (a closed stdout fails every pending answer).
	writeFailed atomic.Int64
	stopped     chan struct{} // closed once the shutdown request is answered
	// readerIdle is closed when, after a shutdown request, the read loop has
	// handled every byte it had received.
	readerIdle chan struct{}
	sem        chan struct{} // counting semaphore: one slot per in-flight request
	jobs       chan *call    // to idle workers
	groups     chan *group   // to idle helpers (group.go)
	lanes      int           // goroutines that answer groups at once: the read loop and its helpers
	helpers    int           // helpers started; the read loop's
	idle       atomic.Int32  // helpers waiting for a group
	lines      *lineReader   // the read loop's; see handleLine
	maxLine    int           // trace.MaxLineBytes; less in tests, to reach too-long lines
	quit       chan struct{} // closed when Serve returns: idle workers exit
	inflight   sync.WaitGroup
	// initialized is Options.Initialized.
	initialized func()

	// Session state is touched only by the read loop, but read by tests and
	// by the shutdown answer, so it sits behind a mutex.
	mu            sync.Mutex
	state         sessionState
	missing       []string
	notifyDrift   bool // the client listed "drift_alert" in initialize's notifications (drift.go)
	shutdownAsked bool // a shutdown request is being answered
	idleClosed    bool
	sessions      int
	assertions    atomic.Int64
	record        recorder
	budgets       *ledger      // soft-failure budgets and plugin results, per suite
	largeInFlight atomic.Int32 // requests of collectAfterBytes or more, not yet answered
	repeats       repeats      // per-batch warnings, logged once per session (repeats.go)
	simState      *simState    // mocks, faults, ledgers and scenario repeats (simulate.go)
}

// New returns a Server.
func New(opts Options) *Server {
	s := &Server{
		engine:      opts.Engine,
		cfg:         opts.Config,
		evalTimeout: opts.EvalTimeout,
		log:         opts.Logger,
		version:     opts.Version,
		sem:         make(chan struct{}, MaxInFlight),
		jobs:        make(chan *call),
		groups:      make(chan *group),
		lanes:       lanes(),
		budgets:     newLedger(opts.Config.SoftFailureBudget),
		quit:        make(chan struct{}),
		maxLine:     trace.MaxLineBytes,
		simState:    newSimState(),
		history:     opts.History,
		initialized: opts.Initialized,
	}
	s.record.spec = opts.ReportSpec
	s.keyCache = newKeyCache()
	if s.history != nil {
		s.ids = newSessionIDs()
		if s.history.WindowRuns() {
			s.runNo = s.history.LastRun() + 1
		}
	}
	if s.evalTimeout <= 0 {
		s.evalTimeout = defaultTimeout
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.version == "" {
		s.version = version.Engine
	}
	if opts.Engine != nil {
		if n, ok := opts.Engine.Provider().BatchSoftFailureCap(); ok {
			s.budgets.batchCap = &n
		}
	}
	return s
}

// Serve reads requests from in and writes responses to out until a shutdown
// request, the end of in, or ctx is cancelled (SIGTERM); it then drains
// in-flight work for up to DrainTimeout (spec §1.4, §2.3) and returns.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	// The report (--report) is written last, whichever way serving ends:
	// after the shutdown answer, at end of input, or at SIGTERM.
	defer s.report()
	defer s.repeats.summarize(s.log)
	defer close(s.quit)
	s.out = &lineWriter{w: out, inFlight: func() int { return len(s.sem) }, freed: s.free}
	s.stopped = make(chan struct{})
	s.readerIdle = make(chan struct{})
	done := make(chan struct{}) // closed when the read loop has finished
	go func() {
		defer close(done)
		s.readLoop(in)
	}()
	select {
	case <-done:
	case <-s.stopped:
		// Shutdown answered: in-flight work is already drained. Lines that
		// had already arrived behind it are answered (SESSION_ERROR) first.
		select {
		case <-done:
		case <-s.readerIdle:
		}
		return s.out.failed()
	case <-ctx.Done():
		s.log.Info("terminating: draining in-flight requests")
		s.setState(stateShutdown)
	}
	s.drain()
	return s.out.failed()
}

// readLoop handles lines until the end of input. After a shutdown request it
// goes on reading, answering SESSION_ERROR, until the shutdown is answered.
func (s *Server) readLoop(in io.Reader) {
	lr := newLineReader(in, s.maxLine)
	s.lines = lr
	for {
		line, size, tooLong, err := lr.next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.log.Error("reading stdin", "error", err.Error())
			}
			s.mu.Lock()
			answering := s.shutdownAsked
			s.mu.Unlock()
			if answering {
				<-s.stopped // let the shutdown answer go out before Serve returns
				return
			}
			s.log.Debug("end of input: draining in-flight requests")
			s.setState(stateShutdown)
			return
		}
		s.handleLine(line, size, tooLong)
		s.mu.Lock()
		if s.shutdownAsked && lr.r.Buffered() == 0 && !s.idleClosed {
			s.idleClosed = true
			close(s.readerIdle) // everything received so far is handled
		}
		s.mu.Unlock()
	}
}

// drain waits for in-flight requests, for at most DrainTimeout.
func (s *Server) drain() {
	finished := make(chan struct{})
	go func() {
		s.inflight.Wait()
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(DrainTimeout):
		s.log.Error("drain timed out: exiting with requests still in flight", "timeout_ms", DrainTimeout.Milliseconds())
	}
}

func (s *Server) setState(st sessionState) {
	s.mu.Lock()
	s.state = st
	s.mu.Unlock()
}

func (s *Server) getState() sessionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// reply writes a response unless the request was a notification.
func (s *Server) reply(req *request, line []byte) { s.send(req, line, false) }

func (s *Server) replyError(req *request, e *Error) { s.send(req, s.errorLine(req, e), false) }

// send is reply for the read loop (hold false: its answers go out at once)
// and for a request's own work (hold true: its answer may wait to share a
// write with others', see lineWriter).
func (s *Server) send(req *request, line []byte, hold bool) {
	if req != nil && req.notification {
		return
	}
	s.wrote(s.out.write(line, hold))
}

// wrote counts a failed write of answers to stdout, and logs the first.
func (s *Server) wrote(err error) {
	if err != nil && s.writeFailed.Add(1) == 1 {
		s.log.Error("writing stdout (further failed writes are not logged)", "error", err.Error())
	}
}

func (s *Server) errorLine(req *request, e *Error) []byte {
	var id any
	if req != nil {
		id = req.id
	}
	return encodeError(id, e)
}

// call is one request's work, from the read loop to whoever answers it.
type call struct {
	// req is the decoded request; nil for an evaluate_batch line that the
	// read loop handed over undecoded (handleLine): run decodes line first.
	req *request
	// perr is why line could not be decoded into a request, when the read
	// loop decoded it (req may then hold its id).
	perr  *Error
	line  []byte
	fn    handler
	large bool // counted in largeInFlight (see collectAfterBytes)
}

// handler is a request's work: it returns the answer line.
type handler func(s *Server, ctx context.Context, req *request) ([]byte, error)

// spawn has c done once a slot is free, on a worker, or by the read loop
// itself when inline. While all slots are taken it blocks, and so the read
// loop stops reading (spec §1.5).
func (s *Server) spawn(c *call, inline bool) {
	if !s.acquire(true) {
		s.refuse(c)
		return
	}
	s.start(c, inline)
}

// refuse answers c, which found the session shutting down.
func (s *Server) refuse(c *call) {
	if c.req == nil && c.perr == nil {
		c.req, c.perr = parse(c.line)
	}
	defer c.req.release()
	if c.perr != nil {
		s.replyError(c.req, c.perr)
		return
	}
	c.req.turn.finish()
	s.refuseAfterShutdown(c.req)
}

// acquire takes a slot for a request and counts it in flight. With wait it
// blocks while every slot is taken; without, it takes only a free one. It
// reports false, holding nothing, when no slot was free (wait false) or the
// session is shutting down.
func (s *Server) acquire(wait bool) bool {
	if wait {
		s.sem <- struct{}{}
	} else {
		select {
		case s.sem <- struct{}{}:
		default:
			return false
		}
	}
	// Counted in flight under the lock that a shutdown's state change
	// takes: once a SIGTERM's drain (Serve) may be waiting, a request
	// checked as ready just before is refused, not added behind its back.
	s.mu.Lock()
	refused := s.state == stateShutdown
	if !refused {
		s.inflight.Add(1)
	}
	s.mu.Unlock()
	if refused {
		<-s.sem
	}
	return !refused
}

// free gives back n requests' slots once their answers are written (or
// dropped: a notification, a closed stdout).
func (s *Server) free(n int) {
	for range n {
		<-s.sem
	}
	s.inflight.Add(-n)
}

// start has c, which holds a slot, done: by the caller when inline, else
// on a worker.
func (s *Server) start(c *call, inline bool) {
	size := len(c.line)
	if c.req != nil {
		size = c.req.size
	}
	if c.large = size >= collectAfterBytes; c.large {
		s.largeInFlight.Add(1)
	}
	if inline {
		s.run(c)
		return
	}
	// Hand the call to an idle worker, or start one. Workers stay: a new
	// goroutine per request would grow a fresh stack for every decode.
	// There are never more than MaxInFlight, since each holds a slot.
	select {
	case s.jobs <- c:
	default:
		go s.worker(c)
	}
}

// worker runs calls until Serve has returned.
func (s *Server) worker(c *call) {
	for {
		s.run(c)
		select {
		case c = <-s.jobs:
		case <-s.quit:
			return
		}
	}
}

// run does one request's work and answers it; it frees the request's slot.
// Every answer, a recovered panic's included, carries the request's id once
// it is decoded, and a notification gets none.
func (s *Server) run(c *call) {
	defer func() {
		if p := recover(); p != nil {
			s.settle(c)
			s.answerPanic(c.req, "recovered panic", p)
		}
		if c.req != nil {
			c.req.turn.finish() // after a panic too: later calls of its scenario must not wait for good
		}
		// After a panic too: the line and its tape can go (the read
		// loop's buffer is read again only once an inline request has
		// returned here).
		c.req.release()
		s.free(1)
	}()
	s.send(c.req, s.work(c), true)
}

// work does c's request and returns its answer, or the error answer. It
// decodes the line first unless the caller did. The answer is built and
// holds nothing of the line: the tape goes back to its pool before the
// answer is written, which may wait for other requests' answers
// (lineWriter): held through that, pipelined requests kept up to
// MaxInFlight tapes (and their lines) alive, each with its own cold
// interner.
func (s *Server) work(c *call) []byte {
	dl := newDeadline(s.evalTimeout)
	defer dl.stop()
	var ctx context.Context = dl
	var (
		line []byte
		err  error
	)
	if c.req == nil && c.perr == nil {
		c.req, c.perr = s.parseBatch(c.line)
	}
	c.line = nil // decoded: the request's tape holds the line until settle or the answer
	if c.perr != nil {
		err = c.perr
	}
	if err == nil {
		// The request's deadline covers any method run here; evaluate_batch's
		// own rule is the evaluation core's (assert.Run).
		line, err = c.fn(s, ctx, c.req)
		if err == nil && ctx.Err() != nil {
			err = ctx.Err()
		}
	}
	s.settle(c)
	if err != nil {
		// Declared here: errors.As takes its address, which puts it on
		// the heap, for every request when declared above.
		var pe *assert.Panic
		if errors.As(err, &pe) {
			s.logPanic("recovered panic", pe)
		}
		line = s.errorLine(c.req, s.toWire(err))
	}
	c.req.release()
	return line
}

// answerPanic logs a recovered panic and answers req with ENGINE_ERROR, as
// the evaluation core answers one it recovered (assert.Run): the engine
// keeps serving.
func (s *Server) answerPanic(req *request, msg string, p any) {
	pe := &assert.Panic{Value: p, Stack: debug.Stack()}
	s.logPanic(msg, pe)
	s.replyError(req, s.toWire(pe))
}

// logPanic logs a recovered panic with its stack.
func (s *Server) logPanic(msg string, p *assert.Panic) {
	s.log.Error(msg, "panic", p.Error(), "stack", string(p.Stack))
}

// settle is the end of a large request's work, before its answer: it drops
// the trace and, as the last large request in flight, collects (see
// collectAfterBytes). It does nothing for other requests, or a second time.
func (s *Server) settle(c *call) {
	if !c.large {
		return
	}
	c.large = false
	if c.req != nil {
		c.req.params = nil
		c.req.release() // the trace and its line are garbage now
	}
	if s.largeInFlight.Add(-1) == 0 {
		runtime.GC()
	}
}

// collectAfterBytes: requests at least this large are collected after, before
// they are answered, by the last one of them in flight. A large trace leaves
// tens of MB of garbage behind (its line and decoded value). Collecting
// then, while the live heap is small again, is cheap (a few ms against the
// 100 ms a 10 MB trace takes), and the next large request reuses that memory
// instead of growing the heap past it. Collecting after the answer instead
// would race the SDK's next request; collecting while other large requests
// are in flight would mark their traces once per request. Without this, one
// request at a time over 10 MB traces peaked at ~7× the trace size in RSS.
const collectAfterBytes = 1 << 20
