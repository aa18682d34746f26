// watch_slowclients_test.go: clients that never finish a body and thousands of idle connections cannot keep a well-behaved exporter out of --listen.

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestWatchSlowClients: four clients that send a request's header and
// never its body (each reconnecting as soon as it is dropped) and 3,000
// connections that send nothing (each dialled again when closed) do not
// keep a well-behaved exporter out: each of its exports, retried as
// Retry-After says when refused, is taken within its 10 s timeout, and
// every trace is evaluated. The engine before the rate rule and the
// connection cap failed the first export (four slots held for 60 s).
func TestWatchSlowClients(t *testing.T) {
	bin := buildEngine(t)
	r := startRunning(t, bin, "--suite", watchSuite, "--jobs", "2", "--listen", "127.0.0.1:0", "--grace", "100ms")
	addr := r.logged(t, "listening for OTLP/HTTP")["address"].(string)
	var logged sync.WaitGroup
	logged.Go(func() {
		for m := range r.logs {
			if m["msg"] == "listener closed" || m["level"] == "ERROR" {
				t.Logf("logged: %v", m)
			}
		}
	})
	defer logged.Wait()
	ctx, cancel := context.WithCancel(context.Background())
	var attackers sync.WaitGroup
	defer func() { cancel(); attackers.Wait() }()
	var dials atomic.Int64
	// hold dials addr, lets work use the connection until it is closed
	// (or ctx ends), and dials again.
	hold := func(work func(net.Conn)) {
		for ctx.Err() == nil {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			dials.Add(1)
			stop := context.AfterFunc(ctx, func() { c.Close() })
			work(c)
			io.Copy(io.Discard, c) // until the server closes it
			stop()
			c.Close()
			time.Sleep(10 * time.Millisecond)
		}
	}
	for range 4 {
		attackers.Go(func() {
			hold(func(c net.Conn) {
				fmt.Fprintf(c, "POST /v1/traces HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-protobuf\r\nContent-Length: 10000000\r\n\r\n", addr)
			})
		})
	}
	for range 3000 {
		attackers.Go(func() { hold(func(net.Conn) {}) })
	}
	// Let the idle connections and the slow bodies take their places.
	for dials.Load() < 3004 {
		time.Sleep(50 * time.Millisecond)
	}

	client := &http.Client{Timeout: 10 * time.Second}
	const exports = 20
	refused := 0
	for i := range exports {
		body := protoRequest(refundSpans(i))
		deadline := time.Now().Add(10 * time.Second)
		for {
			req, _ := http.NewRequest("POST", "http://"+addr+"/v1/traces", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/x-protobuf")
			resp, err := client.Do(req)
			if err != nil {
				t.Errorf("export %d: %v", i, err)
				cancel()
				attackers.Wait()
				r.cmd.Process.Signal(syscall.SIGTERM)
				r.wait(t)
				t.FailNow()
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
			after, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			if resp.StatusCode != http.StatusServiceUnavailable || after < 1 || time.Now().Add(time.Duration(after)*time.Second).After(deadline) {
				t.Fatalf("export %d: HTTP %d, Retry-After %q: not taken within its 10 s", i, resp.StatusCode, resp.Header.Get("Retry-After"))
			}
			refused++
			time.Sleep(time.Duration(after) * time.Second)
		}
	}
	t.Logf("%d exports taken (%d refusals) while %d connections were dialled by the others", exports, refused, dials.Load())
	cancel()
	attackers.Wait()
	r.cmd.Process.Signal(syscall.SIGTERM)
	r.wait(t)
	if r.lines != 5*exports {
		t.Errorf("%d result lines, want %d", r.lines, 5*exports)
	}
}
