// main_simulation_test.go: mock_tool_call's determinism across processes and orders, over pipes.

package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// simCall is one of the 10,000 calls of the decision stream (simulate/stream_test.go builds the same).
type simCall struct {
	i          int
	tool, args string
}

func simCalls() []simCall {
	tools := []string{"search_web", "search_docs", "lookup_order", "refund", "send_email"}
	calls := make([]simCall, 10_000)
	for i := range calls {
		calls[i] = simCall{i, tools[i%5], fmt.Sprintf(`{"q":"query %d","n":%d}`, i%1499, i%3)}
	}
	return calls
}

// runSimProcess starts an engine with the stream's rules in its config, sends every call with no wait (the
// engine keeps 64 in flight and stops reading beyond), and returns each answer by (tool, args, occurrence).
func runSimProcess(t *testing.T, bin string, calls []simCall) map[string]string {
	t.Helper()
	cmd := exec.Command(bin, "--log-level=error", "--config", "testdata/simulate/stream_config.json")
	cmd.Env = []string{"PATH=/usr/bin:/bin"} // no provider key: simulation needs none
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	go func() {
		w := bufio.NewWriter(stdin)
		fmt.Fprintln(w, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"sdk_name":"t","sdk_version":"0","protocol_version":1,"required_capabilities":["simulation"],"preferred_encoding":"json"}}`)
		for _, c := range calls {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"mock_tool_call","params":{"scenario_id":"stream","seed":"20260401","tool":%q,"args":%s}}`+"\n", c.i, c.tool, c.args)
		}
		fmt.Fprintln(w, `{"jsonrpc":"2.0","id":"bye","method":"shutdown","params":{}}`)
		w.Flush()
		stdin.Close()
	}()
	byID := map[string]simCall{}
	for _, c := range calls {
		byID[fmt.Sprint(c.i)] = c
	}
	out := map[string]string{}
	r := bufio.NewReaderSize(stdout, 1<<20)
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var a struct {
			ID     json.RawMessage `json:"id"`
			Result map[string]any  `json:"result"`
			Error  any             `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("answer %q: %v", line, err)
		}
		c, ok := byID[string(a.ID)]
		if !ok {
			continue // initialize, shutdown
		}
		if a.Error != nil {
			t.Fatalf("call %d: %s", c.i, line)
		}
		delete(a.Result, "warnings") // reported on whichever call meets an overlap first
		text, _ := json.Marshal(a.Result)
		out[fmt.Sprintf("%s %s %v", c.tool, c.args, a.Result["occurrence"])] = string(text)
	}
	if len(out) != len(calls) {
		t.Fatalf("%d outcomes for %d calls", len(out), len(calls))
	}
	return out
}

// TestSimulationAcrossProcesses sends the stream's 10,000 calls to two engine processes in three orders,
// 64 in flight: every (tool, args, occurrence) is answered identically.
func TestSimulationAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts engine processes")
	}
	bin := buildEngine(t)
	calls := simCalls()
	reversed := slices.Clone(calls)
	slices.Reverse(reversed)
	shuffled := slices.Clone(calls)
	slices.SortFunc(shuffled, func(a, b simCall) int {
		ha, hb := sha256.Sum256([]byte(fmt.Sprint(a.i))), sha256.Sum256([]byte(fmt.Sprint(b.i)))
		return slices.Compare(ha[:], hb[:])
	})
	first := runSimProcess(t, bin, calls)
	for name, order := range map[string][]simCall{"reversed": reversed, "shuffled": shuffled} {
		if diff := cmp.Diff(first, runSimProcess(t, bin, order)); diff != "" {
			t.Errorf("process 2, %s order, differs from process 1 (-first +%s):\n%s", name, name, diff)
		}
	}
	// The answers carry faults of every kind in the table.
	kinds := map[string]bool{}
	for _, text := range first {
		for _, k := range []string{"error", "latency", "malformed", "inject"} {
			if strings.Contains(text, `"kind":"`+k+`"`) {
				kinds[k] = true
			}
		}
	}
	if len(kinds) != 4 {
		t.Errorf("fault kinds seen: %v, want all 4", kinds)
	}
}
