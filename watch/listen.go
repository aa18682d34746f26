// listen.go: --listen: OTLP/HTTP on POST /v1/traces and POST /v1/logs, binary protobuf or JSON bodies, loopback only unless told otherwise.

package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"time"

	"attest-engine/clip"
	"attest-engine/spool"
)

// loopback reports whether host names only this machine.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// listenAddr checks --listen: anything but a loopback address needs
// --listen-any-address. An empty host part (":4318") means every address
// with --listen-any-address, else 127.0.0.1, and then warn says so: a
// collector in another container or on another machine cannot reach it.
func (c *command) listenAddr() (addr, warn string, err error) {
	host, port, err := net.SplitHostPort(c.o.listen)
	if err != nil {
		return "", "", fmt.Errorf("--listen %q: want host:port, such as 127.0.0.1:4318", c.o.listen)
	}
	switch {
	case host == "" && c.o.listenAny:
	case host == "":
		host = "127.0.0.1"
		warn = fmt.Sprintf("--listen %q binds the loopback address 127.0.0.1 only: other machines and containers cannot reach it (give --listen-any-address to accept them)", c.o.listen)
	case !loopback(host) && !c.o.listenAny:
		return "", "", fmt.Errorf("--listen %q: not a loopback address; add --listen-any-address to accept traces from other machines", c.o.listen)
	}
	return net.JoinHostPort(host, port), warn, nil
}

// serve accepts OTLP/HTTP export requests until stop. ready gets nil once
// it listens, or the error that kept it from listening. It returns once
// every request it acknowledged is handed on in full.
func (c *command) serve(stop context.Context, ready chan<- error) error {
	addr, warn, err := c.listenAddr()
	if err != nil {
		ready <- err
		return nil
	}
	if warn != "" {
		c.log.Warn(warn)
	}
	raw, err := net.Listen("tcp", addr)
	if err != nil {
		ready <- fmt.Errorf("--listen: %v", err)
		return nil
	}
	c.log.Info("listening for OTLP/HTTP", "address", raw.Addr().String(), "paths", "/v1/traces /v1/logs")
	ready <- nil
	c.handoff = newHandoff()
	go c.runHandoff(c.handoff)
	if err := c.replaySpool(stop); err != nil {
		raw.Close()
		c.handoff.close()
		return err
	}
	ln := newConnCap(raw, c.lim.Conns, c.lim.RetryAfter)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", func(w http.ResponseWriter, r *http.Request) { c.export(stop, w, r, false) })
	mux.HandleFunc("POST /v1/logs", func(w http.ResponseWriter, r *http.Request) { c.export(stop, w, r, true) })
	mux.HandleFunc("/", c.unknownPath)
	// No ReadTimeout: a body is timed by the rate rule (slowBody), so a
	// large one sent at a useful rate is not cut short.
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: c.lim.Header, IdleTimeout: time.Minute,
		WriteTimeout: time.Minute, MaxHeaderBytes: 64 << 10, ConnState: ln.track}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		c.handoff.close()
		return fmt.Errorf("--listen: %v", err)
	case <-stop.Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(ctx)
	err = <-done
	evicted, refused, dropped := ln.counts()
	c.log.Info("listener closed", "idle_connections_closed", evicted, "connections_refused", refused, "connections_dropped", dropped)
	c.handoff.close() // acknowledged requests are handed on before the pipeline ends
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("--listen: %v", err)
	}
	return nil
}

// OTLP/HTTP's two encodings, told apart by Content-Type (OTLP spec,
// "OTLP/HTTP": "Server implementations SHOULD accept OTLP/HTTP with
// binary-encoded Protobuf payload and OTLP/HTTP with JSON-encoded Protobuf
// payload requests on the same port").
const (
	protobufType = "application/x-protobuf"
	jsonType     = "application/json"
)

