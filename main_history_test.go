package main

// main_history_test.go: --state-dir and attest-engine merge, over the built
// binary and pipes as the SDKs drive it.

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// historyBatch is a batch with the assertion "refund" and one with a
// random id, as SDKs make them, over a new trace; the history keys both by
// their assertion keys.
func historyBatch(id int, pass bool, salt string) string {
	msg := "no luck"
	if pass {
		msg = "refund done"
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"evaluate_batch","params":{"trace":{"schema_version":1,"trace_id":"trc_%s_%d","output":{"message":%q}},"assertions":[`+
		`{"assertion_id":"refund","type":"content","spec":{"target":"output.message","check":"contains","value":"refund"}},`+
		`{"assertion_id":"a_%s_%d","type":"content","spec":{"target":"output.message","check":"not_contains","value":"error"}}]}}`, id, salt, id, msg, salt, id)
}

const queryRefund = `{"jsonrpc":"2.0","id":"q","method":"query_drift","params":{"assertion_id":"refund","window_size":50}}`

func driftReport(t *testing.T, ans map[string]any) map[string]any {
	t.Helper()
	res, _ := ans["result"].(map[string]any)
	rep, _ := res["report"].(map[string]any)
	if rep == nil {
		t.Fatalf("query_drift answer %v", ans)
	}
	return rep
}

// TestBinaryStateDir: with --state-dir and a client that did not opt in to
// notifications, every request gets exactly one line, its answer, though
// the history detects drift; the history accumulates across sessions (one
// window per session: a CI run) and survives a restart; shard dirs merge
// with attest-engine merge.
func TestBinaryStateDir(t *testing.T) {
	bin := buildEngine(t)
	root := t.TempDir()
	var dirs []string
	var key string
	for shard, salt := range []string{"x", "y"} {
		dir := filepath.Join(root, salt)
		dirs = append(dirs, dir)
		// Two runs: the first passes (the baseline: 1000 results), in the
		// second half fail.
		for run, n := range []int{1000, 300} {
			e := start(t, bin, "--log-level=warn", "--state-dir", dir)
			e.send(t, initLine)
			e.answer(t)
			for i := 1; i <= n; i++ {
				e.send(t, historyBatch(i, run == 0 || i%2 == 0, fmt.Sprint(salt, run)))
				ans := e.answer(t)
				if fmt.Sprint(ans["id"]) != fmt.Sprint(i) {
					t.Fatalf("shard %d: the answer to batch %d is %v: a line nobody asked for", shard, i, ans)
				}
			}
			e.send(t, queryRefund)
			rep := driftReport(t, e.answer(t))
			key, _ = rep["assertion_key"].(string)
			if run == 1 && (rep["status"] != "drift_detected" || fmt.Sprint(rep["total"]) != "1300" || fmt.Sprint(rep["count"]) != "300") {
				t.Errorf("shard %d: report %v, want drift_detected over 1300 results, 300 in the current run", shard, rep)
			}
			e.send(t, `{"jsonrpc":"2.0","id":"s","method":"shutdown","params":{}}`)
			e.answer(t)
			e.stdin.Close()
			if code := e.wait(t); code != 0 {
				t.Fatalf("exit %d: %s", code, e.stderr)
			}
		}
	}
	// The history is there after a restart, by its key (a new session knows
	// no assertion_id until it evaluates one).
	queryKey := fmt.Sprintf(`{"jsonrpc":"2.0","id":"q","method":"query_drift","params":{"assertion_id":%q,"window_size":50}}`, key)
	e := start(t, bin, "--log-level=warn", "--state-dir", dirs[0])
	e.send(t, initLine, queryKey)
	e.answer(t)
	if rep := driftReport(t, e.answer(t)); fmt.Sprint(rep["total"]) != "1300" || rep["status"] != "drift_detected" {
		t.Errorf("after a restart: %v", rep)
	}
	// a second engine on the same dir, named by the flag, is refused
	out, err := exec.Command(bin, "--state-dir", dirs[0]).CombinedOutput()
	if code := exitCode(err); code != 2 || !strings.Contains(string(out), "in use by another process") {
		t.Errorf("second engine on a state dir: exit %d, %q", code, out)
	}
	e.stdin.Close()
	e.wait(t)

	merged := filepath.Join(root, "merged")
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, append([]string{"merge", merged}, dirs...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stdout.String() != "merged 2 state dirs into "+merged+"\n" {
		t.Fatalf("merge: %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
	e = start(t, bin, "--log-level=warn", "--state-dir", merged)
	e.send(t, initLine, queryKey)
	e.answer(t)
	if rep := driftReport(t, e.answer(t)); fmt.Sprint(rep["total"]) != "2600" {
		t.Errorf("merged: %v, want 2600 results", rep)
	}
	e.stdin.Close()
	e.wait(t)
	if code := exitCode(exec.Command(bin, "merge", merged).Run()); code != 2 {
		t.Errorf("merge with no source: exit %d, want 2", code)
	}
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestBinaryStateDirSameTrace: every evaluate_batch is a result of the
// history, also of a trace id evaluated before (an SDK's test suite run
// again, its trace ids fixed): the history counts each evaluation; only a
// retried request_id, answered from the record, is not counted again.
func TestBinaryStateDirSameTrace(t *testing.T) {
	bin := buildEngine(t)
	dir := filepath.Join(t.TempDir(), "state")
	for run := range 2 {
		e := start(t, bin, "--log-level=warn", "--state-dir", dir)
		e.send(t, initLine)
		e.answer(t)
		for i := 1; i <= 3; i++ {
			e.send(t, historyBatch(i, true, "same"))
			e.answer(t)
		}
		e.send(t, queryRefund)
		if rep := driftReport(t, e.answer(t)); fmt.Sprint(rep["total"]) != fmt.Sprint(3*(run+1)) {
			t.Errorf("run %d: the history holds %v results of refund; want %d (3 evaluations a run)", run, rep["total"], 3*(run+1))
		}
		e.stdin.Close()
		e.wait(t)
	}
	// The history keys refund by its spec (type and canonical spec, package
	// resultkey), labelled by them: an SDK's assertion has no suite name.
	var c [4]uint64
	for label, n := range totals(t, dir) {
		if strings.Contains(label, `"value":"refund"`) {
			c = n
		}
	}
	if c[0]+c[1]+c[2]+c[3] != 6 {
		t.Errorf("a reader of the dir counts %v results of refund (passes, fails, errors, skipped); want 6", c)
	}
}
