package watch

import (
	"context"
	"fmt"
	"io"
	"testing"

	"attest-engine/ingest"
)

// TestDeliverAtStop: a request answered 200 while the engine stops (a
// SIGTERM) is evaluated before it ends: the source, once stopped, still
// takes every request deliver handed over. Each round fills the pipeline,
// lets a request wait for it, stops, and runs the source to its end.
func TestDeliverAtStop(t *testing.T) {
	o, log, code := parse([]string{"--suite", "../testdata/watch/suite.json", "--listen", "127.0.0.1:0", "--deterministic", "--log-level", "error"}, io.Discard, testEnv(nil))
	if log == nil {
		t.Fatalf("parse: exit %d", code)
	}
	c, err := newCommand(o, testEnv(nil), log)
	if err != nil {
		t.Fatal(err)
	}
	spans := func(trace string) []ingest.Span {
		body := fmt.Sprintf(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":%q,"spanId":"0000000000000001","name":"invoke_agent a","startTimeUnixNano":"1","endTimeUnixNano":"2","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}}]}]}]}]}`, trace)
		sp, err := ingest.ParseOTLP([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return sp
	}
	lost := 0
	const rounds = 300
	for i := range rounds {
		stop, cancel := context.WithCancel(context.Background())
		items := make(chan ingest.Item, 1)
		src := c.newSource(stop, items)
		items <- ingest.Item{Spans: spans(fmt.Sprintf("%032x", 2*i+1))} // the pipeline is full
		want := fmt.Sprintf("%032x", 2*i+2)
		answer := make(chan int, 1)
		go func() {
			code, _ := c.deliver(stop, context.Background(), items, spans(want), false, nil)
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
			tr.Hold.Done()
		}
		if <-answer == 0 && !evaluated {
			lost++
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d requests answered 200 while stopping were never evaluated", lost, rounds)
	}
}
