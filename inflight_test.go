// inflight_test.go: the in-flight bound over pipes: with 64 batches held by a slow provider the engine stops reading stdin.

package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// inFlightBound is docs/security.md's "at most 64 requests in
// flight, then the engine stops reading" (spec §1.5: "Maximum concurrent
// in-flight requests: 64 (engine-configured, advertised in initialize
// response)").
const inFlightBound = 64

// quietWindow is how long the test watches for a sign that the engine read
// past its bound while every slot is held. An engine without the bound
// shows one within milliseconds; with the bound nothing can come at all,
// so the length only trades the test's time against a slow machine's
// chance to hide a broken bound, never against a false failure.
const quietWindow = 1500 * time.Millisecond

// heldJudge is an OpenAI-compatible stand-in whose chat completions block
// until the test releases them. Each request's batch is known by the
// "batch-<id>" marker of the judged text, reported on arrived.
type heldJudge struct {
	srv     *httptest.Server
	arrived chan string   // batch ids, as their judge calls reach the server
	release chan struct{} // one token lets one held call answer
	all     chan struct{} // closed by releaseAll: every call answers at once

	releaseAll func()
}

var batchMarker = regexp.MustCompile(`batch-[a-z0-9-]+`)

func newHeldJudge(t *testing.T) *heldJudge {
	h := &heldJudge{arrived: make(chan string, 4*inFlightBound), release: make(chan struct{}, inFlightBound), all: make(chan struct{})}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		h.arrived <- batchMarker.FindString(string(body))
		select {
		case <-h.release:
		case <-h.all:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"{\"score\": 0.9, \"reason\": \"Confirms the refund.\"}"}}],"usage":{"prompt_tokens":100,"completion_tokens":20}}`)
	}))
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(h.all) }); h.srv.Close() })
	h.releaseAll = func() { once.Do(func() { close(h.all) }) }
	return h
}

// TestBinaryInFlightBound: with 64 batches in flight (each waiting on a judge
// call the stand-in holds), the engine reads no further line: the 65th
// batch's judge call does not reach the provider, a cheap batch sent after it
// is not answered, and the pipe fills, so that the SDK's writes block. Once
// one held batch is answered, the engine reads again: the 65th takes its
// slot, and everything is answered.
func TestBinaryInFlightBound(t *testing.T) {
	h := newHeldJudge(t)
	e, hello := startWithProvider(t, h.srv, "--log-level=error", "--eval-timeout=2m")
	res, _ := hello["result"].(map[string]any)
	if res["compatible"] != true || fmt.Sprint(res["max_concurrent_requests"]) != fmt.Sprint(inFlightBound) {
		t.Fatalf("initialize: want compatible with layers 5–6 and max_concurrent_requests %d: %v", inFlightBound, hello)
	}
	judged := func(id string) string {
		return batch56(id, refundMsg+" batch-"+id, `{"assertion_id":"j","type":"llm_judge","spec":{"target":"output.message","criteria":"Confirms the refund","threshold":0.5}}`)
	}
	c := collect(t, e.stdout)
	deadline := time.After(10 * time.Second)

	// 64 batches, each held at the provider.
	var held []string
	for i := range inFlightBound {
		held = append(held, judged(fmt.Sprint("held", i)))
	}
	e.send(t, strings.Join(held, "\n"))
	arrivals := map[string]bool{}
	for len(arrivals) < inFlightBound {
		select {
		case id := <-h.arrived:
			if !strings.HasPrefix(id, "batch-held") || arrivals[id] {
				t.Fatalf("judge call for %q while the 64 held batches arrive (have %d)", id, len(arrivals))
			}
			arrivals[id] = true
		case id := <-c.got:
			t.Fatalf("answer to %s while its judge call is held: %v", id, c.answer(id))
		case <-deadline:
			t.Fatalf("%d of %d judge calls reached the provider in 10s", len(arrivals), inFlightBound)
		}
	}

	// The 65th batch, a cheap batch behind it, then 1 MiB of blank lines:
	// far more than the pipe (64 KiB) and the engine's read buffer (64 KiB)
	// hold, so that the writes cannot finish unless the engine reads on.
	const filler = 1 << 20
	var written atomic.Int64
	wrote := make(chan error, 1)
	cheap := batch56("cheap", refundMsg, `{"assertion_id":"c","type":"content","spec":{"target":"output.message","check":"contains","value":"refund"}}`)
	go func() {
		head := judged("line-65") + "\n" + cheap + "\n"
		if _, err := io.WriteString(e.stdin, head); err != nil {
			wrote <- err
			return
		}
		written.Add(int64(len(head)))
		blank := strings.Repeat(" ", 4095) + "\n"
		for written.Load() < int64(len(head)+filler) {
			if _, err := io.WriteString(e.stdin, blank); err != nil {
				wrote <- err
				return
			}
			written.Add(int64(len(blank)))
		}
		wrote <- nil
	}()
	quiet := time.After(quietWindow)
watch:
	for {
		select {
		case id := <-h.arrived:
			t.Fatalf("judge call for %s reached the provider while %d batches were in flight: the engine read past its bound", id, inFlightBound)
		case id := <-c.got:
			t.Fatalf("answer to %s while %d batches were in flight: the engine read past its bound: %v", id, inFlightBound, c.answer(id))
		case err := <-wrote:
			t.Fatalf("the engine took all %d bytes written after the %dth line while %d batches were in flight (write error %v): it did not stop reading",
				written.Load(), inFlightBound, inFlightBound, err)
		case <-quiet:
			break watch
		}
	}
	t.Logf("while %d batches were held, the engine took %d of the %d bytes written after them", inFlightBound, written.Load(), filler)

	// One held batch answers, and frees its slot only then: the engine
	// reads the 65th line, whose judge call takes the slot. The cheap batch
	// behind it now waits for the next slot.
	h.release <- struct{}{}
	var order []string
	sawLine65 := false
	for !sawLine65 || len(order) == 0 {
		select {
		case id := <-h.arrived:
			if id != "batch-line-65" {
				t.Fatalf("judge call for %q after one release, want batch-line-65's", id)
			}
			sawLine65 = true
		case id := <-c.got:
			order = append(order, id)
		case <-deadline:
			t.Fatalf("after one release: the 65th batch's judge call arrived: %v; answers %v", sawLine65, order)
		}
	}
	// A second one answers: the cheap batch gets its slot and is answered,
	// after both (each answer is written before its slot is freed).
	h.release <- struct{}{}
	for !slices.Contains(order, "cheap") {
		select {
		case id := <-h.arrived:
			t.Fatalf("judge call for %q: no batch but the 65th was sent after the held ones", id)
		case id := <-c.got:
			order = append(order, id)
		case <-deadline:
			t.Fatalf("after two releases: answers %v, want the cheap batch's among them", order)
		}
	}
	if len(order) != 3 || !strings.HasPrefix(order[0], "held") || !strings.HasPrefix(order[1], "held") {
		t.Errorf("answers after two releases %v: want two held batches', then the cheap one's", order)
	}
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatalf("writing after the release: %v", err)
		}
	case <-deadline:
		t.Fatalf("the engine did not read the rest of the input once slots were free (%d bytes taken)", written.Load())
	}

	// Everything else answers, each batch exactly once (collect).
	h.releaseAll()
	want := inFlightBound + 2 // the held ones, the 65th and the cheap one
	for len(order) < want {
		select {
		case id := <-c.got:
			order = append(order, id)
		case <-deadline:
			t.Fatalf("%d of %d answers", len(order), want)
		}
	}
	e.send(t, `{"jsonrpc":"2.0","id":"bye","method":"shutdown","params":{}}`)
	<-c.done
	if code := e.wait(t); code != 0 {
		t.Errorf("exit code %d", code)
	}
	for _, id := range order {
		r, _ := c.answer(id)["result"].(map[string]any)
		results, _ := r["results"].([]any)
		if len(results) != 1 || results[0].(map[string]any)["status"] != "pass" {
			t.Errorf("%s: %v", id, c.answer(id))
		}
	}
}
