package watch

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"attest-engine/ingest"
	"attest-engine/spool"
)

// TestTakeAtStop: a request answered 200 while the engine stops (a
// SIGTERM) is evaluated before it ends: the source, once stopped, takes
// every item until the listener has handed on each request it
// acknowledged (handoff.close, then listening closed), and a request
// taken after the hand-off closed is refused (503), never acknowledged
// and dropped. Each round fills the pipeline, takes a request as the stop
// comes, and runs the source to its end.
func TestTakeAtStop(t *testing.T) {
	o, log, code := parse([]string{"--suite", "../testdata/watch/suite.json", "--listen", "127.0.0.1:0", "--deterministic", "--log-level", "error"}, io.Discard, testEnv(nil))
	if log == nil {
		t.Fatalf("parse: exit %d", code)
	}
	c, err := newCommand(o, testEnv(nil), log)
	if err != nil {
		t.Fatal(err)
	}
	request := func(trace string) *ingest.Request {
		body := fmt.Sprintf(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":%q,"spanId":"0000000000000001","name":"invoke_agent a","startTimeUnixNano":"1","endTimeUnixNano":"2","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}}]}]}]}]}`, trace)
		req, err := ingest.CheckOTLP([]byte(body), c.chunk)
		if err != nil {
			t.Fatal(err)
		}
		return req
	}
	lost, refused := 0, 0
	const rounds = 300
	round := func(i int) {
		stop, cancel := context.WithCancel(context.Background())
		abandon, drop := context.WithCancel(context.Background())
		c.abandon, c.inflight = abandon, newBudget(inflightBytes)
		c.items = make(chan ingest.Item, 1)
		h := newHandoff()
		c.handoff = h
		go c.runHandoff(h)
		listening := make(chan struct{})
		defer func() {
			drop() // as run returns: the hand-off stops handing on
			<-listening
		}()
		go func() { // the listener's end (serve)
			<-stop.Done()
			c.handoff.close()
			close(listening)
		}()
		src := c.newSource(stop, listening)
		full := request(fmt.Sprintf("%032x", 2*i+1))
		full.Each(func(spans []ingest.Span, _ bool) error { return c.send(abandon, ingest.Item{Spans: spans}) }) // the pipeline is full
		want := fmt.Sprintf("%032x", 2*i+2)
		answer := make(chan int, 1)
		go func() {
			code, _ := c.take(request(want), 0, spool.JSON, nil)
			answer <- code
		}()
		cancel()
		evaluated := false
		for {
			tr, err := src.next(0)
			if err == io.EOF {
				break
			}
			evaluated = evaluated || tr.ID == want
			c.pool.release(traceCost(tr))
			tr.Hold.Done()
		}
		switch code := <-answer; {
		case code == 0 && !evaluated:
			lost++
		case code != 0:
			refused++
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range rounds {
			round(i)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%d rounds not done in 10 s", rounds)
	}
	if lost > 0 {
		t.Errorf("%d of %d requests answered 200 while stopping were never evaluated (%d refused)", lost, rounds, refused)
	}
	t.Logf("%d of %d rounds: the request came after the stop and was refused", refused, rounds)
}
