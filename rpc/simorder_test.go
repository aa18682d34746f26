// simorder_test.go: pipelined simulation calls get the answers of calls sent one at a time.

package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"attest-engine/assert"
	"attest-engine/provider"

	"github.com/google/go-cmp/cmp"
)

// pipelineRuns is how many times each pipelined session is served: ATTEST_SIM_PIPELINE_RUNS, else 1,000
// (the order bug it guards showed in about one run of three); 100 with -short or -race.
func pipelineRuns(t *testing.T) int {
	if v := os.Getenv("ATTEST_SIM_PIPELINE_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("ATTEST_SIM_PIPELINE_RUNS=%q: want a positive integer", v)
		}
		return n
	}
	if testing.Short() || raceDetector {
		return 100 // the race detector slows each run tenfold; it looks for other faults
	}
	return 1000
}

// servePiped sends every line at once (the engine keeps up to 64 in flight) and returns the answers by id.
func servePiped(t *testing.T, lines []string) map[string]string {
	t.Helper()
	cfg := assert.Config{Settings: provider.Settings{Getenv: noEnv}}
	eng, err := assert.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{Engine: eng, Config: cfg})
	var out strings.Builder
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), strings.NewReader(strings.Join(lines, "")), &out) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a pipelined simulation session did not end within 10 s: a turn waits for good (simorder.go)")
	}
	return answersByID(t, out.String())
}

func answersByID(t *testing.T, out string) map[string]string {
	t.Helper()
	answers := map[string]string{}
	for _, l := range strings.SplitAfter(strings.TrimSpace(out), "\n") {
		var a struct{ ID json.RawMessage }
		if err := json.Unmarshal([]byte(l), &a); err != nil {
			t.Fatalf("%v: %.200s", err, l)
		}
		answers[string(a.ID)] = durations.ReplaceAllString(strings.TrimSuffix(l, "\n"), `"${1}duration_ms":0`)
	}
	return answers
}

func serveOneAtATime(t *testing.T, lines []string) map[string]string {
	t.Helper()
	ss := newSession(t, assert.Config{Settings: provider.Settings{Getenv: noEnv}})
	var out strings.Builder
	for _, l := range lines {
		if strings.Contains(l, `"method":"shutdown"`) {
			continue // asked last, below: newSession's clean-up closes stdin
		}
		out.WriteString(ss.ask(t, l))
	}
	for _, l := range lines {
		if strings.Contains(l, `"method":"shutdown"`) {
			out.WriteString(ss.ask(t, l))
		}
	}
	return answersByID(t, out.String())
}

// TestSimulationPipelined: a scenario's mock calls get their occurrences, and its ledger reads see its
// calls, in the order the request lines were read, however the workers are scheduled. The docs' scenario
// (a fail_until retry, a latency fault, the ledger read after the calls) and a sequence mock with a
// latency fault, each piped whole, answer as when each line waits for its answer, in every run.
func TestSimulationPipelined(t *testing.T) {
	scenario, err := os.ReadFile("../testdata/simulate/scenario.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	table := `"mocks":[{"id":"seq","tool":"refund","sequence":[{"n":1},{"n":2},{"n":3},{"n":4}]}],` +
		`"faults":[{"id":"slow","tool":"refund","kind":"latency","min_ms":1,"max_ms":50,"rate":0.5}]`
	seq := []string{`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"sdk_name":"t","sdk_version":"0","protocol_version":1,"required_capabilities":["simulation"],"preferred_encoding":"json"}}` + "\n"}
	for i := 1; i <= 150; i++ {
		if i%50 == 0 {
			seq = append(seq, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"simulation_ledger","params":{"scenario_id":"s%d"}}`+"\n", i, i%3))
			continue
		}
		seq = append(seq, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"mock_tool_call","params":{"scenario_id":"s%d","seed":7,"tool":"refund","args":{"order":"A"},%s}}`+"\n", i, i%3, table))
	}
	seq = append(seq, `{"jsonrpc":"2.0","id":"bye","method":"shutdown","params":{}}`+"\n")
	for _, tc := range []struct {
		name  string
		lines []string
	}{
		{"docs scenario", strings.SplitAfter(strings.TrimSpace(string(scenario)), "\n")},
		{"sequence and latency, three scenarios interleaved", seq},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := range tc.lines {
				tc.lines[i] = strings.TrimSuffix(tc.lines[i], "\n") + "\n"
			}
			want := serveOneAtATime(t, tc.lines)
			runs := pipelineRuns(t)
			for run := range runs {
				got := servePiped(t, tc.lines)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("run %d of %d: pipelined answers differ from one-at-a-time ones (-one at a time +pipelined):\n%s", run+1, runs, diff)
				}
			}
		})
	}
}
