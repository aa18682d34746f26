// listen.go: --listen: OTLP/HTTP with JSON bodies on POST /v1/traces, loopback only unless told otherwise.

package watch

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
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

// listenAddr checks --listen: a host part that is empty means 127.0.0.1,
// and anything but a loopback address needs --listen-any-address.
func (c *command) listenAddr() (string, error) {
	host, port, err := net.SplitHostPort(c.o.listen)
	if err != nil {
		return "", fmt.Errorf("--listen %q: want host:port, such as 127.0.0.1:4318", c.o.listen)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if !loopback(host) && !c.o.listenAny {
		return "", fmt.Errorf("--listen %q: not a loopback address; add --listen-any-address to accept traces from other machines", c.o.listen)
	}
	return net.JoinHostPort(host, port), nil
}

// serve accepts OTLP/JSON export requests until stop. ready gets nil once
// it listens, or the error that kept it from listening.
func (c *command) serve(stop context.Context, items chan<- ingest.Item, ready chan<- error) error {
	addr, err := c.listenAddr()
	if err != nil {
		ready <- err
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		ready <- fmt.Errorf("--listen: %v", err)
		return nil
	}
	c.log.Info("listening for OTLP/JSON", "address", ln.Addr().String(), "path", "/v1/traces")
	ready <- nil
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

// export is one POST /v1/traces (OTLP/HTTP, JSON encoding). Bodies, after
// gzip when Content-Encoding says so, are bounded by --max-line. The answer
// is an empty ExportTraceServiceResponse, or a google.rpc.Status-shaped
// error; the request waits while the pipeline is full (back-pressure).
func (c *command) export(stop context.Context, items chan<- ingest.Item, w http.ResponseWriter, r *http.Request) {
	fail := func(code int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, "{\"message\":%q}\n", msg)
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		fail(http.StatusUnsupportedMediaType, "only OTLP/JSON (Content-Type: application/json) is accepted")
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
	spans, err := ingest.ParseOTLP(data)
	if err != nil {
		fail(http.StatusBadRequest, err.Error())
		return
	}
	select {
	case items <- ingest.Item{Spans: spans}:
	case <-r.Context().Done():
		return
	case <-stop.Done():
		fail(http.StatusServiceUnavailable, "shutting down")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, "{}\n")
}
