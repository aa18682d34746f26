// admission.go: what the listener takes and how fast: request bodies under a byte budget (else 503 with Retry-After), read at a useful rate or dropped, taken whole into memory and handed on in chunks.

package watch

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"time"

	"attest-engine/ingest"
)

// listenLimits bound what clients of --listen may hold. Zero fields take
// the defaults (withDefaults); tests set small ones.
type listenLimits struct {
	// Conns is the connections open at once; past it an idle one is
	// closed to make room, or, when none is idle, the newcomer is answered
	// 503 at once (conns.go).
	Conns int
	// Bodies is the request bytes held at once: bodies being read, and
	// requests taken and not yet handed to the assembler (at least
	// --max-line, so that any body can be taken alone).
	Bodies int64
	// MinRate is the bytes per second a body must keep arriving at, on
	// average, once BodyGrace has passed; ReadIdle is the longest wait for
	// its next bytes.
	MinRate   int64
	BodyGrace time.Duration
	ReadIdle  time.Duration
	// Header is how long a client has to send its request's header.
	Header time.Duration
	// RetryAfter is the delay a refused client is told to wait.
	RetryAfter time.Duration
	// AdmitWait is how long a request waits for room in the body budget
	// before it is refused: long enough that a burst is taken as the
	// pipeline drains, short against an exporter's timeout (10 s by
	// default).
	AdmitWait time.Duration
}

// Defaults of listenLimits.
const (
	defaultConns      = 256
	defaultBodies     = 16 << 20
	defaultMinRate    = 256 << 10
	defaultBodyGrace  = 2 * time.Second
	defaultReadIdle   = 5 * time.Second
	defaultHeader     = 10 * time.Second
	defaultRetryAfter = time.Second
	defaultAdmitWait  = time.Second
)

func (l listenLimits) withDefaults(maxLine int) listenLimits {
	if l.Conns <= 0 {
		l.Conns = defaultConns
	}
	if l.Bodies <= 0 {
		l.Bodies = defaultBodies
	}
	l.Bodies = max(l.Bodies, int64(maxLine))
	if l.MinRate <= 0 {
		l.MinRate = defaultMinRate
	}
	if l.BodyGrace <= 0 {
		l.BodyGrace = defaultBodyGrace
	}
	if l.ReadIdle <= 0 {
		l.ReadIdle = defaultReadIdle
	}
	if l.Header <= 0 {
		l.Header = defaultHeader
	}
	if l.RetryAfter <= 0 {
		l.RetryAfter = defaultRetryAfter
	}
	if l.AdmitWait <= 0 {
		l.AdmitWait = defaultAdmitWait
	}
	return l
}

// errSlow ends a body that does not arrive at a useful rate.
var errSlow = errors.New("request body too slow")

// slowBody reads a request body under the rate rule: after grace, at
// least rate bytes a second on average since the body began, and never a
// wait of more than idle for the next bytes. Each read sets the
// connection's read deadline to the earlier of the two, so a client that
// stops sending holds its connection and its share of the body budget for
// seconds, not for as long as it likes.
type slowBody struct {
	r     io.ReadCloser
	rc    *http.ResponseController
	start time.Time
	lim   listenLimits
	got   int64
}

func (b *slowBody) Read(p []byte) (int, error) {
	now := time.Now()
	due := b.start.Add(b.lim.BodyGrace + time.Duration(float64(b.got+1)/float64(b.lim.MinRate)*float64(time.Second)))
	if idle := now.Add(b.lim.ReadIdle); idle.Before(due) {
		due = idle
	}
	if err := b.rc.SetReadDeadline(due); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return 0, err
	}
	n, err := b.r.Read(p)
	b.got += int64(n)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = errSlow
	}
	return n, err
}

func (b *slowBody) Close() error { return b.r.Close() }

// bodyError is a body that could not be taken: the answer to give.
type bodyError struct {
	status int
	msg    string
}

func (e *bodyError) Error() string { return e.msg }

// bodyStep is the first reservation of a body, and the least it grows by.
const bodyStep = 64 << 10

