// watch_budget_test.go: watch's peak memory (VmHWM) against its 128 MiB budget under hostile OTLP input: one large protobuf body, twelve at once, a large OTLP/JSON line.

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// budgetSizes are the inputs of TestWatchBudget, in one-span traces: one
// protobuf body, each of the twelve bodies posted at once, and the OTLP/JSON
// line. Small by default (seconds, and still well past the budget for the
// engine before it was bounded), the sizes (15 MiB each) with
// ATTEST_WATCH_BUDGET=full:
//
//	ATTEST_WATCH_BUDGET=full go test -run TestWatchBudget -v -timeout 1h .
func budgetSizes() (body, each, line int) {
	if os.Getenv("ATTEST_WATCH_BUDGET") == "full" {
		return 300000, 300000, 93000
	}
	return 60000, 15000, 45000
}

// running is a watch process whose output is read as it comes (a full
// stdout pipe would stop its pipeline): its result lines counted, its log
// lines kept.
type running struct {
	cmd   *exec.Cmd
	lines int
	seen  atomic.Int64        // lines so far
	logs  chan map[string]any // every log line, in order
	exit  map[string]any      // the exit log line ("watch finished")
	done  sync.WaitGroup
}

func startRunning(t *testing.T, bin string, args ...string) *running {
	t.Helper()
	r := &running{cmd: exec.Command(bin, append([]string{"watch"}, args...)...), logs: make(chan map[string]any, 1<<16)}
	out, _ := r.cmd.StdoutPipe()
	errp, _ := r.cmd.StderrPipe()
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cmd.Process.Kill() })
	r.done.Go(func() {
		defer close(r.logs)
		sc := bufio.NewScanner(errp)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				m = map[string]any{"msg": "not JSON", "line": sc.Text()}
			}
			if m["msg"] == "watch finished" {
				r.exit = m
			}
			select {
			case r.logs <- m:
			default: // nobody is looking for more
			}
		}
	})
	r.done.Go(func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			r.lines++
			r.seen.Add(1)
		}
	})
	return r
}

// linesNow is the result lines read so far.
func (r *running) linesNow() int { return int(r.seen.Load()) }

// logged waits for the log line with this msg.
func (r *running) logged(t *testing.T, msg string) map[string]any {
	t.Helper()
	for m := range r.logs {
		if m["msg"] == msg {
			return m
		}
	}
	t.Fatalf("no %q log line", msg)
	return nil
}

// wait waits for the process to end, and returns its peak RSS from its
// exit log line.
func (r *running) wait(t *testing.T) int64 {
	t.Helper()
	r.done.Wait()
	if err := r.cmd.Wait(); err != nil {
		t.Fatalf("watch: %v", err)
	}
	n, _ := r.exit["peak_rss_bytes"].(float64)
	if n == 0 {
		t.Fatalf("no peak_rss_bytes in the exit log line %v", r.exit)
	}
	return int64(n)
}

// postRetrying posts body until it is taken (200), waiting as Retry-After
// says after a 429 or 503, as OTLP/HTTP clients do; it returns the number
// of refusals.
func postRetrying(url, ctype string, body []byte, deadline time.Time) (refused int, err error) {
	for {
		req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return refused, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
			return refused, nil
		case http.StatusTooManyRequests, http.StatusServiceUnavailable:
			refused++
			after, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			if after < 1 || time.Now().After(deadline) {
				return refused, fmt.Errorf("HTTP %d, Retry-After %q, after %d refusals", resp.StatusCode, resp.Header.Get("Retry-After"), refused)
			}
			time.Sleep(time.Duration(after) * time.Second)
		default:
			return refused, fmt.Errorf("HTTP %d", resp.StatusCode)
		}
	}
}

// otlpJSONLine is one OTLP/JSON request of n one-span traces, as a line.
func otlpJSONLine(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"refund"}}]},"scopeSpans":[{"spans":[`)
	for _, s := range oneSpanTraces(0, n) {
		if b.Bytes()[b.Len()-1] == '}' {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"traceId":"%x","spanId":"%016x","name":"%s","startTimeUnixNano":"%d","endTimeUnixNano":"%d"}`,
			s.traceID, s.spanID, s.name, s.start, s.end)
	}
	b.WriteString("]}]}]}\n")
	return b.Bytes()
}

