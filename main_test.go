// main_test.go: the real binary as a subprocess over pipes, as an SDK runs it.

package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"attest-engine/eval"
	"attest-engine/rpc"
)

var update = flag.Bool("update", false, "rewrite golden files")

// built is the engine binary, built once per run of the test binary and
// shared by every test and benchmark that starts the engine.
var built struct {
	once      sync.Once
	dir, path string
	err       error
}

// buildEngine returns the engine binary, building it on first use.
func buildEngine(tb testing.TB) string {
	tb.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "attest-engine-test")
		if err != nil {
			built.err = err
			return
		}
		built.dir, built.path = dir, filepath.Join(dir, "attest-engine")
		if out, err := goBuild(built.path).CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		tb.Fatal(built.err)
	}
	return built.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// goBuild is the README's build command: a static binary (CGO_ENABLED=0).
func goBuild(bin string) *exec.Cmd {
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	return cmd
}

// engine is a running engine subprocess.
type engine struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *strings.Builder
}

func start(t *testing.T, bin string, args ...string) *engine {
	t.Helper()
	return startIn(t, "", bin, args...)
}

// startIn starts the engine with dir as its working directory ("" for ours).
func startIn(t *testing.T, dir, bin string, args ...string) *engine {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	e := &engine{cmd: cmd, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 1<<20), stderr: &strings.Builder{}}
	cmd.Stderr = e.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return e
}

func (e *engine) send(t *testing.T, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(e.stdin, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// answer reads one response line and decodes it.
func (e *engine) answer(t *testing.T) map[string]any {
	t.Helper()
	line, err := e.stdout.ReadString('\n')
	if err != nil {
		t.Fatalf("reading answer: %v (stderr: %s)", err, e.stderr)
	}
	return decodeAnswer(t, line)
}

// decodeAnswer decodes one answer line keeping numbers exact (ids such as
// 1e400 are echoed as sent and do not fit a float64).
func decodeAnswer(t *testing.T, line string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("answer is not JSON: %q", line)
	}
	return m
}

func (e *engine) wait(t *testing.T) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- e.cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(10 * time.Second):
		t.Fatal("engine did not exit")
		return -1
	}
}

const initLine = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"sdk_name":"attest-go","sdk_version":"0.1.0","protocol_version":1,"required_capabilities":[],"preferred_encoding":"json"}}`

func evalLine(id string, steps int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%q,"method":"evaluate_batch","params":{"trace":{"schema_version":1,"trace_id":"trc_%s","steps":[`, id, id)
	for i := range steps {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"tool_call","name":"tool_%d","args":{"q":"%d"},"result":{"text":"%s"},"metadata":{"duration_ms":%d}}`, i%7, i, strings.Repeat("x", 900), i)
	}
	b.WriteString(`],"output":{"message":"done"}},"assertions":[`)
	// Heavy traces get heavy batches: each assertion checks every step.
	for i := range steps / 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"assertion_id":"s%d","type":"schema","spec":{"target":"steps[?type=='tool_call'].result","schema":{"type":"object","required":["text"],"properties":{"text":{"type":"string","pattern":"^x+$","minLength":%d}}}}}`, i, i)
	}
	b.WriteString(`]}}`)
	return b.String()
}

// readAll reads answers until EOF and indexes them by id; duplicates fail.
func readAll(t *testing.T, e *engine) (order []string, byID map[string]map[string]any) {
	t.Helper()
	byID = map[string]map[string]any{}
	for {
		line, err := e.stdout.ReadString('\n')
		if err == io.EOF {
			return order, byID
		}
		if err != nil {
			t.Fatal(err)
		}
		m := decodeAnswer(t, line)
		id := fmt.Sprint(m["id"])
		if _, dup := byID[id]; dup {
			t.Fatalf("id %s answered twice", id)
		}
		byID[id] = m
		order = append(order, id)
	}
}

