// main_stderr_test.go: the binary with a stderr pipe nobody reads, as both SDKs start it: logging never stops it.

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
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

func TestBinaryStderrNeverRead(t *testing.T) {
	bin := buildEngine(t)
	tests := []struct {
		name, reason string
		level        string
		batch        sessionBatch
		// wantWarnings: at warn, stderr holds only the deprecation warning,
		// once, and its count at the end; nothing is dropped.
		wantWarnings bool
		// pipelined: the batches written in bursts, as many unanswered as
		// the engine advertises (pipelinedSession), not one at a time.
		pipelined bool
	}{
		{"debug", "a log line per batch (Python's --attest-log-level=debug): ~3 MB of log against a 64 KiB pipe", "debug", cheapBatches(1), false, false},
		{"warn, schema_version 0", "the deprecation warning of every batch is logged once per session, then counted", "warn", cheapBatches(0), true, false},
		{"SDK workload", "the five assertions SDKs send, schema and soft included, each batch new, as `attest-engine --log-level=warn`", "warn", workloadBatches, false, false},
		{"debug, pipelined", "a log line per batch from the groups' helpers (rpc/group.go) at once, against a 64 KiB pipe", "debug", cheapBatches(1), false, true},
		{"warn, schema_version 0, pipelined", "the deprecation warning logged once and counted exactly while groups answer in parallel", "warn", cheapBatches(0), true, true},
		{"SDK workload, pipelined", "the five assertions SDKs send, each batch new, pipelined by an id-matching client as `attest-engine --log-level=warn`", "warn", workloadBatches, false, true},
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
			go func() {
				if tc.pipelined {
					done <- pipelinedSession(stdin, stdout, tc.batch, unreadBatches, &answered)
				} else {
					done <- unreadSession(stdin, stdout, tc.batch, &answered)
				}
			}()
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
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("the engine did not exit after shutdown")
			}
		})
	}
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
	case <-time.After(10 * time.Second):
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
