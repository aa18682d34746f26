// sdk_history_test.go: history and diff across SDK runs, with the built binary driven as the Python SDK
// drives it (../shared/sdk-compat.md): started with --log-level only, history turned on by
// ATTEST_STATE_DIR, new random assertion ids ("assert_" + 8 hex digits) every run, one request at a time,
// stderr never read.

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
	"testing"
	"time"

	"attest-engine/history"
	"attest-engine/resultkey"
)

// suiteCases is how many cases the suite evaluates per run: a test parametrized over order numbers, each
// building its trace from one fixture. 120 pairs let diff call each of the 8 keys unchanged (a 10-point drop
// would be seen with power 0.8 at Holm's first step, α/8; 80 pairs see a 14-point one) and a broken fixture
// regressed.
const suiteCases = 120

// suiteSpecs are the suite's assertions, one batch per case as the SDK's expect(...) chain sends them.
var suiteSpecs = []struct{ typ, spec string }{
	{"content", `{"target":"output.message","check":"contains","value":"refund","case_sensitive":false,"soft":false}`},
	{"trace", `{"check":"contains_in_order","tools":["lookup_order","process_refund"],"soft":false}`},
	{"constraint", `{"field":"metadata.cost_usd","operator":"lte","value":0.01,"soft":false}`},
	{"constraint", `{"field":"metadata.total_tokens","operator":"lte","value":2000,"soft":false}`},
	{"schema", `{"target":"output.structured","schema":{"type":"object","required":["refund_id"]}}`},
	{"trace", `{"check":"loop_detection","tool":"lookup_order","max_repetitions":1,"soft":false}`},
	{"content", `{"target":"output.message","check":"not_contains","value":"error","case_sensitive":false,"soft":false}`},
	{"trace", `{"check":"forbidden_tools","tools":["delete_account"],"soft":false}`},
}

// suiteBatch is case c's evaluate_batch: the fixture's steps with refundTool as the second tool's name.
func suiteBatch(id, c int, refundTool string) (line string, ids []string) {
	var as []string
	for _, a := range suiteSpecs {
		aid := fmt.Sprintf("assert_%08x", rand.Uint32())
		ids = append(ids, aid)
		as = append(as, fmt.Sprintf(`{"assertion_id":%q,"type":%q,"spec":%s}`, aid, a.typ, a.spec))
	}
	line = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"evaluate_batch","params":{"trace":{"schema_version":1,"trace_id":"trc_%016x","agent_id":"customer-service-agent",`+
		`"input":{"user_message":"I want a refund for order ORD-%d"},`+
		`"steps":[{"type":"tool_call","name":"lookup_order","args":{"order_id":"ORD-%d"},"result":{"status":"delivered"}},`+
		`{"type":"tool_call","name":%q,"args":{"order_id":"ORD-%d"},"result":{"refund_id":"RFD-%d"}}],`+
		`"output":{"message":"Your refund for ORD-%d has been processed.","structured":{"refund_id":"RFD-%d"}},`+
		`"metadata":{"cost_usd":0.0067,"total_tokens":1350,"latency_ms":900}},"assertions":[%s]}}`,
		id, rand.Uint64(), c, c, refundTool, c, c, c, c, strings.Join(as, ","))
	return line, ids
}

// sdkEnv is the environment an SDK user's shell passes on, with vars added.
func sdkEnv(vars ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ATTEST_") {
			env = append(env, kv)
		}
	}
	return append(env, vars...)
}

// startSDK starts the engine as the SDK does, with env, and extra flags (a CI run's --report). Its stderr
// is a pipe nobody reads while it runs; stderr() reads it once the engine has exited.
func startSDK(t *testing.T, bin string, env []string, extra ...string) (e *engine, stderr func() string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--log-level=warn"}, extra...)...)
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); r.Close() })
	e = &engine{cmd: cmd, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 1<<20), stderr: &strings.Builder{}}
	var read *string
	return e, func() string { // once the engine has exited
		if read == nil {
			b, _ := io.ReadAll(r)
			read = new(string(b))
		}
		return *read
	}
}

// call sends one request and reads exactly one line, as the SDK fixtures do, within a watchdog.
func (e *engine) call(t *testing.T, line string) map[string]any {
	t.Helper()
	e.send(t, line)
	got := make(chan map[string]any, 1)
	go func() {
		l, err := e.stdout.ReadString('\n')
		if err != nil {
			got <- nil
			return
		}
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) != nil {
			m = map[string]any{"unreadable": l}
		}
		got <- m
	}()
	select {
	case m := <-got:
		if m == nil {
			t.Fatalf("no answer to %.80s", line)
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatalf("no answer in 10 s to %.80s", line)
	}
	return nil
}

const sdkInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"sdk_name":"attest-python","sdk_version":"0.4.0","protocol_version":1,"required_capabilities":["layers_1_4"],"preferred_encoding":"json"}}`