// export is one POST /v1/traces, or with logs one POST /v1/logs (an
// ExportLogsServiceRequest, answered alike: ingest.CheckOTLPLogs), in
// OTLP/HTTP binary protobuf or JSON; both go through the same admission,
// body budget, rate rule, spool and hand-off.
// Bodies, after gzip when Content-Encoding says so, are bounded by
// --max-line. The answer is in the request's encoding (answer.go): an
// empty ExportTraceServiceResponse (no partial_success: every span is
// taken), or for an HTTP 4xx or 5xx a google.rpc.Status with code and
// message. A body that finds no room in the body budget within AdmitWait
// is refused with 503 and Retry-After (the client sends it again later)
// rather than held; one that does is read under the rate rule and checked
// whole; with --state-dir it is then appended to the spool (spooled.go;
// 503 when the spool is full); it is answered 200 and handed to the
// pipeline after the answer, in the order taken (handoff.go).
func (c *command) export(stop context.Context, w http.ResponseWriter, r *http.Request, logs bool) {
	ctype := jsonType // the encoding of the answers; JSON for a type not understood
	enc := spool.JSON
	if logs {
		enc = spool.LogsJSON
	}
	switch mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt {
	case jsonType:
	case protobufType:
		ctype, enc = protobufType, spool.Protobuf
		if logs {
			enc = spool.LogsProtobuf
		}
	default:
		answer(w, ctype, http.StatusUnsupportedMediaType, "Content-Type must be "+protobufType+" (OTLP binary protobuf) or "+jsonType+" (OTLP/JSON)")
		return
	}
	if stop.Err() != nil {
		closeAfter(w)
		refuse(w, ctype, http.StatusServiceUnavailable, c.lim.RetryAfter, "shutting down")
		return
	}
	data, reserved, berr := c.readBody(w, r)
	if berr != nil {
		c.bodies.release(reserved)
		closeAfter(w)
		if berr.status == http.StatusServiceUnavailable {
			refuse(w, ctype, berr.status, c.lim.RetryAfter, berr.msg)
		} else {
			answer(w, ctype, berr.status, berr.msg)
		}
		return
	}
	req, err := checkers[enc](data, c.chunk)
	if err != nil {
		c.bodies.release(reserved)
		answer(w, ctype, http.StatusBadRequest, err.Error())
		return
	}
	// What the request holds from here (its first chunk, and its text when
	// there is more) replaces the body's reservation: it was checked, so it
	// is taken even if that is a little over the budget.
	held := req.Held()
	c.bodies.force(held - reserved)
	if code, msg := c.take(req, held, enc, data); code != 0 {
		c.bodies.release(held)
		refuse(w, ctype, code, c.lim.RetryAfter, msg)
		return
	}
	w.Header().Set("Content-Type", ctype)
	if ctype == jsonType {
		io.WriteString(w, "{}\n")
	} // protobuf: the empty message is no bytes at all
}

// closeAfter asks the server to close the connection after the answer: a
// body left unread is not read to its end to keep the connection.
func closeAfter(w http.ResponseWriter) { w.Header().Set("Connection", "close") }

// unknownPath answers a path other than /v1/traces and /v1/logs (an
// exporter sending metrics, or a mistyped endpoint) with an OTLP-style 404
// in the request's encoding, and logs the path the first time it is seen
// (at most maxUnknownPaths paths are remembered): the exporter drops what
// it sent, and without a log line nobody would know.
func (c *command) unknownPath(w http.ResponseWriter, r *http.Request) {
	ctype := jsonType
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == protobufType {
		ctype = protobufType
	}
	path := clip.String(r.URL.Path, 128)
	c.unknownMu.Lock()
	first := !c.unknownSeen[path] && len(c.unknownSeen) < maxUnknownPaths
	if first {
		if c.unknownSeen == nil {
			c.unknownSeen = map[string]bool{}
		}
		c.unknownSeen[path] = true
	}
	c.unknownMu.Unlock()
	if first {
		c.log.Warn("--listen: a request for a path this engine does not serve was answered 404 (OTLP/HTTP paths served: POST /v1/traces, POST /v1/logs; this is logged once per path)",
			"method", r.Method, "path", path)
	}
	answer(w, ctype, http.StatusNotFound, fmt.Sprintf("%s %s: not an OTLP/HTTP path this engine serves (POST /v1/traces, POST /v1/logs)", r.Method, path))
}

// maxUnknownPaths bounds the unknown paths remembered for logging once.
const maxUnknownPaths = 64