func TestBinaryPipelinedOutOfOrderAndDrain(t *testing.T) {
	bin := buildEngine(t)
	e := start(t, bin, "--log-level=warn")
	e.send(t, initLine)
	if got := e.answer(t); got["result"] == nil {
		t.Fatalf("initialize: %v", got)
	}
	// One heavy trace (10,000 steps, ~10 MB), then light ones: the light ones
	// must not wait for it (spec §1.5: answered as each completes).
	const light = 40
	e.send(t, evalLine("heavy", 10000))
	for i := range light {
		e.send(t, evalLine(fmt.Sprintf("light-%d", i), 3))
	}
	// A shutdown right behind them must drain everything first (spec §2.3).
	e.send(t, `{"jsonrpc":"2.0","id":"bye","method":"shutdown","params":{}}`)
	order, byID := readAll(t, e)
	if code := e.wait(t); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if len(order) != light+2 {
		t.Fatalf("got %d answers, want %d: %v", len(order), light+2, order)
	}
	for id, m := range byID {
		if id != "bye" && m["result"] == nil {
			t.Errorf("answer %s: %v", id, m)
		}
	}
	if order[len(order)-1] != "bye" {
		t.Errorf("shutdown answered before the drain finished: %v", order)
	}
	if order[0] == "heavy" {
		t.Errorf("light requests waited for the heavy one: order %v", order[:5])
	}
	res := byID["bye"]["result"].(map[string]any)
	if res["sessions_completed"] != json.Number("1") {
		t.Errorf("shutdown result %v", res)
	}
}

func TestBinaryEndOfInputAndSIGTERMDrain(t *testing.T) {
	bin := buildEngine(t)
	for _, how := range []string{"eof", "sigterm"} {
		t.Run(how, func(t *testing.T) {
			e := start(t, bin, "--log-level=warn")
			e.send(t, initLine)
			e.answer(t)
			const n = 20
			for i := range n {
				e.send(t, evalLine(fmt.Sprintf("r%d", i), 500))
			}
			if how == "eof" {
				e.stdin.Close()
			} else {
				e.answer(t) // at least one request is in hand; then terminate
				if err := e.cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			}
			order, _ := readAll(t, e)
			if code := e.wait(t); code != 0 {
				t.Errorf("exit code %d, want 0", code)
			}
			if how == "eof" && len(order) != n {
				t.Errorf("got %d answers after end of input, want %d", len(order), n)
			}
		})
	}
}

func TestBinaryFlags(t *testing.T) {
	bin := buildEngine(t)
	dir := t.TempDir()
	badConfig := filepath.Join(dir, "bad.json")
	os.WriteFile(badConfig, []byte(`{"schema_dirs":{},"Strict_Step_Types":true}`), 0o644)
	goodConfig := filepath.Join(dir, "good.json")
	os.WriteFile(goodConfig, []byte(`{"strict_step_types":true}`), 0o644)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"version", []string{"--version"}, 0, ""},
		{"bad log level", []string{"--log-level=loud"}, 2, `--log-level "loud"`},
		{"bad timeout", []string{"--eval-timeout=soon"}, 2, `--eval-timeout "soon"`},
		{"unknown config key named", []string{"--config", badConfig}, 2, `unknown key "Strict_Step_Types"`},
		{"missing config file", []string{"--config", filepath.Join(dir, "nope.json")}, 2, "no such file"},
		{"good config, empty input", []string{"--config", goodConfig, "--eval-timeout=1500"}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Stdin = strings.NewReader("")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d (stderr %s)", code, tc.wantCode, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.wantErr) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), tc.wantErr)
			}
		})
	}
}

// TestEvalLimitsMatchServer: eval's --jobs is bounded as the requests in
// flight; package eval keeps its own copy (it does not import rpc).
func TestEvalLimitsMatchServer(t *testing.T) {
	if eval.MaxJobs != rpc.MaxInFlight {
		t.Errorf("eval --jobs at most %d; the server's %d in flight", eval.MaxJobs, rpc.MaxInFlight)
	}
}
