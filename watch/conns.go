// conns.go: the listener's connections capped: an idle one makes room for a newcomer, and past the cap with none idle the newcomer is answered 503 at once.

package watch

import (
	"bufio"
	"bytes"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// connCap is a net.Listener that keeps at most max connections open. The
// server reports each connection's state (track, as http.Server.ConnState).
// When a connection arrives at the cap, the one idle longest is closed to
// make room: one that has sent nothing since it opened (StateNew) for at
// least newGrace, else one waiting between requests (StateIdle). So
// connections that never send a request, however many, cannot keep a
// client that does out; they only take turns being closed. When every
// connection is busy with a request, the newcomer is answered 503 with
// Retry-After at once and closed (refuse).
type connCap struct {
	net.Listener
	max        int
	retryAfter time.Duration

	mu    sync.Mutex
	conns map[net.Conn]*connInfo
	// refusing counts the over-cap connections being answered; past
	// maxRefusing they are closed unanswered.
	refusing int
}

type connInfo struct {
	state http.ConnState
	since time.Time
}

// newGrace is how long a new connection may take to send its request's
// first bytes before it may be closed to make room.
const newGrace = 200 * time.Millisecond

// maxRefusing bounds the goroutines answering over-cap connections.
const maxRefusing = 64

// refuseWithin bounds the time an over-cap connection gets to send its
// request's header (so that the answer can be in its encoding).
const refuseWithin = time.Second

func newConnCap(ln net.Listener, max int, retryAfter time.Duration) *connCap {
	return &connCap{Listener: ln, max: max, retryAfter: retryAfter, conns: map[net.Conn]*connInfo{}}
}

func (l *connCap) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.admit(c) {
			return c, nil
		}
	}
}

// admit counts c in, closing an idle connection to make room if need
// be; false when c was refused.
func (l *connCap) admit(c net.Conn) bool {
	l.mu.Lock()
	if len(l.conns) >= l.max {
		if victim := l.idlest(); victim != nil {
			delete(l.conns, victim)
			victim.Close() // the server sees it closed and reports StateClosed
		}
	}
	if len(l.conns) < l.max {
		l.conns[c] = &connInfo{state: http.StateNew, since: time.Now()}
		l.mu.Unlock()
		return true
	}
	refuse := l.refusing < maxRefusing
	if refuse {
		l.refusing++
	}
	l.mu.Unlock()
	if !refuse {
		c.Close()
		return false
	}
	go func() {
		refuseConn(c, l.retryAfter)
		l.mu.Lock()
		l.refusing--
		l.mu.Unlock()
	}()
	return false
}

// idlest is the connection to close to make room, nil if none may be
// (mu held).
func (l *connCap) idlest() net.Conn {
	now := time.Now()
	var best net.Conn
	var bestInfo *connInfo
	for c, in := range l.conns {
		switch {
		case in.state == http.StateNew && now.Sub(in.since) < newGrace:
			continue // about to send its request
		case in.state != http.StateNew && in.state != http.StateIdle:
			continue
		}
		// A connection that never sent a request goes before one that did.
		if best == nil || (in.state == http.StateNew && bestInfo.state == http.StateIdle) ||
			(in.state == bestInfo.state && in.since.Before(bestInfo.since)) {
			best, bestInfo = c, in
		}
	}
	return best
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