// readBody reads a request's body, after gzip when Content-Encoding says
// so, bounded by --max-line, holding its bytes in the body budget as they
// arrive (a request that finds no room waits AdmitWait for it, then is
// refused with 503): a body reserves what it has sent (in steps that double, from
// bodyStep), never what it announces, so a client that announces a large
// body and sends nothing holds next to nothing. A body whose next step
// does not fit waits for room if no other body is waiting, else it is
// refused (503): the one waiting is served as others finish, so among
// large bodies competing one always gets through, and the others are told
// to retry rather than all holding part of the budget. What is reserved is
// returned with the body or the error, for the caller to release.
func (c *command) readBody(w http.ResponseWriter, r *http.Request) (data []byte, reserved int64, berr *bodyError) {
	maxLine := int64(c.o.maxLine)
	gz := false
	switch r.Header.Get("Content-Encoding") {
	case "", "identity":
	case "gzip":
		gz = true
	default:
		return nil, 0, &bodyError{http.StatusUnsupportedMediaType, "Content-Encoding must be gzip or none"}
	}
	if r.ContentLength > maxLine {
		return nil, 0, &bodyError{http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", maxLine)}
	}
	limit := maxLine + 1 // the longest buffer: a byte past --max-line tells it is too long
	if r.ContentLength >= 0 && !gz {
		limit = r.ContentLength + 1 // +1: the read that sees the end
	}
	first := min(limit, bodyStep)
	if !c.bodies.tryAcquire(first) {
		// A burst waits a moment for room before it is refused.
		ctx, cancel := context.WithTimeout(r.Context(), c.lim.AdmitWait)
		err := c.bodies.acquire(ctx, first)
		cancel()
		if err != nil {
			return nil, 0, errFull
		}
	}
	reserved = first
	slow := &slowBody{r: r.Body, rc: http.NewResponseController(w), start: time.Now(), lim: c.lim}
	var body io.Reader = http.MaxBytesReader(w, slow, maxLine)
	if gz {
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, reserved, readFailure(err, "bad gzip body: ")
		}
		body = io.LimitReader(zr, maxLine+1)
	}
	buf := make([]byte, 0, first)
	for {
		if len(buf) == cap(buf) {
			grown := min(2*int64(cap(buf)), limit)
			if grown <= int64(cap(buf)) {
				grown = int64(cap(buf)) + 1 // the identity body is longer than announced: let the read say so
			}
			if grown > reserved {
				waited, ok := c.grow(grown - reserved)
				if !ok {
					return nil, reserved, errFull
				}
				slow.start = slow.start.Add(waited) // the rate rule does not count the wait
				reserved = grown
			}
			buf = slices.Grow(buf, int(grown)-len(buf))
		}
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > maxLine {
			return nil, reserved, &bodyError{http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes after gzip", maxLine)}
		}
		if errors.Is(err, io.EOF) {
			return buf, reserved, nil
		}
		if err != nil {
			return nil, reserved, readFailure(err, "unreadable body: ")
		}
	}
}

// errFull refuses a body the budget has no room for.
var errFull = &bodyError{http.StatusServiceUnavailable, "the pipeline is full: retry later"}

// maxGrowWait bounds the wait of the one body waiting for room.
const maxGrowWait = 30 * time.Second

// grow reserves n more bytes for a body being read: at once if they fit,
// else by waiting, when no other body is waiting, until they do (at most
// maxGrowWait); false when they cannot be had. It returns how long it
// waited.
func (c *command) grow(n int64) (time.Duration, bool) {
	if c.bodies.tryAcquire(n) {
		return 0, true
	}
	if !c.growing.CompareAndSwap(false, true) {
		return 0, false
	}
	defer c.growing.Store(false)
	start := time.Now()
	ctx, cancel := context.WithTimeout(c.abandon, maxGrowWait)
	defer cancel()
	if err := c.bodies.acquire(ctx, n); err != nil {
		return 0, false
	}
	return time.Since(start), true
}

func readFailure(err error, prefix string) *bodyError {
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return &bodyError{http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", tooBig.Limit)}
	case errors.Is(err, errSlow):
		return &bodyError{http.StatusRequestTimeout, "request body too slow: it must keep arriving"}
	}
	// A broken gzip stream or a dropped connection: not a size.
	return &bodyError{http.StatusBadRequest, prefix + err.Error()}
}

// send hands an item to the source, once its bytes fit in the budget of
// items in flight (back-pressure on the producer); ctx's error if it
// ends first.
func (c *command) send(ctx context.Context, it ingest.Item) error {
	cost := itemCost(it)
	if err := c.inflight.acquire(ctx, cost); err != nil {
		return err
	}
	select {
	case c.items <- it:
		return nil
	case <-ctx.Done():
		c.inflight.release(cost)
		return ctx.Err()
	}
}
