// fault_test.go: a provider that hangs, in the middle of a burst; and what the engine touches on disk.

package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestBinaryHangingProvider: judge calls to a provider that never answers
// time out (3002, retryable) while layers 1–4 batches around them are
// answered; a shutdown behind the burst drains everything and the engine
// exits 0. Every request is answered exactly once.
func TestBinaryHangingProvider(t *testing.T) {
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // once the body is read, the server notices a client that leaves
		<-r.Context().Done()        // never answers; gives up only when the engine does
	}))
	defer hang.Close()
	e, _ := startWithProvider(t, hang, "--log-level=error", "--eval-timeout=400ms")
	c := collect(t, e.stdout)
	const judges, fast = 8, 200
	for i := range fast {
		if i%(fast/judges) == 0 {
			e.send(t, batch56(fmt.Sprintf("judge%d", i), refundMsg, `{"assertion_id":"j","type":"llm_judge","spec":{"rubric":"helpfulness"}}`))
		}
		e.send(t, batch56(fmt.Sprintf("fast%d", i), refundMsg, `{"assertion_id":"c","type":"content","spec":{"target":"output.message","check":"contains","value":"refund"}}`))
	}
	e.send(t, `{"jsonrpc":"2.0","id":"bye","method":"shutdown","params":{}}`)
	start := time.Now()
	<-c.done
	if code := e.wait(t); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("drain took %v: hanging calls were not bounded by --eval-timeout", d)
	}
	if len(c.seen) != judges+fast+1 {
		t.Errorf("%d answers, want %d", len(c.seen), judges+fast+1)
	}
	for id, m := range c.seen {
		switch {
		case id == "bye":
		case id[0] == 'j':
			errObj, _ := m["error"].(map[string]any)
			if fmt.Sprint(errObj["code"]) != "3002" {
				t.Errorf("%s: want 3002 TIMEOUT from a hanging provider, got %v", id, m)
			}
		default:
			if m["result"] == nil {
				t.Errorf("%s: a layers 1–4 batch failed next to a hanging provider: %v", id, m)
			}
		}
	}
}

// TestBinaryWritesNothing: with no cache_dir and no --report, a whole session
// (and a one-shot eval) leaves no file behind: not in the working directory,
// not in HOME, not in TMPDIR.
func TestBinaryWritesNothing(t *testing.T) {
	bin := buildEngine(t)
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("TMPDIR", dir)
	session, err := os.ReadFile("testdata/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	e := startIn(t, dir, bin, "--log-level=debug")
	e.stdin.Write(session)
	e.stdin.Close()
	readAll(t, e)
	if code := e.wait(t); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	eval := exec.Command(bin, "eval", "--trace", filepath.Join(wd, "testdata/cli/traces.ndjson"),
		"--assertions", filepath.Join(wd, "testdata/cli/assertions.json"), "--format", "junit")
	eval.Dir = dir
	if out, err := eval.CombinedOutput(); err != nil && eval.ProcessState.ExitCode() != 1 { // 1: the fixture hard-fails
		t.Fatalf("eval: %v\n%s", err, out)
	}
	var left []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if path != dir {
			left = append(left, path)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("the engine wrote files: %v", left)
	}
}
