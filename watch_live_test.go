// watch_live_test.go: the watch command live: --listen (loopback OTLP/HTTP), --follow, no sockets otherwise, provider outages.

package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// liveWatch is a running watch process with its stdout lines on a channel.
type liveWatch struct {
	cmd    *exec.Cmd
	lines  chan string
	stderr *bufio.Reader
}

func startWatch(t *testing.T, bin string, args ...string) *liveWatch {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"watch"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errp, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &liveWatch{cmd: cmd, lines: make(chan string, 1024), stderr: bufio.NewReader(errp)}
	go func() {
		defer close(w.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return w
}

// logged waits for the stderr log line with this msg and returns it.
func (w *liveWatch) logged(t *testing.T, msg string) map[string]any {
	t.Helper()
	for {
		l, err := w.stderr.ReadString('\n')
		if err != nil {
			t.Fatalf("no %q log line: %v", msg, err)
		}
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == msg {
			go io.Copy(io.Discard, w.stderr)
			return m
		}
	}
}

func (w *liveWatch) next(t *testing.T, within time.Duration) map[string]any {
	t.Helper()
	select {
	case l, ok := <-w.lines:
		if !ok {
			t.Fatal("the command ended early")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("bad line %q", l)
		}
		return m
	case <-time.After(within):
		t.Fatalf("no result line within %v", within)
	}
	return nil
}

// TestWatchListen: OTLP/HTTP (JSON and binary protobuf) posted to the loopback listener is evaluated
// once its root span has ended and the grace period passed, while the
// command keeps running; SIGTERM ends it with status 0.
func TestWatchListen(t *testing.T) {
	bin := buildEngine(t)
	w := startWatch(t, bin, "--suite", watchSuite, "--listen", "127.0.0.1:0", "--grace", "100ms", "--max-line", "8192")
	addr := w.logged(t, "listening for OTLP/HTTP")["address"].(string)
	url := "http://" + addr + "/v1/traces"
	body, err := os.ReadFile("testdata/ingest/basic.input.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// The first request as OTLP/JSON, the second as binary protobuf (the
	// exporters' default), gzipped: one trace from both encodings.
	pb, err := os.ReadFile("testdata/ingest/basic.input.2.pb")
	if err != nil {
		t.Fatal(err)
	}
	var pbz bytes.Buffer
	zw := gzip.NewWriter(&pbz)
	zw.Write(pb)
	zw.Close()
	for i, l := range strings.Split(strings.TrimSpace(string(body)), "\n") {
		ctype, req, want := "application/json", []byte(l), "{}\n"
		if i == 1 {
			ctype, req, want = "application/x-protobuf", pbz.Bytes(), "" // an empty ExportTraceServiceResponse
		}
		post, _ := http.NewRequest("POST", url, bytes.NewReader(req))
		post.Header.Set("Content-Type", ctype)
		if i == 1 {
			post.Header.Set("Content-Encoding", "gzip")
		}
		resp, err := http.DefaultClient.Do(post)
		if err != nil {
			t.Fatal(err)
		}
		reply, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != ctype || string(reply) != want {
			t.Fatalf("POST %s: %d %s %q", ctype, resp.StatusCode, resp.Header.Get("Content-Type"), reply)
		}
	}
	for i := range 5 {
		r := w.next(t, 10*time.Second)
		if r["trace_id"] != "5b8efff798038103d269b633813fc60c" || r["ts"] == nil {
			t.Errorf("line %d: %v", i, r)
		}
	}
	var bomb bytes.Buffer // 9,000 bytes of JSON white space in a gzip body of a few dozen
	zw = gzip.NewWriter(&bomb)
	zw.Write([]byte(strings.Repeat(" ", 9000) + "{}"))
	zw.Close()
	var corrupt bytes.Buffer // a small gzip body whose CRC-32 trailer is wrong: broken, not big
	zw = gzip.NewWriter(&corrupt)
	zw.Write([]byte("{}"))
	zw.Close()
	corrupt.Bytes()[corrupt.Len()-8] ^= 0xff
	for _, tc := range []struct {
		ctype, encoding, body string
		want                  int
	}{
		{"text/plain", "", "{}", http.StatusUnsupportedMediaType},
		{"application/x-protobuf", "", "\x0a\x05", http.StatusBadRequest},
		{"application/json", "", `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"x"}]}]}]}`, http.StatusBadRequest},
		{"application/json", "", strings.Repeat(" ", 9000) + "{}", http.StatusRequestEntityTooLarge},
		{"application/json", "gzip", bomb.String(), http.StatusRequestEntityTooLarge},
		{"application/json", "gzip", corrupt.String(), http.StatusBadRequest},
		{"application/json", "br", "{}", http.StatusUnsupportedMediaType},
	} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", tc.ctype)
		if tc.encoding != "" {
			req.Header.Set("Content-Encoding", tc.encoding)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %q: HTTP %d, want %d", tc.ctype, tc.body, resp.StatusCode, tc.want)
		}
	}
	w.cmd.Process.Signal(syscall.SIGTERM)
	for range w.lines {
	}
	if err := w.cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v", err)
	}
}

// TestWatchFollowNoSocket: --follow reads lines appended to the file, and
// without --listen, a webhook or a provider the process holds no socket.
func TestWatchFollowNoSocket(t *testing.T) {
	bin := buildEngine(t)
	path := filepath.Join(t.TempDir(), "traces.jsonl")
	os.WriteFile(path, nil, 0o644)
	w := startWatch(t, bin, "--suite", watchSuite, "--in", path, "--follow")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Write(manyTraces(1))
	if r := w.next(t, 10*time.Second); r["trace_id"] != "trc_0" {
		t.Errorf("first line %v", r)
	}
	fds, _ := filepath.Glob("/proc/" + itoa(w.cmd.Process.Pid) + "/fd/*")
	if len(fds) == 0 {
		t.Skip("no /proc on this system")
	}
	for _, fd := range fds {
		if target, _ := os.Readlink(fd); strings.HasPrefix(target, "socket:") {
			t.Errorf("fd %s is a socket (%s)", fd, target)
		}
	}
	w.cmd.Process.Signal(syscall.SIGTERM)
	for range w.lines {
	}
	if err := w.cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestWatchProviderOutage: with the judge's provider down, the judge's
// line carries PROVIDER_ERROR (2001, retryable) and every other line of the
// trace is written.
func TestWatchProviderOutage(t *testing.T) {
	bin := buildEngine(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"message":"overloaded"}}`)
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	suite := filepath.Join(t.TempDir(), "suite.json")
	os.WriteFile(suite, []byte(`{"assertions":[
		{"name":"judge","type":"llm_judge","spec":{"rubric":"helpfulness"}},
		{"name":"fast-enough","type":"constraint","spec":{"field":"metadata.latency_ms","operator":"lte","value":5000}}]}`), 0o644)
	out, code := runWatch(t, bin, manyTraces(2), nil, "--suite", suite, "--deterministic")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	ls := lines(out)
	if len(ls) != 4 {
		t.Fatalf("%d lines, want 4:\n%s", len(ls), out)
	}
	for i, l := range ls {
		var r struct {
			Assertion, Status string
			Error             *struct {
				Code      int
				Retryable bool
			}
		}
		json.Unmarshal([]byte(l), &r)
		switch {
		case i%2 == 0 && (r.Status != "error" || r.Error == nil || r.Error.Code != 2001 || !r.Error.Retryable):
			t.Errorf("judge line: %s", l)
		case i%2 == 1 && r.Status != "pass":
			t.Errorf("constraint line: %s", l)
		}
	}
}
