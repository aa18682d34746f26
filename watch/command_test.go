package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// recorder keeps what it is given.
type recorder struct {
	got     []Result
	batches []int // lines per Record call
	closed  bool
	fail    bool
}

func (r *recorder) Record(rs []Result) error {
	r.got = append(r.got, rs...)
	r.batches = append(r.batches, len(rs))
	if r.fail {
		return errors.New("disk full")
	}
	return nil
}

func (r *recorder) Close() error { r.closed = true; return nil }

func testEnv(rec Recorder) Env {
	return Env{
		Version:  "test",
		Recorder: func(HistoryConfig, *slog.Logger) (Recorder, error) { return rec, nil },
		Getenv:   func(string) string { return "" },
		Logger: func(w io.Writer, _ string) (*slog.Logger, error) {
			return slog.New(slog.NewJSONHandler(w, nil)), nil
		},
	}
}

// TestRecorder: every written line reaches the recorder, in output order,
// and it is closed at the end; a failing recorder does not stop the output.
func TestRecorder(t *testing.T) {
	input, err := os.ReadFile("../testdata/watch/traces.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, fail := range []bool{false, true} {
		rec := &recorder{fail: fail}
		var out, errb bytes.Buffer
		code := RunEnv(context.Background(), []string{"--suite", "../testdata/watch/suite.json", "--state-dir", t.TempDir(), "--deterministic"},
			bytes.NewReader(input), &out, &errb, testEnv(rec))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		var written []Result
		dec := json.NewDecoder(&out)
		for dec.More() {
			var r Result
			if err := dec.Decode(&r); err != nil {
				t.Fatal(err)
			}
			written = append(written, r)
		}
		if len(written) != 30 || !rec.closed {
			t.Errorf("fail=%v: %d lines written, recorder closed %v", fail, len(written), rec.closed)
		}
		if want := map[bool]string{false: `"unrecorded_traces":0`, true: `"unrecorded_traces":6`}[fail]; !strings.Contains(errb.String(), want) {
			t.Errorf("fail=%v: the final log line lacks %s: %s", fail, want, errb.String())
		}
		if want := []int{5, 5, 5, 5, 5, 5}; !cmp.Equal(rec.batches, want) {
			t.Errorf("fail=%v: Record given %v lines at a time, want one trace's five each time", fail, rec.batches)
		}
		if diff := cmp.Diff(written, rec.got, cmpopts.IgnoreFields(Result{}, "Seq", "Through", "Spans"), cmpopts.IgnoreUnexported(Result{})); diff != "" {
			t.Errorf("fail=%v: recorded differs from written (-written +recorded):\n%s", fail, diff)
		}
		// Seq, for the recorder only: the position of the input line that
		// began each trace (the OTLP ones close at the end of input).
		var seqs []uint64
		for i, r := range rec.got {
			if i%5 == 0 {
				seqs = append(seqs, r.Seq)
			}
		}
		if diff := cmp.Diff([]uint64{1, 2, 6, 7, 3, 5}, seqs); diff != "" {
			t.Errorf("fail=%v: seqs (-want +got):\n%s", fail, diff)
		}
		if fail != strings.Contains(errb.String(), "disk full") {
			t.Errorf("fail=%v: log %s", fail, errb.String())
		}
	}
}

