// listen.go: --listen: OTLP/HTTP on POST /v1/traces, binary protobuf or JSON bodies, loopback only unless told otherwise.

package watch

import (
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"time"

	"attest-engine/ingest"
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
// it listens, or the error that kept it from listening.
func (c *command) serve(stop context.Context, items chan<- ingest.Item, ready chan<- error) error {
	addr, warn, err := c.listenAddr()
	if err != nil {
		ready <- err
		return nil
	}
	if warn != "" {
		c.log.Warn(warn)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		ready <- fmt.Errorf("--listen: %v", err)
		return nil
	}
	c.log.Info("listening for OTLP/HTTP", "address", ln.Addr().String(), "path", "/v1/traces")
	ready <- nil
	if err := c.replaySpool(stop, items); err != nil {
		ln.Close()
		return err
	}
	c.exports = make(chan struct{}, maxExports)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", func(w http.ResponseWriter, r *http.Request) { c.export(stop, items, w, r) })
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		WriteTimeout: time.Minute, MaxHeaderBytes: 64 << 10}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("--listen: %v", err)
	case <-stop.Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(ctx)
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("--listen: %v", err)
	}
	return nil
}

// maxExports bounds the requests read and held at once: each holds a body
// of up to --max-line while it waits for the pipeline, so without a bound
// memory grows with the number of clients.
const maxExports = 4

// OTLP/HTTP's two encodings, told apart by Content-Type (OTLP spec,
// "OTLP/HTTP": "Server implementations SHOULD accept OTLP/HTTP with
// binary-encoded Protobuf payload and OTLP/HTTP with JSON-encoded Protobuf
// payload requests on the same port").
const (
	protobufType = "application/x-protobuf"
	jsonType     = "application/json"
)

// statusCode is the google.rpc.Code of an error answer's HTTP status (the
// spec does not use Status.code and clients must not act on it; it is
// there for their logs). Explicit numbers: they are google.rpc's.
func statusCode(httpStatus int) int {
	switch httpStatus {
	case http.StatusBadRequest:
		return 3 // INVALID_ARGUMENT
	case http.StatusRequestEntityTooLarge:
		return 8 // RESOURCE_EXHAUSTED, as gRPC answers a message past its limit
	case http.StatusUnsupportedMediaType:
		return 12 // UNIMPLEMENTED
	case http.StatusServiceUnavailable:
		return 14 // UNAVAILABLE
	}
	return 0
}

// rpcStatus is a google.rpc.Status {code = 1, message = 2} in binary
// protobuf (a varint and a length-delimited string). A proto3 string is
// UTF-8, and a client's parser refuses a Status whose message is not, so
// an invalid byte becomes U+FFFD (as encoding/json writes it in JSON).
func rpcStatus(code int, msg string) []byte {
	msg = strings.ToValidUTF8(msg, "\uFFFD")
	b := binary.AppendUvarint([]byte{0x08}, uint64(code))       // field 1, varint
	b = binary.AppendUvarint(append(b, 0x12), uint64(len(msg))) // field 2, length-delimited
	return append(b, msg...)
}

// export is one POST /v1/traces (OTLP/HTTP, binary protobuf or JSON).
// Bodies, after gzip when Content-Encoding says so, are bounded by
// --max-line. The answer is in the request's encoding (OTLP spec, "OTLP/HTTP
// Response": "The server MUST use the same Content-Type in the response as
// it received in the request"): an empty ExportTraceServiceResponse (no
// partial_success: every span is taken), or for an HTTP 4xx or 5xx a
// google.rpc.Status with code and message. The request waits while the
// pipeline is full (back-pressure); with --state-dir it is answered 200 only
// once its body is in the spool (spooled.go).
func (c *command) export(stop context.Context, items chan<- ingest.Item, w http.ResponseWriter, r *http.Request) {
	ctype := jsonType // the encoding of the answers; JSON for a type not understood
	fail := func(code int, msg string) {
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(code)
		if ctype == protobufType {
			w.Write(rpcStatus(statusCode(code), msg))
			return
		}
		b, _ := json.Marshal(struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}{statusCode(code), msg})
		w.Write(append(b, '\n'))
	}
	parse := ingest.ParseOTLP
	switch mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt {
	case jsonType:
	case protobufType:
		ctype, parse = protobufType, ingest.ParseOTLPProto
	default:
		fail(http.StatusUnsupportedMediaType, "Content-Type must be "+protobufType+" (OTLP binary protobuf) or "+jsonType+" (OTLP/JSON)")
		return
	}
	select {
	case c.exports <- struct{}{}:
		defer func() { <-c.exports }()
	case <-r.Context().Done():
		return
	case <-stop.Done():
		fail(http.StatusServiceUnavailable, "shutting down")
		return
	}
	var body io.Reader = http.MaxBytesReader(w, r.Body, int64(c.o.maxLine))
	switch r.Header.Get("Content-Encoding") {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(body)
		if err != nil {
			fail(http.StatusBadRequest, "bad gzip body: "+err.Error())
			return
		}
		body = io.LimitReader(zr, int64(c.o.maxLine)+1)
	default:
		fail(http.StatusUnsupportedMediaType, "Content-Encoding must be gzip or none")
		return
	}
	data, err := io.ReadAll(body)
	if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
		fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", c.o.maxLine))
		return
	}
	if err != nil { // a broken gzip stream or a dropped connection: not a size
		fail(http.StatusBadRequest, "unreadable body: "+err.Error())
		return
	}
	if len(data) > c.o.maxLine {
		fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes after gzip", c.o.maxLine))
		return
	}
	spans, err := parse(data)
	if err != nil {
		fail(http.StatusBadRequest, err.Error())
		return
	}
	switch code, msg := c.deliver(stop, r.Context(), items, spans, ctype == protobufType, data); code {
	case 0:
	case delivered:
		return // the client is gone: no answer
	default:
		if code == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", retryAfter)
		}
		fail(code, msg)
		return
	}
	w.Header().Set("Content-Type", ctype)
	if ctype == jsonType {
		io.WriteString(w, "{}\n")
	} // protobuf: the empty message is no bytes at all
}
