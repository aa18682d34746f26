// watch_binary_test.go: the watch command through the real binary: goldens, determinism, duplicates, shards, sampling.

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	watchSuite  = "testdata/watch/suite.json"
	watchTraces = "testdata/watch/traces.jsonl"
)

// runWatch runs the command to its end; stdin may be nil.
func runWatch(t *testing.T, bin string, stdin []byte, env []string, args ...string) (stdout string, code int) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"watch"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != 0 {
		t.Logf("stderr: %s", errb.String())
	}
	return out.String(), code
}

func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// byResultID indexes lines by result_id, failing on a line without one.
func byResultID(t *testing.T, ls []string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, l := range ls {
		var r struct {
			ResultID string `json:"result_id"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.ResultID == "" {
			t.Fatalf("bad result line %q: %v", l, err)
		}
		m[r.ResultID] = l
	}
	return m
}

// TestWatchGolden: the result lines of a mixed input (Attest traces, OTLP
// with and without content, a bad line, an invalid trace, a bad assertion)
// are pinned, identical for 1 and 4 workers and from one run to the next.
func TestWatchGolden(t *testing.T) {
	bin := buildEngine(t)
	one, code := runWatch(t, bin, nil, nil, "--suite", watchSuite, "--in", watchTraces, "--deterministic", "--jobs", "1")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	four, _ := runWatch(t, bin, nil, nil, "--suite", watchSuite, "--in", watchTraces, "--deterministic", "--jobs", "4")
	if one != four {
		t.Errorf("--jobs 1 and --jobs 4 differ:\n%s", cmp.Diff(one, four))
	}
	path := "testdata/watch/results.golden.jsonl"
	if *update {
		if err := os.WriteFile(path, []byte(one), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), one); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(lines(one)) != 6*5 {
		t.Errorf("%d lines, want 6 traces × 5 assertions", len(lines(one)))
	}
	// --out appends: a restarted consumer adds to what it wrote.
	path = filepath.Join(t.TempDir(), "results.jsonl")
	for range 2 {
		if out, code := runWatch(t, bin, nil, nil, "--suite", watchSuite, "--in", watchTraces, "--deterministic", "--out", path); code != 0 || out != "" {
			t.Fatalf("--out: exit %d, stdout %q", code, out)
		}
	}
	if got, _ := os.ReadFile(path); string(got) != one+one {
		t.Errorf("--out FILE twice holds %d bytes, want two runs' %d", len(got), 2*len(one))
	}
}

// TestWatchWallClock: without --deterministic each line carries ts and
// duration_ms, and nothing else changes.
func TestWatchWallClock(t *testing.T) {
	bin := buildEngine(t)
	det, dcode := runWatch(t, bin, nil, nil, "--suite", watchSuite, "--in", watchTraces, "--deterministic")
	wall, wcode := runWatch(t, bin, nil, nil, "--suite", watchSuite, "--in", watchTraces)
	if len(lines(det)) == 0 || dcode != wcode {
		t.Fatalf("%d lines, exit %d (deterministic) and %d: want result lines, and one exit status", len(lines(det)), dcode, wcode)
	}
	var stripped []string
	for _, l := range lines(wall) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		if _, ok := m["ts"]; !ok {
			t.Fatalf("no ts in %s", l)
		}
		if _, ok := m["duration_ms"]; !ok {
			t.Fatalf("no duration_ms in %s", l)
		}
		i := strings.Index(l, `,"duration_ms":`)
		stripped = append(stripped, l[:i]+"}")
	}
	if diff := cmp.Diff(lines(det), stripped); diff != "" {
		t.Errorf("(-deterministic +wall clock without its fields):\n%s", diff)
	}
}

// TestWatchDuplicates: every input line fed twice, de-duplicated by
// result_id, gives exactly the single run's lines (OTLP spans delivered
// twice are held once).
func TestWatchDuplicates(t *testing.T) {
	bin := buildEngine(t)
	data, err := os.ReadFile(watchTraces)
	if err != nil {
		t.Fatal(err)
	}
	var twice []byte
	for _, l := range lines(string(data)) {
		twice = append(twice, l+"\n"+l+"\n"...)
	}
	single, scode := runWatch(t, bin, nil, nil, "--suite", watchSuite, "--in", watchTraces, "--deterministic")
	doubled, dcode := runWatch(t, bin, twice, nil, "--suite", watchSuite, "--deterministic")
	want, got := byResultID(t, lines(single)), byResultID(t, lines(doubled))
	if len(want) == 0 || scode != dcode {
		t.Fatalf("%d result lines, exit %d (single) and %d (doubled): want result lines, and one exit status", len(want), scode, dcode)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("de-duplicated doubled input differs from a single run (-single +doubled):\n%s", diff)
	}
}

// TestWatchShards: for N = 1, 2, 3, 7, N processes over the same input
// write disjoint lines whose union is one process's output; the shard comes
// from --shard, JOB_COMPLETION_INDEX or Slurm's variables alike.
func TestWatchShards(t *testing.T) {
	bin := buildEngine(t)
	input := manyTraces(200)
	whole, _ := runWatch(t, bin, input, nil, "--suite", watchSuite, "--deterministic")
	all := lines(whole)
	for _, n := range []int{1, 2, 3, 7} {
		var union []string
		for i := range n {
			var env, args []string
			switch i % 3 {
			case 0:
				args = []string{"--shard", strconv.Itoa(i) + "/" + strconv.Itoa(n)}
			case 1:
				env, args = []string{"JOB_COMPLETION_INDEX=" + strconv.Itoa(i)}, []string{"--shards", strconv.Itoa(n)}
			case 2:
				env = []string{"SLURM_ARRAY_TASK_ID=" + strconv.Itoa(i+1), "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_COUNT=" + strconv.Itoa(n)}
			}
			out, code := runWatch(t, bin, input, env, append(args, "--suite", watchSuite, "--deterministic")...)
			if code != 0 {
				t.Fatalf("N=%d shard %d: exit %d", n, i, code)
			}
			if n > 1 && len(lines(out)) == len(all) {
				t.Errorf("N=%d shard %d took everything", n, i)
			}
			union = append(union, lines(out)...)
		}
		got, want := slices.Clone(union), slices.Clone(all)
		slices.Sort(got)
		slices.Sort(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("N=%d: the shards' lines are not a partition of one run's (-one +shards):\n%s", n, diff)
		}
	}
}

// TestWatchSample: rate 0 keeps nothing, 1 everything, and the 10% run's
// lines are among the 50% run's.
func TestWatchSample(t *testing.T) {
	bin := buildEngine(t)
	input := manyTraces(300)
	count := map[string]int{}
	sets := map[string]map[string]string{}
	for _, r := range []string{"0", "0.1", "0.5", "1"} {
		out, code := runWatch(t, bin, input, nil, "--suite", watchSuite, "--deterministic", "--sample", r)
		if code != 0 {
			t.Fatalf("--sample %s: exit %d", r, code)
		}
		count[r] = len(lines(out))
		sets[r] = byResultID(t, lines(out))
	}
	if count["0"] != 0 || count["1"] != 300*5 {
		t.Errorf("rate 0 gave %d lines, rate 1 gave %d (want 0 and %d)", count["0"], count["1"], 300*5)
	}
	for id := range sets["0.1"] {
		if _, ok := sets["0.5"][id]; !ok {
			t.Errorf("result %s sampled at 0.1 but not at 0.5", id)
		}
	}
	if count["0.1"] == 0 || count["0.1"] >= count["0.5"] {
		t.Errorf("0.1 gave %d lines, 0.5 gave %d", count["0.1"], count["0.5"])
	}
}

// manyTraces is n Attest traces, ids trc_0 … and OTel-style hex ids.
func manyTraces(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		id := "trc_" + strconv.Itoa(i)
		if i%2 == 1 {
			id = strconv.FormatInt(int64(i)*7919+1_000_003, 16)
			id = strings.Repeat("0", 32-len(id)) + id
		}
		latency := 1000 + 37*i%9000
		msg := "Your refund is on its way."
		if i%5 == 0 {
			msg = "Sorry."
		}
		b.WriteString(`{"schema_version":1,"trace_id":"` + id + `","agent_id":"refund-agent","steps":[{"type":"tool_call","name":"lookup_order"},{"type":"tool_call","name":"process_refund"}],"output":{"message":"` + msg + `"},"metadata":{"latency_ms":` + strconv.Itoa(latency) + `}}` + "\n")
	}
	return b.Bytes()
}

func TestWatchBadFlags(t *testing.T) {
	bin := buildEngine(t)
	dir := t.TempDir()
	big := filepath.Join(dir, "dup.json")
	os.WriteFile(big, []byte(`{"assertions":[{"name":"a","type":"trace","spec":{}},{"name":"a","type":"trace","spec":{}}]}`), 0o644)
	for _, args := range [][]string{
		{"--in", watchTraces},
		{"--suite", watchSuite, "--sample", "2"},
		{"--suite", watchSuite, "--shard", "3/3"},
		{"--suite", watchSuite, "--listen", "0.0.0.0:0"},
		{"--suite", watchSuite, "--state-dir", dir, "--fsync", "sometimes"},
		{"--suite", watchSuite, "--fsync", "never"},
		{"--suite", watchSuite, "--alert-webhook", "http://127.0.0.1:1/"},
		{"--suite", watchSuite, "--state-dir", dir, "--alert-webhook", "ftp://127.0.0.1/"},
		{"--suite", watchSuite, "--state-dir", big}, // a file, not a dir
		{"--suite", big},
		{"--suite", watchSuite, "--follow"},
	} {
		if _, code := runWatch(t, bin, []byte{}, nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if _, code := runWatch(t, bin, []byte{}, nil, "-h"); code != 0 {
		t.Errorf("-h: exit %d, want 0 (usage asked for)", code)
	}
}
