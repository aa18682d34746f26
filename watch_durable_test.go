// watch_durable_test.go: watch --in FILE --state-dir killed with SIGKILL at
// seeded moments and restarted: it resumes from its checkpoint, and the
// history and the result lines (by result_id) are a clean run's.

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"attest-engine/history"
	"attest-engine/suite"

	"github.com/google/go-cmp/cmp"

	"attest-engine/testseed"
)

// killSeed is the seed of the kill tests: $ATTEST_KILL_SEED, else 1.
func killSeed(t *testing.T) uint64 { return testseed.Uint64(t, "ATTEST_KILL_SEED", 1) }

// killFull: $ATTEST_KILL_FULL=1 runs the kill tests at the size.
func killFull() bool { return os.Getenv("ATTEST_KILL_FULL") == "1" }

// durableSuite judges what a trace's spans hold: all three tools (so a
// trace judged without one of its spans fails), their order, the latency.
const durableSuite = `{"assertions": [
 {"name": "all-tools", "type": "trace", "spec": {"check": "required_tools", "tools": ["t1", "t2", "t3"]}},
 {"name": "t1-before-t3", "type": "trace", "spec": {"check": "contains_in_order", "tools": ["t1", "t3"]}},
 {"name": "fast", "type": "constraint", "spec": {"field": "metadata.latency_ms", "operator": "lte", "value": 120}}
]}`

// otlpSpan is one span of an OTLP/JSON line.
func otlpSpan(trace, span, parent, name, op, tool string, start, end int64) string {
	attrs := fmt.Sprintf(`{"key":"gen_ai.operation.name","value":{"stringValue":%q}}`, op)
	switch op {
	case "invoke_agent":
		attrs += `,{"key":"gen_ai.agent.name","value":{"stringValue":"agent"}}`
	case "execute_tool":
		attrs += fmt.Sprintf(`,{"key":"gen_ai.tool.name","value":{"stringValue":%q}}`, tool)
	}
	return fmt.Sprintf(`{"traceId":%q,"spanId":%q,"parentSpanId":%q,"name":%q,"startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[%s]}`,
		trace, span, parent, name, start, end, attrs)
}

// durableInput is n traces, seeded: OTLP traces of a root and three tool
// spans spread over three lines, each line holding spans of three traces,
// 10 ms of event time apart; every 50th trace's last tool comes 700 lines
// (7 s) later, after --grace and within --idle (a verdict superseded);
// every 97th's 1,500 lines later, after --idle (too late); every 7th line
// is also an Attest trace. A seeded share of traces is slow or lacks t2.
func durableInput(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 0xd0ab1e))
	base := int64(1_764_000_000_000_000_000)
	lines := make([][]string, n+1600)
	for k := range n {
		id := fmt.Sprintf("%016x%016x", seed, k+1)
		root := fmt.Sprintf("%016x", k*4+1)
		t0 := base + int64(k)*int64(10*time.Millisecond)
		dur := int64(20+rng.IntN(200)) * int64(time.Millisecond)
		lines[k] = append(lines[k], otlpSpan(id, root, "", "invoke_agent agent", "invoke_agent", "", t0, t0+dur))
		tools := []string{"t1", "t2", "t3"}
		if rng.IntN(20) == 0 {
			tools[1] = "t9"
		}
		for j, tool := range tools {
			at := k + 1 + j/2 // lines k+1, k+1, k+2
			if j == 2 && k%50 == 0 {
				at = k + 700
			}
			if j == 2 && k%97 == 0 {
				at = k + 1500
			}
			s := t0 + int64(j+1)*int64(time.Millisecond)
			lines[at] = append(lines[at], otlpSpan(id, fmt.Sprintf("%016x", k*4+2+j), root, "execute_tool "+tool, "execute_tool", tool, s, s+int64(time.Millisecond)))
		}
	}
	var b bytes.Buffer
	for i, spans := range lines {
		if len(spans) == 0 {
			continue
		}
		b.WriteString(`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},"scopeSpans":[{"spans":[`)
		b.WriteString(strings.Join(spans, ","))
		b.WriteString("]}]}]}\n")
		if i%7 == 0 {
			fmt.Fprintf(&b, `{"schema_version":1,"trace_id":"att-%d-%d","agent_id":"agent","steps":[{"type":"tool_call","name":"t1"},{"type":"tool_call","name":"t2"},{"type":"tool_call","name":"t3"}],"output":{"message":"ok"},"metadata":{"latency_ms":%d}}`+"\n",
				seed, i, 50+rng.IntN(100))
		}
	}
	return b.Bytes()
}

