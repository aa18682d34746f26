// watch_history_test.go: watch --state-dir through the real binary: the history it keeps, shards merged, alerts to a webhook.

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"attest-engine/history"

	"github.com/google/go-cmp/cmp"
)

const (
	driftSuite  = "testdata/watch/drift_suite.json"
	driftTraces = "testdata/watch/drift.jsonl"
	driftAlerts = "testdata/watch/alerts.golden.ndjson"
)

// driftInput is testdata/watch/drift.jsonl: 1,400 traces, every 20th of
// the first 1,000 failing "mentions-refund" (the baseline, 95%), then
// every third (67%): a drift the pass-rate CUSUM must see.
func driftInput() []byte {
	var b bytes.Buffer
	for i := 1; i <= 1400; i++ {
		fail := i%20 == 0
		if i > 1000 {
			fail = i%3 == 0
		}
		msg := "Your refund is on its way."
		if fail {
			msg = "Sorry."
		}
		fmt.Fprintf(&b, `{"schema_version":1,"trace_id":"drift-%04d","output":{"message":%q}}`+"\n", i, msg)
	}
	return b.Bytes()
}

// TestWatchDriftInput: the committed input is driftInput's (rewritten with -update).
func TestWatchDriftInput(t *testing.T) {
	if *update {
		if err := os.WriteFile(driftTraces, driftInput(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(driftTraces)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, driftInput()) {
		t.Errorf("%s is not driftInput's output: run go test -run TestWatchDriftInput -update", driftTraces)
	}
}

// queryDrift starts a server on dir and returns its query_drift report of
// each key, as an SDK would ask.
func queryDrift(t *testing.T, bin, dir string, keys ...string) map[string]map[string]any {
	t.Helper()
	e := start(t, bin, "--log-level=warn", "--state-dir", dir)
	e.send(t, initLine)
	e.answer(t)
	reps := map[string]map[string]any{}
	for i, k := range keys {
		e.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"query_drift","params":{"assertion_id":%q,"window_size":50}}`, i+1, k))
		reps[k] = driftReport(t, e.answer(t))
	}
	e.stdin.Close()
	if code := e.wait(t); code != 0 {
		t.Fatalf("server on %s: exit %d", dir, code)
	}
	return reps
}

// TestWatchStateDir: watch --state-dir records every result line: the
// history's drift report counts them and detects the drop, the alerts file
// is pinned, and the result lines are those of a run without history.
func TestWatchStateDir(t *testing.T) {
	bin := buildEngine(t)
	plain, code := runWatch(t, bin, nil, nil, "--suite", driftSuite, "--in", driftTraces, "--deterministic")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, fsync := range []string{"never", "always"} {
		dir := filepath.Join(t.TempDir(), "state")
		out, code := runWatch(t, bin, nil, nil, "--suite", driftSuite, "--in", driftTraces, "--deterministic", "--state-dir", dir, "--fsync", fsync)
		if code != 0 {
			t.Fatalf("--fsync %s: exit %d", fsync, code)
		}
		if out != plain {
			t.Errorf("--fsync %s: the result lines differ with history on (-off +on):\n%s", fsync, cmp.Diff(plain, out))
		}
		var records int
		if err := history.Scan(dir, func(history.Result) error { records++; return nil }); err != nil || records != 2800 {
			t.Errorf("--fsync %s: the log holds %d records (%v), want 2800", fsync, records, err)
		}
		alerts, err := os.ReadFile(filepath.Join(dir, "alerts.ndjson"))
		if err != nil {
			t.Fatal(err)
		}
		if *update && fsync == "never" {
			if err := os.WriteFile(driftAlerts, alerts, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(driftAlerts)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(alerts)); diff != "" {
			t.Errorf("--fsync %s: alerts.ndjson (-want +got):\n%s", fsync, diff)
		}
		if !strings.Contains(string(alerts), `"label":"mentions-refund","kind":"pass_rate"`) || strings.Contains(string(alerts), `"has-output"`) {
			t.Errorf("--fsync %s: want pass-rate alerts for mentions-refund only, got %s", fsync, alerts)
		}
		reps := queryDrift(t, bin, dir, "mentions-refund", "has-output")
		if r := reps["mentions-refund"]; r["status"] != "drift_detected" || fmt.Sprint(r["total"]) != "1400" {
			t.Errorf("--fsync %s: mentions-refund %v, want drift_detected over 1400 results", fsync, r)
		}
		if r := reps["has-output"]; r["status"] != "ok" || fmt.Sprint(r["total"]) != "1400" {
			t.Errorf("--fsync %s: has-output %v, want ok over 1400 results", fsync, r)
		}
	}
}

// TestWatchStateDirShards: two shards with their own state dirs, merged,
// report the drift of one process over the whole input.
func TestWatchStateDirShards(t *testing.T) {
	bin := buildEngine(t)
	root := t.TempDir()
	whole := filepath.Join(root, "whole")
	if _, code := runWatch(t, bin, nil, nil, "--suite", driftSuite, "--in", driftTraces, "--deterministic", "--state-dir", whole); code != 0 {
		t.Fatalf("whole: exit %d", code)
	}
	var shards []string
	lines := 0
	for i := range 2 {
		dir := filepath.Join(root, "shard"+strconv.Itoa(i))
		shards = append(shards, dir)
		out, code := runWatch(t, bin, nil, nil, "--suite", driftSuite, "--in", driftTraces, "--deterministic", "--state-dir", dir, "--shard", strconv.Itoa(i)+"/2")
		if code != 0 {
			t.Fatalf("shard %d: exit %d", i, code)
		}
		if n := strings.Count(out, "\n"); n == 0 || n == 2800 {
			t.Errorf("shard %d wrote %d lines: not a part", i, n)
		} else {
			lines += n
		}
	}
	if lines != 2800 {
		t.Errorf("the shards wrote %d lines, want 2800", lines)
	}
	merged := filepath.Join(root, "merged")
	if out, err := exec.Command(bin, append([]string{"merge", merged}, shards...)...).CombinedOutput(); err != nil {
		t.Fatalf("merge: %v: %s", err, out)
	}
	keys := []string{"mentions-refund", "has-output"}
	one, two := queryDrift(t, bin, whole, keys...), queryDrift(t, bin, merged, keys...)
	if diff := cmp.Diff(one, two); diff != "" {
		t.Errorf("drift of merged shards differs from one process's (-one +merged):\n%s", diff)
	}
	// and the same summaries, window by window
	a, err := history.OpenReadOnly(whole)
	if err != nil {
		t.Fatal(err)
	}
	b, err := history.OpenReadOnly(merged)
	if err != nil {
		t.Fatal(err)
	}
	labels := func(s *history.Store) (out []string) {
		for _, k := range s.Keys() {
			ser, _ := s.Series(k)
			out = append(out, ser.Label)
		}
		slices.Sort(out)
		return out
	}
	if want := []string{"has-output", "mentions-refund"}; !cmp.Equal(labels(a), want) || !cmp.Equal(labels(b), want) {
		t.Errorf("keys %v, merged %v", labels(a), labels(b))
	}
	for _, name := range keys {
		k, _ := a.Lookup(name)
		sa, _ := a.Series(k)
		sb, ok := b.Series(k)
		if !ok || len(sa.Windows) != 70 {
			t.Fatalf("%s: %d windows, merged has it: %v", k, len(sa.Windows), ok)
		}
		if diff := cmp.Diff(sa, sb); diff != "" {
			t.Errorf("%s: series of merged shards (-one +merged):\n%s", k, diff)
		}
	}
	if one["mentions-refund"]["status"] != "drift_detected" {
		t.Errorf("no drift detected: %v", one["mentions-refund"])
	}
	// a shard alone saw its part only
	if part := queryDrift(t, bin, shards[0], "has-output")["has-output"]; fmt.Sprint(part["total"]) == "1400" {
		t.Errorf("shard 0 counted every trace: %v", part)
	}
}

// TestWatchAlertWebhook: --alert-webhook gets every alert of the alerts
// file, signed with $ATTEST_WEBHOOK_SECRET; the secret is in no output.
func TestWatchAlertWebhook(t *testing.T) {
	bin := buildEngine(t)
	const secret = "s3cret-for-the-test"
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ts, _ := strconv.ParseInt(r.Header.Get(history.HeaderTimestamp), 10, 64)
		if r.Header.Get(history.HeaderSignature) != history.Sign([]byte(secret), ts, body) {
			t.Errorf("bad signature %q on %s", r.Header.Get(history.HeaderSignature), body)
		}
		mu.Lock()
		got = append(got, string(body))
		mu.Unlock()
	}))
	defer srv.Close()
	dir := t.TempDir()
	cmd := exec.Command(bin, "watch", "--suite", driftSuite, "--in", driftTraces, "--deterministic", "--state-dir", dir, "--alert-webhook", srv.URL+"/alerts")
	cmd.Env = append(os.Environ(), "ATTEST_WEBHOOK_SECRET="+secret)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if strings.Contains(stdout.String()+stderr.String(), secret) {
		t.Error("the webhook secret appears in the output")
	}
	file, err := os.ReadFile(filepath.Join(dir, "alerts.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range strings.Split(strings.TrimSuffix(string(file), "\n"), "\n") {
		var v any // the webhook's body is the alert's JSON, as the file's line
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatal(err)
		}
		want = append(want, l)
	}
	mu.Lock()
	defer mu.Unlock()
	for i := range got {
		got[i] = strings.TrimSuffix(got[i], "\n")
	}
	if len(want) == 0 || !cmp.Equal(want, got) {
		t.Errorf("webhook got %d alerts, the file holds %d:\n%s", len(got), len(want), cmp.Diff(want, got))
	}
}

// TestWatchStateDirWallClock: without --deterministic each record keeps
// its line's ts, and the windows are still the input's (by position).
func TestWatchStateDirWallClock(t *testing.T) {
	bin := buildEngine(t)
	dir := t.TempDir()
	out, code := runWatch(t, bin, nil, nil, "--suite", driftSuite, "--in", driftTraces, "--state-dir", dir)
	if code != 0 || !strings.Contains(out, `"ts":"20`) {
		t.Fatalf("exit %d, lines without ts", code)
	}
	var records, stamped int
	if err := history.Scan(dir, func(r history.Result) error {
		records++
		if !r.Timestamp.IsZero() && r.Seq > 0 {
			stamped++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if records != 2800 || stamped != records {
		t.Errorf("%d records, %d with a timestamp and a position; want 2800 of each", records, stamped)
	}
	alerts, _ := os.ReadFile(filepath.Join(dir, "alerts.ndjson"))
	want, _ := os.ReadFile(driftAlerts)
	if string(alerts) != string(want) {
		t.Errorf("the alerts depend on the wall clock:\n%s", cmp.Diff(string(want), string(alerts)))
	}
}
