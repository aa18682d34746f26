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
		if diff := cmp.Diff(written, rec.got, cmpopts.IgnoreFields(Result{}, "Seq", "Through", "Spans", "SpanID"), cmpopts.IgnoreUnexported(Result{})); diff != "" {
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