// runSuite is one CI run of the suite: it checks every answer and returns the run's first assertion's
// report from query_drift, asked by this run's random id.
func runSuite(t *testing.T, bin string, env []string, report, refundTool string) map[string]any {
	t.Helper()
	e, stderr := startSDK(t, bin, env, "--report", report)
	e.call(t, sdkInit)
	var first string
	for c := 1; c <= suiteCases; c++ {
		line, ids := suiteBatch(c, c, refundTool)
		ans := e.call(t, line)
		rs, _ := ans["result"].(map[string]any)["results"].([]any)
		if len(rs) != len(ids) {
			t.Fatalf("case %d: answer %v", c, ans)
		}
		first = ids[0]
	}
	rep := e.call(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":"q","method":"query_drift","params":{"assertion_id":%q}}`, first))
	e.call(t, `{"jsonrpc":"2.0","id":"s","method":"shutdown","params":{}}`)
	e.stdin.Close()
	if code := e.wait(t); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr())
	}
	res, _ := rep["result"].(map[string]any)
	r, _ := res["report"].(map[string]any)
	if r == nil {
		t.Fatalf("query_drift: %v", rep)
	}
	return r
}

// diffRuns runs attest-engine diff --format json and returns its exit status and report.
func diffRuns(t *testing.T, bin, base, head string) (int, map[string]any) {
	t.Helper()
	out, err := exec.Command(bin, "diff", "--base", base, "--head", head, "--format", "json").Output()
	code := exitCode(err)
	var rep map[string]any
	if jerr := json.Unmarshal(out, &rep); jerr != nil {
		t.Fatalf("diff exit %d, output %q: %v", code, out, jerr)
	}
	return code, rep
}

