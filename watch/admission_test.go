// admission_test.go: the listener's rate rule: a body that never comes or trickles is answered 408 and dropped; one at a useful rate is taken.

package watch

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// listenWith runs watch --listen on loopback with the given limits, lets
// use talk to its address, then stops it (as SIGTERM does) and returns its
// result lines.
func listenWith(t *testing.T, lim listenLimits, use func(addr string)) string {
	t.Helper()
	return listenCmd(t, lim, func(addr string, _ *command) { use(addr) })
}

// listenCmd is listenWith that also lets use see the command.
func listenCmd(t *testing.T, lim listenLimits, use func(addr string, c *command)) string {
	t.Helper()
	pr, pw := io.Pipe()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if l := sc.Text(); strings.Contains(l, `"msg":"listening for OTLP/HTTP"`) {
				_, a, _ := strings.Cut(l, `"address":"`)
				a, _, _ = strings.Cut(a, `"`)
				addr <- a
			}
		}
	}()
	env := testEnv(nil)
	o, log, code := parse([]string{"--suite", "../testdata/watch/suite.json", "--listen", "127.0.0.1:0", "--deterministic", "--jobs", "1"}, pw, env)
	if log == nil {
		t.Fatalf("parse: %d", code)
	}
	o.listenLimits = lim
	c, err := newCommand(o, env, log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- c.run(ctx, nil, &out); pw.Close() }()
	select {
	case a := <-addr:
		use(a, c)
	case err := <-done:
		t.Fatalf("watch ended before listening: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// paddedBody is an OTLP/JSON request of one span carrying about n bytes.
func paddedBody(n int) []byte {
	return []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b175","name":"invoke_agent a","startTimeUnixNano":"1","endTimeUnixNano":"2","attributes":[{"key":"pad","value":{"stringValue":"` +
		strings.Repeat("x", n) + `"}}]}]}]}]}`)
}

// TestSlowBodies: a body is read only while it arrives at a useful rate.
// One that never comes and one that trickles below the minimum rate are
// answered 408 within the grace, the rate's allowance and the longest
// wait, and their connection closed; one at the rate, however long it
// takes, is taken.
func TestSlowBodies(t *testing.T) {
	// Margins for a loaded machine, where a 100 ms timer can fire much later:
	// the slow body sends 10× the minimum rate, and may pause 1 s.
	lim := listenLimits{BodyGrace: 300 * time.Millisecond, ReadIdle: time.Second, MinRate: 4 << 10}
	body := paddedBody(30 << 10)
	for _, c := range []struct {
		name        string
		piece       int           // bytes sent at a time
		every       time.Duration // between pieces
		want        int
		within, min time.Duration // the answer's time, at most and at least
	}{
		{"never sent", 0, 0, http.StatusRequestTimeout, time.Second, 0},
		{"trickle below the rate", 100, 50 * time.Millisecond, http.StatusRequestTimeout, 3 * time.Second, 0},
		// 4 KiB every 100 ms is 40 KiB/s: most of a second for the body.
		{"at the rate, slowly", 4 << 10, 100 * time.Millisecond, http.StatusOK, 5 * time.Second, 500 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			listenWith(t, lim, func(addr string) {
				conn, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				start := time.Now()
				fmt.Fprintf(conn, "POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
				stop := make(chan struct{})
				defer close(stop)
				if c.piece > 0 {
					go func() {
						for rest := body; len(rest) > 0; {
							n := min(c.piece, len(rest))
							if _, err := conn.Write(rest[:n]); err != nil {
								return
							}
							rest = rest[n:]
							select {
							case <-stop:
								return
							case <-time.After(c.every):
							}
						}
					}()
				}
				conn.SetReadDeadline(time.Now().Add(10 * time.Second))
				resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
				took := time.Since(start)
				if err != nil {
					t.Fatalf("no answer after %v: %v", took, err)
				}
				resp.Body.Close()
				if resp.StatusCode != c.want || took > c.within || took < c.min {
					t.Errorf("HTTP %d after %v; want %d within %v, not before %v", resp.StatusCode, took, c.want, c.within, c.min)
				}
			})
		})
	}
}

// TestConnCap: at the connection cap, a connection that has sent nothing
// makes room for a newcomer; when every connection is busy with a request,
// the newcomer is answered 503 at once (long before a slot frees: the
// bodies' grace is 30 s), with Retry-After, in its request's encoding,
// and closed. Each step waits, up to 10 s, for the listener's own count of
// its connections to show the state the next step needs, never for a
// fixed time.
func TestConnCap(t *testing.T) {
	lim := listenLimits{Conns: 3, BodyGrace: 30 * time.Second, MinRate: 1 << 10}
	// post sends a small JSON body labelled protobuf on a connection of its
	// own, written whole as soon as it connects, and reads the answer.
	post := func(addr string) (*http.Response, []byte) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		body := paddedBody(10)
		fmt.Fprintf(c, "POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("no answer: %v", err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, b
	}
	listenCmd(t, lim, func(addr string, cmd *command) {
		// census is what the listener counts: connections open, of them
		// reading a request, and those closed to make room or refused.
		census := func() (open, active, evicted, refused int) {
			l := cmd.conns.Load()
			if l == nil {
				return
			}
			l.mu.Lock()
			defer l.mu.Unlock()
			for _, in := range l.conns {
				if in.state == http.StateActive {
					active++
				}
			}
			return len(l.conns), active, l.evicted, l.refused
		}
		waitFor := func(what string, ok func(open, active, evicted, refused int) bool) {
			t.Helper()
			for deadline := time.Now().Add(10 * time.Second); !ok(census()); time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					open, active, evicted, refused := census()
					t.Fatalf("after 10 s, not yet %s: %d connections open, %d reading a request, %d closed to make room, %d refused",
						what, open, active, evicted, refused)
				}
			}
		}
		dial := func() net.Conn {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			return c
		}
		for range lim.Conns {
			dial() // connections that never send a byte
		}
		waitFor("the cap full of silent connections", func(open, _, _, _ int) bool { return open == lim.Conns })
		// A JSON body sent as protobuf: 400, but taken in, not refused.
		if resp, _ := post(addr); resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("with the cap full of silent connections: HTTP %d, want an answer to the request (400)", resp.StatusCode)
		}
		waitFor("one silent connection closed for the request, and the request's closed", func(open, _, evicted, refused int) bool {
			return open == lim.Conns-1 && evicted == 1 && refused == 0
		})
		// Every connection busy with a body that is still coming.
		var busy []net.Conn
		defer func() {
			for _, c := range busy {
				c.Close() // so that the listener stops at once, not after the bodies' grace
			}
		}()
		for range lim.Conns {
			c := dial()
			busy = append(busy, c)
			fmt.Fprintf(c, "POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
		}
		waitFor("every connection reading a request", func(open, active, _, refused int) bool {
			return open == lim.Conns && active == lim.Conns && refused == 0
		})
		start := time.Now()
		resp, body := post(addr)
		code, msg, err := readStatus(body, true)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" ||
			resp.Header.Get("Content-Type") != "application/x-protobuf" || err != nil || code != 14 || time.Since(start) > 5*time.Second {
			t.Errorf("over the cap: HTTP %d, Retry-After %q, %s, Status %d %q (%v) after %v; want 503 at once, Retry-After 1, a protobuf Status 14",
				resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("Content-Type"), code, msg, err, time.Since(start))
		}
		if _, _, _, refused := census(); refused != 1 {
			t.Errorf("%d connections refused, want 1", refused)
		}
	})
}