func TestSuite(t *testing.T) {
	tests := []struct {
		name, text, err string
	}{
		{"ok", `{"assertions":[{"name":"a","type":"trace","spec":{}}],"sample_rates":{"x":0.5},"filter":{"agent_ids":["x"]}}`, ""},
		{"not an object", `[]`, `want a JSON object {"assertions": [...]}, got array`},
		{"unknown member", `{"assertions":[{"name":"a","type":"t","spec":{}}],"x":1}`, `unknown member "x" (want assertions, sample_rates, filter)`},
		{"no assertions", `{"assertions":[]}`, `"assertions" must be a non-empty array`},
		{"duplicate name", `{"assertions":[{"name":"a","type":"t","spec":{}},{"name":"a","type":"t","spec":{}}]}`, `assertions[1]: name "a" is used twice (names are the keys of results and history)`},
		{"no spec", `{"assertions":[{"name":"a","type":"t"}]}`, `assertions[0]: assertion "a": "spec" must be an object`},
		{"assertion_id is not a member", `{"assertions":[{"name":"a","type":"t","spec":{},"assertion_id":"x"}]}`, `assertions[0]: unknown member "assertion_id" (want name, type, spec, agent_id)`},
		{"bad rate", `{"assertions":[{"name":"a","type":"t","spec":{}}],"sample_rates":{"x":2}}`, `sample_rates["x"]: sample rate "2": want a decimal number from 0 to 1`},
		{"bad filter", `{"assertions":[{"name":"a","type":"t","spec":{}}],"filter":{"agents":[]}}`, `"filter" must be {"agent_ids": [...]} with at most 10000 ids`},
	}
	for _, tt := range tests {
		_, err := parseSuite([]byte(tt.text))
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if msg != tt.err {
			t.Errorf("%s: error %q, want %q", tt.name, msg, tt.err)
		}
	}
	// README threat model "watch suite file | 4 MiB, 1,000 assertions, names
	// ≤ 256 bytes, 10,000 agents in sample_rates and in filter": one past
	// each bound is refused, the bound itself accepted.
	one := func(name string) string { return `{"name":"` + name + `","type":"trace","spec":{}}` }
	many := func(n int, item func(int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = item(i)
		}
		return strings.Join(parts, ",")
	}
	rates := func(n int) string {
		return `{"assertions":[` + one("a") + `],"sample_rates":{` + many(n, func(i int) string { return fmt.Sprintf(`"agent-%d":0.5`, i) }) + `}}`
	}
	bounds := []struct {
		name, text, err string
	}{
		{"1,000 assertions", `{"assertions":[` + many(MaxAssertions, func(i int) string { return one(fmt.Sprint("a", i)) }) + `]}`, ""},
		{"1,001 assertions", `{"assertions":[` + many(MaxAssertions+1, func(i int) string { return one(fmt.Sprint("a", i)) }) + `]}`, "1001 assertions, more than 1000"},
		{"256-byte name", `{"assertions":[` + one(strings.Repeat("n", MaxNameBytes)) + `]}`, ""},
		{"257-byte name", `{"assertions":[` + one(strings.Repeat("n", MaxNameBytes+1)) + `]}`, `assertions[0]: "name" must be a string of 1 to 256 bytes`},
		{"10,000 sample rates", rates(MaxAgentRates), ""},
		{"10,001 sample rates", rates(MaxAgentRates + 1), `"sample_rates" must be an object of at most 10000 agent ids → rates`},
	}
	for _, tt := range bounds {
		_, err := parseSuite([]byte(tt.text))
		if msg := fmt.Sprint(err); (tt.err == "" && err != nil) || (tt.err != "" && msg != tt.err) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
		}
	}
	big := `{"assertions":[` + one("a") + `],"filter":{"agent_ids":["` + strings.Repeat("x", MaxSuiteBytes) + `"]}}`
	if _, err := ReadSuite(strings.NewReader(big), "big.json"); err == nil || err.Error() != "suite big.json: larger than 4194304 bytes" {
		t.Errorf("a suite file over 4 MiB: error %v, want it refused by size", err)
	}

	// The hash is of the canonical form: white space and member order do not count.
	a, _ := parseSuite([]byte(`{"assertions":[{"name":"a","type":"trace","spec":{"x":1,"y":2}}]}`))
	b, _ := parseSuite([]byte("{ \"assertions\" : [ {\"spec\":{\"y\":2,\"x\":1}, \"type\":\"trace\", \"name\":\"a\"} ] }"))
	c, _ := parseSuite([]byte(`{"assertions":[{"name":"a","type":"trace","spec":{"x":1,"y":3}}]}`))
	if a.Hash != b.Hash || a.Hash == c.Hash {
		t.Errorf("suite hashes: %s %s %s", a.Hash, b.Hash, c.Hash)
	}
}

