// watch_budget_messages_test.go: watch's peak memory against its budget when one span's message attribute holds as many tiny messages as a line or a request carries.

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// messagesSizes are the tiny messages of TestWatchBudgetMessages' one
// attribute: by default a text just under the 8 MiB up to which a message
// attribute is decoded as JSON (a longer one is read as text), at
// ATTEST_WATCH_BUDGET=full a 15 MB line or request as the issue measured.
func messagesSizes() int {
	if os.Getenv("ATTEST_WATCH_BUDGET") == "full" {
		return 350000
	}
	return 190000
}

// messagesTrace is a trace of an agent span and a chat span whose attr
// holds n tiny messages as JSON text, as one OTLP/JSON request.
func messagesTrace(n int, attr string) []byte {
	var msgs bytes.Buffer
	msgs.WriteByte('[')
	for i := range n {
		if i > 0 {
			msgs.WriteByte(',')
		}
		fmt.Fprintf(&msgs, `{"role":"user","content":"m%d"}`, i)
	}
	msgs.WriteByte(']')
	text, _ := json.Marshal(msgs.String())
	var b bytes.Buffer
	t0 := int64(1763950000000000000)
	fmt.Fprintf(&b, `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"%s","spanId":"00000000000000a1","name":"invoke_agent a","startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}}]},`,
		eventsTrace, t0, t0+5e6)
	fmt.Fprintf(&b, `{"traceId":"%s","spanId":"0000000000000100","parentSpanId":"00000000000000a1","name":"chat m","startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"%s","value":{"stringValue":%s}}]}]}]}]}`,
		eventsTrace, t0+1e6, t0+2e6, attr, text)
	return b.Bytes()
}

// TestWatchBudgetMessages: peak RSS (VmHWM) within watchMemoryBudget when
// one span's gen_ai.input.messages (or gen_ai.output.messages) holds as
// many tiny messages as its bytes carry, through --in and posted to
// --listen; the trace gets its five result lines. Mapped whole, the
// messages took watch to 288 MiB at the default size and a 15 MB line
// read as one text to 174 MiB; mapping is bounded (ingest's quota.go) and
// a trace too large to evaluate is answered before its text is written.
func TestWatchBudgetMessages(t *testing.T) {
	bin := buildEngine(t)
	n := messagesSizes()
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
	for _, attr := range []string{"gen_ai.input.messages", "gen_ai.output.messages"} {
		t.Run(attr+" in a line", func(t *testing.T) {
			in := filepath.Join(t.TempDir(), "messages.jsonl")
			line := append(messagesTrace(n, attr), '\n')
			if err := os.WriteFile(in, line, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("line of %d bytes", len(line))
			check(t, startRunning(t, bin, "--suite", watchSuite, "--jobs", "2", "--in", in, "--deterministic"))
		})
	}
	t.Run("gen_ai.input.messages in a request", func(t *testing.T) {
		// The grace covers the request's chunks: the chat span, alone in
		// its chunk, is assembled after the agent span.
		r := startRunning(t, bin, "--suite", watchSuite, "--jobs", "2", "--listen", "127.0.0.1:0", "--grace", "5s")
		url := "http://" + r.logged(t, "listening for OTLP/HTTP")["address"].(string) + "/v1/traces"
		body := messagesTrace(n, "gen_ai.input.messages")
		t.Logf("body of %d bytes", len(body))
		deadline := time.Now().Add(time.Minute)
		if _, err := postRetrying(url, "application/json", body, deadline); err != nil {
			t.Fatal(err)
		}
		for r.linesNow() < 5 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		r.cmd.Process.Signal(syscall.SIGTERM)
		check(t, r)
	})
}

// TestWatchOversize: a trace whose Attest text would exceed spec §7's
// 10,485,760 bytes (a 4 MB text message, written as the message, the
// prompt and the user's message) gets validation's error on every line,
// with its case key, as when the text was written and validated.
func TestWatchOversize(t *testing.T) {
	bin := buildEngine(t)
	text, _ := json.Marshal(strings.Repeat("refund ", 4<<20/7))
	line := messagesTrace(0, "x")
	line = bytes.Replace(line, []byte(`{"key":"x","value":{"stringValue":"[]"}}`),
		[]byte(`{"key":"gen_ai.input.messages","value":{"stringValue":`+string(text)+`}}`), 1)
	in := filepath.Join(t.TempDir(), "oversize.jsonl")
	if err := os.WriteFile(in, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "watch", "--suite", watchSuite, "--in", in, "--deterministic").Output()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); n++ {
		var r struct {
			CaseKey     string `json:"case_key"`
			Status      string
			Explanation string
			Error       struct{ Code int }
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Status != "error" || r.Error.Code != 1001 || !strings.HasPrefix(r.Explanation, "trace exceeds max size: ") ||
			!strings.HasSuffix(r.Explanation, " > 10485760 bytes") || r.CaseKey == "" {
			t.Errorf("line %d: %s; want error 1001, trace exceeds max size, with its case key", n, sc.Bytes())
		}
	}
	if n != 5 {
		t.Errorf("%d lines, want 5", n)
	}
}
