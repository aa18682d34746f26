// watch_slowclients_test.go: clients that never finish a body and thousands of idle connections cannot keep a well-behaved exporter out of --listen.

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
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
	// The other clients are another process, as they would be: this
	// test binary again, running attack (TestWatchSlowClientsAttacker).
	attack := exec.Command(os.Args[0], "-test.run=^TestWatchSlowClientsAttacker$")
	attack.Env = append(os.Environ(), "ATTEST_ATTACK_ADDR="+addr)
	out, _ := attack.StdoutPipe()
	if err := attack.Start(); err != nil {
		t.Fatal(err)
	}
	stopAttack := func() { attack.Process.Kill(); attack.Wait() }
	defer stopAttack()
	// Its first line says every connection has been dialled once.
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		t.Fatalf("the attacking process: %v", err)
	}
	go io.Copy(io.Discard, out)

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
				stopAttack()
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
	t.Logf("%d exports taken (%d refusals) while the other process dialled on", exports, refused)
	stopAttack()
	r.cmd.Process.Signal(syscall.SIGTERM)
	r.wait(t)
	if r.lines != 5*exports {
		t.Errorf("%d result lines, want %d", r.lines, 5*exports)
	}
}

// TestWatchSlowClientsAttacker is TestWatchSlowClients' other process: with
// ATTEST_ATTACK_ADDR set, four clients that send a request's header and never
// its body, each reconnecting as soon as it is dropped, and 3,000 that send
// nothing, each dialled again when closed, until the process is killed. It
// prints a line once every connection has been dialled.
func TestWatchSlowClientsAttacker(t *testing.T) {
	addr := os.Getenv("ATTEST_ATTACK_ADDR")
	if addr == "" {
		t.Skip("TestWatchSlowClients' helper process")
	}
	var dials atomic.Int64
	hold := func(work func(net.Conn)) {
		for {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			dials.Add(1)
			work(c)
			io.Copy(io.Discard, c) // until the server closes it
			c.Close()
			time.Sleep(10 * time.Millisecond)
		}
	}
	for range 4 {
		go hold(func(c net.Conn) {
			fmt.Fprintf(c, "POST /v1/traces HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-protobuf\r\nContent-Length: 10000000\r\n\r\n", addr)
		})
	}
	for range 3000 {
		go hold(func(net.Conn) {})
	}
	for dials.Load() < 3004 {
		time.Sleep(50 * time.Millisecond)
	}
	fmt.Println("dialled")
	select {}
}
