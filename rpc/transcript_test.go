// transcript_test.go: wire-level golden tests: request lines in, response lines out.

package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"attest-engine/assert"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

const transcriptDir = "../testdata/rpc"

// transcripts are request streams under testdata/rpc/<name>.jsonl; the
// answers are compared with <name>.golden.jsonl after sorting by id (answers
// may come out of order, spec §1.5) and zeroing durations.
var transcripts = []struct {
	name, reason string
	timeout      time.Duration
}{
	{name: "spec_initialize", reason: "spec §2.1 request answers as the spec's response shows, then §2.3 shutdown"},
	{name: "protocol_window", reason: "spec §6 window: current and current-1 accepted; others get 3003 with the spec's message; a version that is not exactly an integer is invalid params"},
	{name: "session_errors", reason: "spec §5: evaluate_batch before initialize, initialize twice, requests after shutdown"},
	{name: "incompatible", reason: "spec §2.1: missing capabilities make compatible false; evaluation is then refused"},
	{name: "invalid_params", reason: "-32602 for params of the wrong shape; unknown fields ignored; names match exactly"},
	{name: "invalid_trace", reason: "spec §7: invalid traces get 1001 with the spec's messages before any assertion runs"},
	{name: "assertion_errors", reason: "spec §5/§6: unknown types and malformed assertion objects get 1002"},
	{name: "framing", reason: "spec §1.2 and JSON-RPC 2.0: parse errors (carrying the id whenever the line reveals it: truncated, trailing data, NaN/Infinity, nesting too deep; null when unreadable), invalid requests, notifications, ids of every kind"},
	{name: "timeout", reason: "spec §5 TIMEOUT: an expired --eval-timeout answers 3002, retryable", timeout: time.Nanosecond},
	{name: "multi_agent", reason: "multi-agent trees: validate_trace_tree, trace_tree checks, agent_id scoping (unknown, ambiguous, bad), JSONPath into sub-traces"},
	{name: "plugins", reason: "spec §2.4: submit_plugin_result accepted, counted and de-duplicated per (suite, trace_id, plugin_name, assertion_id); every bad field is 1002"},
	{name: "plugins_incompatible", reason: "spec §5: plugin results and tree validation need a compatible session (3003)"},
	{name: "spec_batch", reason: "spec §2.2 request minus llm_judge answers as the spec's response shows (statuses, scores, request ids, explanations)"},
	{name: "idempotency", reason: "spec §2.2 request_id: a repeat is answered from the record, under the current request's assertion_id (SDKs make new random ids)"},
	{name: "trajectory", reason: "capability trajectory: tool_args, trajectory_match, trajectory_alignment and temporal with the additive failed_step on the wire; the spec's check passes where they fail; an unknown check, a bad regex and a path outside the subset are 1002"},
	{name: "spec_batch_errors", reason: "spec §5 ASSERTION_ERROR example verbatim, other 1002s of layers 1-4, and a failing batch whose results keep request order"},
}

func TestTranscripts(t *testing.T) {
	for _, tc := range transcripts {
		t.Run(tc.name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join(transcriptDir, tc.name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			got := normalize(t, runServer(t, in, tc.timeout))
			checkGolden(t, filepath.Join(transcriptDir, tc.name+".golden.jsonl"), got, tc.reason)
		})
	}
}

// runServer feeds input to a fresh in-process server and returns stdout.
func runServer(t *testing.T, input []byte, timeout time.Duration) []byte {
	t.Helper()
	eng, err := assert.New(assert.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{Engine: eng, EvalTimeout: timeout})
	var out bytes.Buffer
	if err := s.Serve(context.Background(), bytes.NewReader(input), &out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// newReadyServer is a server with the default engine whose session is
// initialized, for calling its methods directly.
func newReadyServer(tb testing.TB) *Server {
	tb.Helper()
	eng, err := assert.New(assert.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	s := New(Options{Engine: eng})
	s.state = stateReady
	return s
}

// sessionLines are the lines of testdata/session.jsonl: initialize, the
// spec's refund batch (id 2), shutdown.
func sessionLines(tb testing.TB) []string {
	tb.Helper()
	data, err := os.ReadFile("../testdata/session.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	return strings.Split(string(data), "\n")
}

// specBatchLine is the spec's refund batch: one evaluate_batch line.
func specBatchLine(tb testing.TB) string {
	tb.Helper()
	return sessionLines(tb)[1]
}

var durations = regexp.MustCompile(`"(total_)?duration_ms":\d+`)

// normalize checks that every line is one compact JSON object, zeroes
// durations, and sorts the lines by id (stable, so null ids keep their order).
func normalize(t *testing.T, out []byte) string {
	t.Helper()
	if len(out) > 0 && out[len(out)-1] != '\n' {
		t.Errorf("output does not end with LF")
	}
	type answer struct {
		id   string
		line string
	}
	var answers []answer
	for _, line := range strings.SplitAfter(string(out), "\n") {
		if line == "" {
			continue
		}
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Errorf("output line is not JSON: %q", line)
			continue
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(line)); err != nil || compact.String()+"\n" != line {
			t.Errorf("output line is not compact JSON: %q", line)
		}
		answers = append(answers, answer{string(msg.ID), durations.ReplaceAllString(line, `"${1}duration_ms":0`)})
	}
	sort.SliceStable(answers, func(i, j int) bool { return answers[i].id < answers[j].id })
	var b strings.Builder
	for _, a := range answers {
		b.WriteString(a.line)
	}
	return b.String()
}

// checkGolden compares got with a golden file, rewriting it under -update.
func checkGolden(t *testing.T, path, got, reason string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./rpc -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s: %s\n(-want +got):\n%s", path, reason, diff)
	}
}