// TestSDKRunsAccumulate: three runs of one suite, each with new random assertion ids, into one
// ATTEST_STATE_DIR give one history key per assertion (not three), one window per run; query_drift by
// a run's own random id sees every run; diff of two clean runs calls every key unchanged, and of a run
// whose fixture renamed one tool calls exactly the key that checks it regressed.
func TestSDKRunsAccumulate(t *testing.T) {
	bin := buildEngine(t)
	root := t.TempDir()
	dir := filepath.Join(root, "state")
	env := sdkEnv("ATTEST_STATE_DIR=" + dir)
	var reports []string
	for run, tool := range []string{"process_refund", "process_refund", "issue_refund"} {
		report := filepath.Join(root, fmt.Sprintf("run%d.json", run+1))
		reports = append(reports, report)
		rep := runSuite(t, bin, env, report, tool)
		if want := fmt.Sprint((run + 1) * suiteCases); fmt.Sprint(rep["total"]) != want {
			t.Errorf("run %d: query_drift by this run's id counts %v results, want %s (every run's): %v", run+1, rep["total"], want, rep)
		}
		if k, _ := rep["assertion_key"].(string); !strings.HasPrefix(k, "ak_") {
			t.Errorf("run %d: query_drift names no assertion key: %v", run+1, rep)
		}
	}

	s, err := history.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	keys := s.Keys()
	if len(keys) != len(suiteSpecs) {
		t.Errorf("the history holds %d keys after 3 runs of %d assertions, want %d", len(keys), len(suiteSpecs), len(suiteSpecs))
	}
	for _, k := range keys {
		ser, _ := s.Series(k)
		if !ser.WindowRuns || len(ser.Windows) != 3 || ser.Label == "" {
			t.Errorf("key %s: %d windows (per run: %v), label %q; want 3 runs, labelled", k, len(ser.Windows), ser.WindowRuns, ser.Label)
		}
	}
	s.Close()

	code, clean := diffRuns(t, bin, reports[0], reports[1])
	if code != 0 || clean["unchanged"] != float64(len(suiteSpecs)) || clean["pairs"] != float64(suiteCases*len(suiteSpecs)) ||
		len(clean["only_in_base"].([]any))+len(clean["only_in_head"].([]any)) != 0 {
		t.Errorf("diff of two clean runs: exit %d, %v unchanged of %d keys, %v pairs, unpaired %v / %v", code, clean["unchanged"], len(suiteSpecs),
			clean["pairs"], clean["only_in_base"], clean["only_in_head"])
	}
	code, planted := diffRuns(t, bin, reports[0], reports[2])
	ordered, _ := resultkey.Assertion("trace", decodeJSON(t, suiteSpecs[1].spec), "", "")
	var regressed []string
	for _, k := range planted["keys"].([]any) {
		k := k.(map[string]any)
		if k["verdict"] == "regressed" {
			regressed = append(regressed, k["assertion_key"].(string))
			// named by what it checks, not by a run's random id
			if l, _ := k["label"].(string); !strings.HasPrefix(l, `trace {"check":"contains_in_order"`) {
				t.Errorf("the regressed key is labelled %q", l)
			}
		}
	}
	if code != 1 || len(regressed) != 1 || regressed[0] != ordered || planted["unchanged"] != float64(len(suiteSpecs)-1) {
		t.Errorf("diff with process_refund renamed: exit %d, regressed %v, want exactly [%s] (contains_in_order), %v unchanged", code, regressed, ordered, planted["unchanged"])
	}
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSDKSecondSession: a second session on a state dir another engine holds (pytest-xdist workers, two
// CI jobs on one runner) is not failed: it gets one warning on the stderr nobody reads and runs without
// history, while the first keeps it. The config key state_dir does what ATTEST_STATE_DIR does, and wins
// over it.
func TestSDKSecondSession(t *testing.T) {
	bin := buildEngine(t)
	root := t.TempDir()
	dir := filepath.Join(root, "state")
	cfg := filepath.Join(root, "config.json")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"state_dir":%q}`, dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		env         []string
		firstFlags  []string
		secondFlags []string
	}{
		{"ATTEST_STATE_DIR", sdkEnv("ATTEST_STATE_DIR=" + dir), nil, nil},
		{"config state_dir over the variable", sdkEnv("ATTEST_STATE_DIR=" + filepath.Join(root, "other")), []string{"--config", cfg}, []string{"--config", cfg}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			first, firstErr := startSDK(t, bin, tc.env, tc.firstFlags...)
			first.call(t, sdkInit)
			second, secondErr := startSDK(t, bin, tc.env, tc.secondFlags...)
			second.call(t, sdkInit)
			for i, e := range []*engine{first, second} {
				line, ids := suiteBatch(1, 1, "process_refund")
				ans := e.call(t, line)
				rs, _ := ans["result"].(map[string]any)["results"].([]any)
				if len(rs) != len(ids) {
					t.Fatalf("session %d: answer %v", i+1, ans)
				}
				q := e.call(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":"q","method":"query_drift","params":{"assertion_id":%q}}`, ids[0]))
				_, hasHistory := q["result"]
				if hasHistory != (i == 0) {
					t.Errorf("session %d: query_drift %v; want history in the first session only", i+1, q)
				}
			}
			for _, e := range []*engine{second, first} {
				e.call(t, `{"jsonrpc":"2.0","id":"s","method":"shutdown","params":{}}`)
				e.stdin.Close()
				if code := e.wait(t); code != 0 {
					t.Errorf("exit %d", code)
				}
			}
			if got := strings.Count(secondErr(), "keeps no result history"); got != 1 || !strings.Contains(secondErr(), "another engine is using it") {
				t.Errorf("second session's stderr holds %d warnings: %q; want one saying another engine uses the dir", got, secondErr())
			}
			if got := firstErr(); strings.Contains(got, "keeps no result history") {
				t.Errorf("first session warned: %q", got)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(root, "other")); !os.IsNotExist(err) {
		t.Errorf("ATTEST_STATE_DIR was used though the config named state_dir: %v", err)
	}
}