// TestWatchBudget: peak RSS (VmHWM, the process's own) within
// watchMemoryBudget for one large protobuf body of one-span traces (the most
// traces per byte), twelve bodies posted at once by clients that retry on
// 429/503 as OTLP says until all are taken, and one large OTLP/JSON line
// through --in; every trace gets its five result lines. The engine before
// it was bounded took 219 MiB, 134 MiB (most clients timing out) and
// 172 MiB for the small sizes, and 1,044 MiB for the full body.
func TestWatchBudget(t *testing.T) {
	bin := buildEngine(t)
	bodyTraces, eachTraces, lineTraces := budgetSizes()
	const bodies = 12
	check := func(t *testing.T, r *running, traces int) {
		peak := r.wait(t)
		t.Logf("%d traces: %d result lines, peak RSS %.1f MiB", traces, r.lines, float64(peak)/(1<<20))
		if r.lines != 5*traces {
			t.Errorf("%d result lines, want %d", r.lines, 5*traces)
		}
		if peak > watchMemoryBudget {
			t.Errorf("peak RSS %.1f MiB, over the budget of %d MiB", float64(peak)/(1<<20), watchMemoryBudget>>20)
		}
	}
	listen := func(t *testing.T, traces int, post func(url string)) {
		r := startRunning(t, bin, "--suite", watchSuite, "--jobs", "2", "--listen", "127.0.0.1:0", "--grace", "100ms")
		post("http://" + r.logged(t, "listening for OTLP/HTTP")["address"].(string) + "/v1/traces")
		r.cmd.Process.Signal(syscall.SIGTERM) // what was taken is evaluated before the exit
		check(t, r, traces)
	}
	t.Run("one protobuf body", func(t *testing.T) {
		listen(t, bodyTraces, func(url string) {
			body := protoRequest(oneSpanTraces(0, bodyTraces))
			t.Logf("body of %d bytes", len(body))
			if _, err := postRetrying(url, "application/x-protobuf", body, time.Now().Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
		})
	})
	t.Run("twelve bodies at once", func(t *testing.T) {
		// Each client sends its own traces: the body's, renumbered.
		listen(t, bodies*eachTraces, func(url string) {
			var wg sync.WaitGroup
			refusals := make([]int, bodies)
			for k := range bodies {
				body := protoRequest(oneSpanTraces(k*eachTraces, eachTraces))
				wg.Go(func() {
					var err error
					if refusals[k], err = postRetrying(url, "application/x-protobuf", body, time.Now().Add(20*time.Minute)); err != nil {
						t.Errorf("client %d: %v", k, err)
					}
				})
			}
			wg.Wait()
			t.Logf("%d bodies taken; refusals per client %v", bodies, refusals)
		})
	})
	t.Run("OTLP/JSON line", func(t *testing.T) {
		in := filepath.Join(t.TempDir(), "line.jsonl")
		line := otlpJSONLine(lineTraces)
		if err := os.WriteFile(in, line, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("line of %d bytes", len(line))
		check(t, startRunning(t, bin, "--suite", watchSuite, "--jobs", "2", "--in", in, "--deterministic"), lineTraces)
	})
}

// TestWatchSpoolChunks: with --state-dir, a request of many chunks is
// spooled, answered 200, evaluated once, and settled: a restart on the
// same dir replays nothing of it and writes no line (the ledger counts a
// request's chunks as they come, and it does not settle before its last).
func TestWatchSpoolChunks(t *testing.T) {
	bin := buildEngine(t)
	dir := t.TempDir()
	const n = 20000 // one-span traces: ~6 MiB of spans, six chunks
	run := func(post bool) (int, []map[string]any) {
		r := startRunning(t, bin, "--suite", watchSuite, "--jobs", "2", "--listen", "127.0.0.1:0", "--grace", "100ms",
			"--state-dir", dir)
		addr := r.logged(t, "listening for OTLP/HTTP")["address"].(string)
		if post {
			if _, err := postRetrying("http://"+addr+"/v1/traces", "application/x-protobuf", protoRequest(oneSpanTraces(0, n)), time.Now().Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
			// Wait for every line before the signal, so that all is settled.
			for deadline := time.Now().Add(time.Minute); r.linesNow() < 5*n && time.Now().Before(deadline); {
				time.Sleep(50 * time.Millisecond)
			}
			time.Sleep(1500 * time.Millisecond) // the ledger releases the spool each second
		}
		r.cmd.Process.Signal(syscall.SIGTERM)
		var logs []map[string]any
		r.wait(t)
		for m := range r.logs {
			logs = append(logs, m)
		}
		return r.lines, logs
	}
	if lines, _ := run(true); lines != 5*n {
		t.Fatalf("first run: %d result lines, want %d", lines, 5*n)
	}
	lines, logs := run(false)
	for _, m := range logs {
		if m["msg"] == "spool: replaying requests answered 200 before a restart" {
			t.Errorf("the restart replays the spool: %v", m)
		}
	}
	if lines != 0 {
		t.Errorf("the restart wrote %d result lines, want none", lines)
	}
}
