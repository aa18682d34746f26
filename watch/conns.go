// conns.go: the listener's connections capped: an idle one makes room for a newcomer, and past the cap with none idle the newcomer is answered 503 at once.

package watch

import (
	"bufio"
	"bytes"
	"io"
	"mime"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// connCap is a net.Listener that keeps at most max connections open. The
// server reports each connection's state (track, as http.Server.ConnState).
// When a connection arrives at the cap, one that is idle is closed to make
// room: the oldest that has not sent a byte since it opened, else the one
// waiting longest between requests (StateIdle). So connections that never
// send a request, however many, cannot keep a client that does out; they
// only take turns being closed. When every connection is busy with a
// request, the newcomer is answered 503 with Retry-After at once and closed
// (refuseConn).
type connCap struct {
	net.Listener
	max        int
	retryAfter time.Duration

	mu    sync.Mutex
	conns map[net.Conn]*connInfo
	// refusing counts the over-cap connections being answered; past
	// maxRefusing they are closed unanswered.
	refusing int
	// Counts for the log: idle connections closed to make room, newcomers
	// answered 503, newcomers closed unanswered.
	evicted, refused, dropped int
}

type connInfo struct {
	state http.ConnState
	since time.Time
	conn  *countedConn
}

// countedConn notes whether its client has sent anything: read by the
// server, or waiting in the kernel for the server's goroutine to read it
// (which, with the process busy accepting a flood, can take a while).
type countedConn struct {
	net.Conn
	sent atomic.Bool
}

// hasSent: the client has sent bytes (mu of the connCap held).
func (c *countedConn) hasSent() bool {
	if c.sent.Load() {
		return true
	}
	if pending(c.Conn) {
		c.sent.Store(true)
		return true
	}
	return false
}

func (c *countedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.sent.Store(true)
	}
	return n, err
}

// CloseWrite lets the server half-close a TCP connection as it would
// unwrapped (it does before closing one whose request body it left unread).
func (c *countedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Conn.Close()
}

// maxRefusing bounds the goroutines answering over-cap connections.
const maxRefusing = 64

// refuseWithin bounds the time an over-cap connection gets to send its
// request's header (so that the answer can be in its encoding; JSON
// otherwise), and then to read the answer.
const refuseWithin = 200 * time.Millisecond

func newConnCap(ln net.Listener, max int, retryAfter time.Duration) *connCap {
	return &connCap{Listener: ln, max: max, retryAfter: retryAfter, conns: map[net.Conn]*connInfo{}}
}

func (l *connCap) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if c, ok := l.admit(c); ok {
			return c, nil
		}
	}
}

// admit counts c in, closing an idle connection to make room if need
// be; false when c was refused.
func (l *connCap) admit(raw net.Conn) (net.Conn, bool) {
	c := &countedConn{Conn: raw}
	l.mu.Lock()
	if len(l.conns) >= l.max {
		if victim := l.idlest(); victim != nil {
			l.evicted++
			delete(l.conns, victim)
			victim.Close() // the server sees it closed and reports StateClosed
		}
	}
	if len(l.conns) < l.max {
		l.conns[c] = &connInfo{state: http.StateNew, since: time.Now(), conn: c}
		l.mu.Unlock()
		return c, true
	}
	refuse := l.refusing < maxRefusing
	if refuse {
		l.refusing++
		l.refused++
	} else {
		l.dropped++
	}
	l.mu.Unlock()
	if !refuse {
		raw.Close()
		return nil, false
	}
	go func() {
		refuseConn(raw, l.retryAfter)
		l.mu.Lock()
		l.refusing--
		l.mu.Unlock()
	}()
	return nil, false
}

// quietGrace is how long a new connection that has sent nothing is
// spared, while an older one that has sent nothing either can be closed:
// its request may be on its way.
const quietGrace = 20 * time.Millisecond

// idlest is the connection to close to make room, nil if none may be
// (mu held): the oldest that has sent nothing since it opened (one older
// than quietGrace first), else the one idle longest between requests.
func (l *connCap) idlest() net.Conn {
	now := time.Now()
	var quiet, idle []*connInfo
	for _, in := range l.conns {
		switch {
		case in.state == http.StateNew && !in.conn.sent.Load():
			quiet = append(quiet, in)
		case in.state == http.StateIdle:
			idle = append(idle, in)
		}
	}
	oldest := func(a, b *connInfo) int { return a.since.Compare(b.since) }
	slices.SortFunc(quiet, oldest)
	for _, young := range []bool{false, true} {
		for _, in := range quiet {
			if (now.Sub(in.since) < quietGrace) != young {
				continue
			}
			if !in.conn.hasSent() { // one syscall each, usually for the first only
				return in.conn
			}
		}
	}
	if len(idle) > 0 {
		return slices.MinFunc(idle, oldest).conn
	}
	return nil
}

// counts are the connections closed to make room, refused with 503 and
// closed unanswered so far.
func (l *connCap) counts() (evicted, refused, dropped int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.evicted, l.refused, l.dropped
}

// track is the server's ConnState hook.
func (l *connCap) track(c net.Conn, s http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch s {
	case http.StateClosed, http.StateHijacked:
		delete(l.conns, c)
	default:
		if in := l.conns[c]; in != nil {
			in.state, in.since = s, time.Now()
		}
	}
}

// refuseConn answers an over-cap connection 503 with Retry-After, in the
// encoding its request names when its header arrives within refuseWithin
// (JSON otherwise), and closes it: the write side first, then, after a
// moment for the client to read the answer, the rest.
func refuseConn(c net.Conn, retryAfter time.Duration) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(refuseWithin))
	ctype := jsonType
	if req, err := http.ReadRequest(bufio.NewReaderSize(io.LimitReader(c, 64<<10), 4<<10)); err == nil {
		if mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); mt == protobufType {
			ctype = protobufType
		}
	}
	rec := &headerWriter{h: http.Header{}}
	refuse(rec, ctype, http.StatusServiceUnavailable, retryAfter, "too many connections: retry later")
	resp := &http.Response{StatusCode: rec.code, ProtoMajor: 1, ProtoMinor: 1, Header: rec.h, Close: true,
		ContentLength: int64(rec.body.Len()), Body: io.NopCloser(&rec.body)}
	resp.Header.Set("Content-Length", strconv.Itoa(rec.body.Len()))
	resp.Write(c)
	if tc, ok := c.(*net.TCPConn); ok {
		tc.CloseWrite()
		io.Copy(io.Discard, c) // until the client closes, or the deadline
	}
}

// headerWriter is a minimal http.ResponseWriter that keeps what refuse
// writes, for an answer written on a raw connection.
type headerWriter struct {
	h    http.Header
	code int
	body bytes.Buffer
}

func (w *headerWriter) Header() http.Header         { return w.h }
func (w *headerWriter) WriteHeader(code int)        { w.code = code }
func (w *headerWriter) Write(b []byte) (int, error) { return w.body.Write(b) }
