// main_stderr_test.go: the binary with a stderr pipe nobody reads, as both SDKs start it: logging never stops it.

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Deadlines of TestBinaryStderrNeverRead: a hang fails the test instead of
// blocking it. A stall is no answer for that long; the whole session
// normally takes a few seconds.
const (
	stallLimit    = 15 * time.Second
	sessionLimit  = 120 * time.Second
	unreadBatches = 20_000
)

// sessionBatch makes the evaluate_batch of JSON-RPC id i (from 1) and
// returns it with its assertion ids in request order.
type sessionBatch func(i int) (line string, ids []string)

// cheapBatches is sdkBatchLine at one schema_version.
func cheapBatches(schemaVersion int) sessionBatch {
	return func(i int) (string, []string) { return sdkBatchLine(i, schemaVersion) }
}

// workloadBatches is the SDK workload of sdk_bench_test.go (five assertions:
// schema, constraint, trace, content, soft content), request i-1 with a
// new random id per assertion, as the SDKs make them.
func workloadBatches(i int) (string, []string) {
	var ids [5]string
	for k := range ids {
		ids[k] = sdkAssertionID()
	}
	return workloadBatchIDs(i-1, ids), ids[:]
}

// sdkBatchLine is one evaluate_batch as an SDK sends it: a new trace each
// time, random assertion ids, three cheap assertions that all pass; it
// returns the line and the assertion ids in request order.
func sdkBatchLine(id, schemaVersion int) (string, []string) {
	ids := make([]string, 3)
	for i := range ids {
		ids[i] = sdkAssertionID()
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"evaluate_batch","params":{"trace":{"schema_version":%d,"trace_id":"trc_%d_%08x",`+
		`"input":{"user_message":"I want a refund for order ORD-%d"},`+
		`"steps":[{"type":"tool_call","name":"lookup_order","args":{"order_id":"ORD-%d"},"result":{"status":"delivered"}},`+
		`{"type":"tool_call","name":"process_refund","args":{"order_id":"ORD-%d"},"result":{"refund_id":"RFD-%d"}}],`+
		`"output":{"message":"Your refund has been processed. Refund ID: RFD-%d."},"metadata":{"cost_usd":0.0067,"total_tokens":1350}},"assertions":[`+
		`{"assertion_id":"%s","type":"content","spec":{"target":"output.message","check":"contains","value":"refund","case_sensitive":false,"soft":false}},`+
		`{"assertion_id":"%s","type":"trace","spec":{"check":"contains_in_order","tools":["lookup_order","process_refund"],"soft":false}},`+
		`{"assertion_id":"%s","type":"constraint","spec":{"field":"metadata.cost_usd","operator":"lte","value":0.01,"soft":false}}]}}`,
		id, schemaVersion, id, rand.Uint32(), id, id, id, id, id, ids[0], ids[1], ids[2]), ids
}

// checkBatchAnswer checks an evaluate_batch answer: one result per
// assertion, in request order, each a pass.
func checkBatchAnswer(ans string, ids []string) error {
	var a struct {
		Result struct {
			Results []struct {
				AssertionID string `json:"assertion_id"`
				Status      string `json:"status"`
			} `json:"results"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(ans), &a); err != nil {
		return fmt.Errorf("answer is not JSON: %v: %s", err, ans)
	}
	rs := a.Result.Results
	if len(rs) != len(ids) {
		return fmt.Errorf("%d results, want %d: %s", len(rs), len(ids), ans)
	}
	for i, r := range rs {
		if r.AssertionID != ids[i] || r.Status != "pass" {
			return fmt.Errorf("result %d is %s %q, want %s pass: %s", i, r.AssertionID, r.Status, ids[i], ans)
		}
	}
	return nil
}

func TestBinaryStderrNeverRead(t *testing.T) {
	bin := buildEngine(t)
	tests := []struct {
		name, reason string
		level        string
		batch        sessionBatch
		// wantWarnings: at warn, stderr holds only the deprecation warning,
		// once, and its count at the end; nothing is dropped.
		wantWarnings bool
	}{
		{"debug", "a log line per batch (Python's --attest-log-level=debug): ~3 MB of log against a 64 KiB pipe", "debug", cheapBatches(1), false},
		{"warn, schema_version 0", "the deprecation warning of every batch is logged once per session, then counted", "warn", cheapBatches(0), true},
		{"SDK workload", "the five assertions SDKs send, schema and soft included, each batch new, as `attest-engine --log-level=warn`", "warn", workloadBatches, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, "--log-level="+tc.level)
			stdin, _ := cmd.StdinPipe()
			stdoutPipe, _ := cmd.StdoutPipe()
			stderr, err := cmd.StderrPipe() // never read while the engine runs
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			stdout := bufio.NewReader(stdoutPipe)

			var answered atomic.Int64
			done := make(chan error, 1)
			go func() { done <- unreadSession(stdin, stdout, tc.batch, &answered) }()
			start, last, lastN := time.Now(), time.Now(), int64(-1)
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
		wait:
			for {
				select {
				case err := <-done:
					if err != nil {
						t.Fatalf("after %d answers: %v", answered.Load(), err)
					}
					break wait
				case <-tick.C:
					if n := answered.Load(); n != lastN {
						last, lastN = time.Now(), n
					}
					if time.Since(last) > stallLimit || time.Since(start) > sessionLimit {
						_ = cmd.Process.Kill()
						t.Fatalf("%s: the engine stopped answering after %d of %d batches (stderr unread): hung on a log write", tc.reason, answered.Load(), unreadBatches)
					}
				}
			}
			t.Logf("%d batches answered in %v", unreadBatches, time.Since(start).Round(time.Millisecond))

			// Clean exit: the engine must not wait for ever to flush its log.
			exited := make(chan error, 1)
			go func() {
				rest, _ := io.ReadAll(stderr) // only now: after the shutdown answer
				err := cmd.Wait()
				if err == nil && tc.wantWarnings {
					err = checkOnceWithCount(string(rest))
				}
				exited <- err
			}()
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("%s: %v", tc.reason, err)
				}
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("the engine did not exit after shutdown")
			}
		})
	}
}

