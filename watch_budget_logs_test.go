// watch_budget_logs_test.go: watch's peak memory against its budget when the content comes as many GenAI events: log records of one span posted to /v1/logs, span events in one line.

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// eventsSizes are the inputs of TestWatchBudgetEvents: log records of one
// span in one /v1/logs body, and spans of 1,024 events each in one line.
// The full sizes (15 MB each) with ATTEST_WATCH_BUDGET=full.
func eventsSizes() (records, spans int) {
	if os.Getenv("ATTEST_WATCH_BUDGET") == "full" {
		return 110000, 160
	}
	return 40000, 60
}

const eventsTrace = "5b8efff798038103d269b633813fc60c"

// eventsSpans is a trace of an agent span and n chat spans, each with the
// given events (JSON of the events list's elements), as one OTLP/JSON line.
func eventsSpans(n int, events string) []byte {
	var b bytes.Buffer
	t0 := int64(1763950000000000000)
	fmt.Fprintf(&b, `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"%s","spanId":"00000000000000a1","name":"invoke_agent a","startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}}]}`,
		eventsTrace, t0, t0+5e6)
	for s := range n {
		fmt.Fprintf(&b, `,{"traceId":"%s","spanId":"%016x","parentSpanId":"00000000000000a1","name":"chat m","startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.request.model","value":{"stringValue":"m"}}],"events":[%s]}`,
			eventsTrace, 0x100+s, t0+1e6, t0+2e6, events)
	}
	b.WriteString("]}]}]}\n")
	return b.Bytes()
}

// oneSpanLogs is a logs request of n small GenAI event records, all for
// the first chat span of eventsSpans.
func oneSpanLogs(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"traceId":"%s","spanId":"0000000000000100","eventName":"gen_ai.user.message","body":{"stringValue":"m%d"}}`, eventsTrace, i)
	}
	b.WriteString("]}]}]}")
	return b.Bytes()
}

// TestWatchBudgetEvents: peak RSS (VmHWM) within watchMemoryBudget when a
// trace's content comes as the most GenAI events its bytes can carry: a
// /v1/logs body of small records for one span, and a line of spans with
// 1,024 small events each. The trace gets its five result lines. It
// fails when a trace maps every event it holds (ingest's maxTraceEvents).
func TestWatchBudgetEvents(t *testing.T) {
	bin := buildEngine(t)
	records, spans := eventsSizes()
	check := func(t *testing.T, r *running) {
		peak := r.wait(t)
		t.Logf("%d result lines, peak RSS %.1f MiB", r.lines, float64(peak)/(1<<20))
		if r.lines != 5 {
			t.Errorf("%d result lines, want 5", r.lines)
		}
		if peak > watchMemoryBudget {
			t.Errorf("peak RSS %.1f MiB, over the budget of %d MiB", float64(peak)/(1<<20), watchMemoryBudget>>20)
		}
	}
	t.Run("log records of one span", func(t *testing.T) {
		r := startRunning(t, bin, "--suite", watchSuite, "--jobs", "2", "--listen", "127.0.0.1:0", "--grace", "100ms")
		base := "http://" + r.logged(t, "listening for OTLP/HTTP")["address"].(string)
		body := oneSpanLogs(records)
		t.Logf("logs body of %d bytes", len(body))
		deadline := time.Now().Add(time.Minute)
		if _, err := postRetrying(base+"/v1/logs", "application/json", body, deadline); err != nil {
			t.Fatal(err)
		}
		if _, err := postRetrying(base+"/v1/traces", "application/json", bytes.TrimSpace(eventsSpans(1, "")), deadline); err != nil {
			t.Fatal(err)
		}
		for r.linesNow() < 5 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		r.cmd.Process.Signal(syscall.SIGTERM)
		check(t, r)
	})
	t.Run("span events", func(t *testing.T) {
		var ev bytes.Buffer
		for i := range 1024 {
			if i > 0 {
				ev.WriteByte(',')
			}
			fmt.Fprintf(&ev, `{"name":"gen_ai.user.message","attributes":[{"key":"content","value":{"stringValue":"m%d"}}]}`, i)
		}
		in := filepath.Join(t.TempDir(), "events.jsonl")
		line := eventsSpans(spans, ev.String())
		if err := os.WriteFile(in, line, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("line of %d bytes", len(line))
		check(t, startRunning(t, bin, "--suite", watchSuite, "--jobs", "2", "--in", in, "--deterministic"))
	})
}