// FuzzSuite: any suite text is read or refused with an error, never a panic.
func FuzzSuite(f *testing.F) {
	f.Add([]byte(`{"assertions":[{"name":"a","type":"trace","spec":{}}],"sample_rates":{"x":0.5},"filter":{"agent_ids":["x"]}}`))
	f.Add([]byte(`{"assertions":[{"name":"a","type":"t","spec":{}}],"sample_rates":{"x":"1"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parseSuite(data)
		if err == nil && (len(s.Assertions) == 0 || s.Hash == "") {
			t.Fatal("a suite without assertions or hash")
		}
	})
}

// TestWarningsLoggedOnceBounded: a validation warning is logged once per
// text, and at most maxWarnings (64) texts are remembered: further ones
// are not logged, so the set cannot grow with hostile traces.
func TestWarningsLoggedOnceBounded(t *testing.T) {
	var logged []string
	e := &evaluator{warn: func(msg string) { logged = append(logged, msg) }}
	var ws []string
	for i := range maxWarnings + 36 {
		ws = append(ws, fmt.Sprintf("unknown step type 't%d' tolerated", i))
	}
	e.logWarnings(ws)
	e.logWarnings(ws)
	if len(logged) != maxWarnings || len(e.warned) != maxWarnings {
		t.Errorf("%d distinct warnings given twice: %d logged, %d remembered; want %d each", len(ws), len(logged), len(e.warned), maxWarnings)
	}
	if len(logged) > 0 && logged[0] != ws[0]+" (logged once)" {
		t.Errorf("first line logged %q", logged[0])
	}
}

// TestHistoryFlags: --fsync and --alert-webhook reach the Recorder, with
// the secret from the environment; without --state-dir they are refused.
func TestHistoryFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want *HistoryConfig // nil: exit 2
	}{
		{[]string{"--state-dir", "d"}, &HistoryConfig{Dir: "d"}},
		{[]string{"--state-dir", "d", "--fsync", "interval", "--alert-webhook", "https://hooks.example/x"},
			&HistoryConfig{Dir: "d", Fsync: "interval", Webhook: "https://hooks.example/x", WebhookSecret: "k"}},
		{[]string{"--fsync", "always"}, nil},
		{[]string{"--alert-webhook", "https://hooks.example/x"}, nil},
		{[]string{"--state-dir", "d", "--fsync", "often"}, nil},
		{[]string{"--state-dir", "d", "--alert-webhook", "hooks.example/x"}, nil},
	} {
		var got *HistoryConfig
		env := testEnv(&recorder{})
		env.Getenv = func(k string) string {
			if k == WebhookSecretEnv {
				return "k"
			}
			return ""
		}
		env.Recorder = func(cfg HistoryConfig, _ *slog.Logger) (Recorder, error) { got = &cfg; return &recorder{}, nil }
		var out, errb bytes.Buffer
		code := RunEnv(context.Background(), append([]string{"--suite", "../testdata/watch/suite.json"}, tc.args...), strings.NewReader(""), &out, &errb, env)
		if tc.want == nil {
			if code != 2 || got != nil {
				t.Errorf("%v: exit %d, recorder opened %v; want exit 2", tc.args, code, got)
			}
			continue
		}
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errb.String())
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%v: (-want +got):\n%s", tc.args, diff)
		}
	}
}

// failWriter refuses every write, as a full disk or a closed pipe does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestWriteFailureExits: results that cannot be written fail the run, even
// when the only failing write is the flush of the last trace's lines.
func TestWriteFailureExits(t *testing.T) {
	input, err := os.ReadFile("../testdata/watch/traces.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := bytes.Cut(input, []byte("\n"))
	var errb bytes.Buffer
	code := RunEnv(context.Background(), []string{"--suite", "../testdata/watch/suite.json", "--deterministic"},
		bytes.NewReader(first), failWriter{}, &errb, testEnv(nil))
	if code == 0 || !strings.Contains(errb.String(), "no space left on device") {
		t.Errorf("exit %d, log %s; want a failure naming the write error", code, errb.String())
	}
}

// TestSharedFlags: the flags every command reads alike (package cli): a
// bare number of milliseconds for a duration, --offline, -h exiting 0.
func TestSharedFlags(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"--eval-timeout", "30000"}, 0},
		{[]string{"--eval-timeout", "0"}, 2},
		{[]string{"--grace", "1500", "--idle", "2m"}, 0},
		{[]string{"--offline"}, 0},
		{[]string{"-h"}, 0},
	}
	for _, tc := range tests {
		var errb bytes.Buffer
		args := append([]string{"--suite", "../testdata/watch/suite.json"}, tc.args...)
		if code := RunEnv(context.Background(), args, strings.NewReader(""), io.Discard, &errb, testEnv(nil)); code != tc.code {
			t.Errorf("%q: exit %d, want %d: %s", tc.args, code, tc.code, errb.String())
		}
	}
}