// unreadSession is the SDK's side: initialize, the batches one at a time
// (one stdout line read per request), shutdown.
func unreadSession(stdin io.WriteCloser, stdout *bufio.Reader, batch sessionBatch, answered *atomic.Int64) error {
	return unreadSessionOf(stdin, stdout, batch, unreadBatches, answered)
}

func unreadSessionOf(stdin io.WriteCloser, stdout *bufio.Reader, batch sessionBatch, batches int, answered *atomic.Int64) error {
	// call sends line and reads its answer, checked by check when not nil.
	call := func(line string, id int, check func(string) error) error {
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			return err
		}
		ans, err := stdout.ReadString('\n')
		if err != nil {
			return fmt.Errorf("reading the answer to %d: %v", id, err)
		}
		if !strings.HasPrefix(ans, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":`, id)) {
			return fmt.Errorf("answer to %d: %s", id, ans)
		}
		if check != nil {
			if err := check(ans); err != nil {
				return fmt.Errorf("answer to %d: %v", id, err)
			}
		}
		answered.Add(1)
		return nil
	}
	if err := call(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"sdk_name":"attest-python","sdk_version":"0.1.0","protocol_version":1,"required_capabilities":["layers_1_4"],"preferred_encoding":"json"}}`, 0, nil); err != nil {
		return err
	}
	assertions := 0
	for i := 1; i <= batches; i++ {
		line, ids := batch(i)
		assertions += len(ids)
		if err := call(line, i, func(ans string) error { return checkBatchAnswer(ans, ids) }); err != nil {
			return err
		}
	}
	// shutdown counts every assertion of the session (spec §"shutdown").
	countAll := func(ans string) error {
		var a struct {
			Result struct {
				Evaluated int `json:"assertions_evaluated"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(ans), &a); err != nil {
			return fmt.Errorf("answer is not JSON: %v: %s", err, ans)
		}
		if want := assertions; a.Result.Evaluated != want {
			return fmt.Errorf("assertions_evaluated %d, want %d: %s", a.Result.Evaluated, want, ans)
		}
		return nil
	}
	if err := call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"shutdown","params":{}}`, batches+1), batches+1, countAll); err != nil {
		return err
	}
	return stdin.Close()
}

// checkOnceWithCount checks a warn-level log of 20,000 schema_version 0
// batches: the deprecation logged once, then its count at the end.
func checkOnceWithCount(log string) error {
	var first, summary int
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			return fmt.Errorf("stderr line is not JSON: %q", l)
		}
		if !strings.Contains(fmt.Sprint(m["msg"]), "schema_version 0 is deprecated") {
			continue
		}
		if n, ok := m["occurrences"]; ok {
			summary++
			if n != float64(unreadBatches) {
				return fmt.Errorf("summary counts %v occurrences, want %d: %s", n, unreadBatches, l)
			}
		} else {
			first++
		}
	}
	if first != 1 || summary != 1 {
		return fmt.Errorf("deprecation logged %d times and summarised %d times, want once each:\n%s", first, summary, excerptLog(log))
	}
	return nil
}

func excerptLog(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

// TestBinaryStderrClosed: an SDK that closes its end of stderr must not
// kill the engine (SIGPIPE) on its next log line.
func TestBinaryStderrClosed(t *testing.T) {
	bin := buildEngine(t)
	cmd := exec.Command(bin, "--log-level=debug")
	stdin, _ := cmd.StdinPipe()
	stdoutPipe, _ := cmd.StdoutPipe()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	stderr.Close()
	var answered atomic.Int64
	done := make(chan error, 1)
	go func() {
		err := unreadSessionOf(stdin, bufio.NewReader(stdoutPipe), cheapBatches(1), 200, &answered)
		if err == nil {
			err = cmd.Wait()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("after %d answers with stderr closed: %v", answered.Load(), err)
		}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("no exit after %d answers with stderr closed", answered.Load())
	}
}

// TestBinaryStartFailure: a start that fails after logging has begun logs
// the error as a JSON line, then says it plainly, in that order, through
// the same bounded queue (a direct write could block on a full pipe and
// keep the engine from exiting), and exits 2.
func TestBinaryStartFailure(t *testing.T) {
	bin := buildEngine(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	bad := filepath.Join(dir, "bad.json")
	for _, p := range []string{file, bad} {
		if err := os.WriteFile(p, []byte(`{"judge":`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		args  []string
		plain string // the start of the plain line
	}{
		{"config missing", []string{"--config", filepath.Join(dir, "none.json")}, "attest-engine: config: "},
		{"config not JSON", []string{"--config", bad}, "attest-engine: config: "},
		{"state dir a file", []string{"--state-dir", file}, "attest-engine: --state-dir: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"--log-level=warn"}, tc.args...)...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if code := exitCode(cmd.Run()); code != 2 {
				t.Fatalf("exit %d, want 2: %s", code, stderr.String())
			}
			lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			var first struct{ Level, Msg string }
			if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &first) != nil || first.Level != "error" ||
				!strings.HasPrefix(lines[1], tc.plain) || !strings.HasSuffix(lines[1], first.Msg) {
				t.Errorf("stderr %q: want the error's JSON log line, then %q and its message", stderr.String(), tc.plain)
			}
		})
	}
}