// summaries reads a state dir's windows by assertion.
func summaries(t *testing.T, dir string) map[string][]history.Summary {
	t.Helper()
	s, err := history.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := map[string][]history.Summary{}
	for _, k := range s.Keys() {
		sr, _ := s.Series(k)
		out[k] = sr.Windows
	}
	return out
}

// uniqueLines indexes result lines by result_id, failing when two lines of
// one id differ.
func uniqueLines(t *testing.T, data []byte) (map[string]string, int) {
	t.Helper()
	m := map[string]string{}
	ls := lines(string(data))
	for _, l := range ls {
		var r struct {
			ResultID string `json:"result_id"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.ResultID == "" {
			t.Fatalf("bad result line %q: %v", l, err)
		}
		if prev, ok := m[r.ResultID]; ok && prev != l {
			t.Fatalf("result_id %s written twice, differently:\n%s\n%s", r.ResultID, prev, l)
		}
		m[r.ResultID] = l
	}
	return m, len(ls)
}

// TestWatchFileKills: watch --in FILE --state-dir, killed with SIGKILL at
// seeded moments and restarted each time, ends with the history of a
// clean run (every window of every assertion, exactly) and, de-duplicated
// by result_id, its result lines. Small by default; ATTEST_KILL_FULL=1
// runs 20,000 traces and 100 kills; ATTEST_KILL_SEED picks the seed.
func TestWatchFileKills(t *testing.T) {
	bin := buildEngine(t)
	seed := killSeed(t)
	traces, kills := 1500, 8
	if killFull() {
		traces, kills = 20000, 100
	}
	dir := t.TempDir()
	in, suite := filepath.Join(dir, "traces.jsonl"), filepath.Join(dir, "suite.json")
	if err := os.WriteFile(in, durableInput(seed, traces), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(suite, []byte(durableSuite), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(state, out string) []string {
		// Checkpoints far more often than the kills come: a restart
		// resumes from one written mid-file, not always from the start.
		return []string{"watch", "--suite", suite, "--in", in, "--deterministic", "--idle", "10s", "--jobs", "2",
			"--state-dir", state, "--out", out, "--log-level", "warn", "--checkpoint-every", "5ms"}
	}
	clean, cleanOut := filepath.Join(dir, "clean"), filepath.Join(dir, "clean.jsonl")
	began := time.Now()
	if out, err := exec.Command(bin, args(clean, cleanOut)...).CombinedOutput(); err != nil {
		t.Fatalf("clean run: %v\n%s", err, out)
	}
	// Kills come up to twice a clean run's time divided by the kills after
	// each start (once that time on average), so that they land while the
	// input is read on a fast machine as on a slow one, and the kills
	// asked for come before the restarts, each resuming from its
	// checkpoint, have read the input to its end.
	span := max(time.Since(began), 200*time.Millisecond)
	state, killedOut := filepath.Join(dir, "killed"), filepath.Join(dir, "killed.jsonl")
	rng := rand.New(rand.NewPCG(seed, 0x4b111))
	killed, runs := 0, 0
	deadline := time.Now().Add(10 * time.Minute)
	for runs < kills && time.Now().Before(deadline) {
		runs++
		cmd := exec.Command(bin, args(state, killedOut)...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case err := <-exited: // done before the kill: the input is read
			if err != nil {
				t.Fatalf("run %d: %v\n%s", runs, err, errb.String())
			}
			runs = kills
		case <-time.After(time.Duration(1 + rng.Int64N(int64(2*span/time.Duration(kills))))):
			cmd.Process.Kill()
			<-exited
			killed++
		}
	}
	t.Logf("seed %d: %d traces, %d runs killed with SIGKILL of %d (a clean run takes %v)", seed, traces, killed, runs, span.Round(time.Millisecond))
	if killed == 0 {
		t.Error("no run was killed while it read")
	}
	if out, err := exec.Command(bin, args(state, killedOut)...).CombinedOutput(); err != nil {
		t.Fatalf("last run: %v\n%s", err, out)
	}
	if d := cmp.Diff(summaries(t, clean), summaries(t, state)); d != "" {
		t.Errorf("seed %d: the history differs from a clean run's (-clean +killed):\n%s", seed, d)
	}
	cleanData, _ := os.ReadFile(cleanOut)
	killedData, _ := os.ReadFile(killedOut)
	want, _ := uniqueLines(t, cleanData)
	got, n := uniqueLines(t, killedData)
	t.Logf("result lines: clean %d, killed %d written (%d unique)", len(want), n, len(got))
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("seed %d: the result lines by result_id differ from a clean run's (-clean +killed):\n%s", seed, d)
	}
}

// TestWatchSuiteChange: the same file judged again into the same state dir
// by a changed suite is read again from its start (the checkpoint is the
// old suite's), and the history holds one verdict per (trace, assertion),
// the new suite's.
func TestWatchSuiteChange(t *testing.T) {
	bin := buildEngine(t)
	dir := t.TempDir()
	in, state := filepath.Join(dir, "traces.jsonl"), filepath.Join(dir, "state")
	os.WriteFile(in, durableInput(3, 300), 0o644)
	changed := strings.Replace(durableSuite, `"value": 120`, `"value": 100000`, 1)
	counts := map[string][4]uint64{}
	for i, suite := range []string{durableSuite, changed} {
		path := filepath.Join(dir, fmt.Sprintf("suite%d.json", i))
		os.WriteFile(path, []byte(suite), 0o644)
		out, code := runWatch(t, bin, nil, nil, "--suite", path, "--in", in, "--deterministic", "--state-dir", state)
		if code != 0 {
			t.Fatalf("run %d: exit %d", i, code)
		}
		if n := len(lines(out)); n == 0 {
			t.Fatalf("run %d (suite %d) wrote no line: the input was not read again", i, i)
		}
	}
	// The changed "fast" is another check, another key (package resultkey):
	// its history holds the new suite's verdicts only.
	ns, err := suite.Read(strings.NewReader(changed), "changed")
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string][4]uint64{}
	for k, ws := range summaries(t, state) {
		var c [4]uint64
		for _, w := range ws {
			c[0], c[1], c[2], c[3] = c[0]+w.Passes, c[1]+w.Fails, c[2]+w.Errors, c[3]+w.Skipped
		}
		byKey[k] = c
	}
	for i, a := range ns.Assertions {
		counts[a.ID] = byKey[ns.Keys[i]]
	}
	fast := counts["fast"]
	if fast[1] != 0 || fast[0] == 0 || fast != [4]uint64{fast[0], 0, 0, 0} {
		t.Errorf("fast after the changed suite: %v (passes, fails, errors, skipped); want passes only", fast)
	}
	if all := counts["all-tools"]; all[0]+all[1]+all[2]+all[3] != fast[0] {
		t.Errorf("all-tools %v and fast %v count different traces: a verdict counted twice", all, fast)
	}
}

// TestWatchReread: the same file read again from its start into the same
// state dir (its checkpoint removed) counts nothing twice: the history
// refuses what it holds.
func TestWatchReread(t *testing.T) {
	bin := buildEngine(t)
	dir := t.TempDir()
	in, suite, state := filepath.Join(dir, "traces.jsonl"), filepath.Join(dir, "suite.json"), filepath.Join(dir, "state")
	os.WriteFile(in, durableInput(4, 300), 0o644)
	os.WriteFile(suite, []byte(durableSuite), 0o644)
	var once map[string][]history.Summary
	for i := range 2 {
		if _, code := runWatch(t, bin, nil, nil, "--suite", suite, "--in", in, "--deterministic", "--state-dir", state); code != 0 {
			t.Fatalf("run %d: exit %d", i, code)
		}
		if i == 0 {
			once = summaries(t, state)
			if err := os.Remove(filepath.Join(state, "input.checkpoint")); err != nil {
				t.Fatal(err)
			}
		}
	}
	if d := cmp.Diff(once, summaries(t, state)); d != "" {
		t.Errorf("a second read of the same file changed the history (-once +twice):\n%s", d)
	}
}

// TestWatchShiftedReread: the same traces read into the same state dir
// from another file, where they sit one line further on (a line added
// before them: the file's checkpoint does not apply), are evaluated again
// and refused by the history by result_id: the history counts what one
// run over the second file counts. Their input positions are not the
// first read's, so they tell nothing of which spans were judged before.
func TestWatchShiftedReread(t *testing.T) {
	bin := buildEngine(t)
	dir := t.TempDir()
	first, second, suite := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "suite.json")
	data := durableInput(4, 300)
	extra := `{"schema_version":1,"trace_id":"extra","agent_id":"agent","steps":[],"output":{"message":"ok"},"metadata":{"latency_ms":5}}` + "\n"
	os.WriteFile(first, data, 0o644)
	os.WriteFile(second, append([]byte(extra), data...), 0o644)
	os.WriteFile(suite, []byte(durableSuite), 0o644)
	once, twice := filepath.Join(dir, "once"), filepath.Join(dir, "twice")
	for _, run := range []struct{ in, state string }{{first, twice}, {second, twice}, {second, once}} {
		if _, code := runWatch(t, bin, nil, nil, "--suite", suite, "--in", run.in, "--deterministic", "--state-dir", run.state); code != 0 {
			t.Fatalf("%s into %s: exit %d", run.in, run.state, code)
		}
	}
	if d := cmp.Diff(totals(t, once), totals(t, twice)); d != "" {
		t.Errorf("the history after both files differs from one run over the second's (passes, fails, errors, skipped) (-once +twice):\n%s", d)
	}
}
