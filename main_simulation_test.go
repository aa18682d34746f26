// main_simulation_test.go: mock_tool_call's determinism across processes and orders, over pipes.

package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
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

// simLedgerResident is the stated bound on the engine's peak RSS when its simulation ledgers are full
// (simulate.MaxLedgerBytes, 64 MiB, counted): the counted bytes are what the ledgers keep, the collector
// lets the heap grow to about twice the live heap before it collects, and the requests in flight and the
// decoded args awaiting collection take the rest (about 200 MiB measured with 4 KiB args; docs/simulation.md).
const simLedgerResident = 256 << 20

// TestSimulationLedgerResident fills the ledgers of a session past their bound with 16 KiB args over the
// binary's pipes, reads every page of one scenario's ledger, and checks the peak RSS: the calls past the
// bound are 3003, no ledger answer is larger than a page (simulate.MaxLedgerPage) and the process stays
// within simLedgerResident.
func TestSimulationLedgerResident(t *testing.T) {
	if testing.Short() {
		t.Skip("fills 64 MiB of ledgers")
	}
	bin := buildEngine(t)
	cmd := exec.Command(bin, "--log-level=error")
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	const calls = 6_000 // 16 KiB of args each: the 64 MiB bound is reached at about 3,900
	pad := strings.Repeat("x", 16<<10)
	go func() {
		w := bufio.NewWriterSize(stdin, 1<<20)
		fmt.Fprintln(w, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"sdk_name":"t","sdk_version":"0","protocol_version":1,"required_capabilities":["simulation"],"preferred_encoding":"json"}}`)
		for i := range calls {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"mock_tool_call","params":{"scenario_id":"s%d","seed":1,"tool":"t","args":{"i":%d,"p":%q},"mocks":[{"id":"m","tool":"*","result":"ok"}]}}`+"\n", i, i%2, i, pad)
		}
		w.Flush()
	}()
	r := bufio.NewReaderSize(stdout, 1<<20)
	limited := 0
	for range calls + 1 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(line, `"code":3003`) {
			limited++
		}
	}
	if limited == 0 {
		t.Fatalf("%d calls of 4 KiB args and none refused with 3003: the ledger bound was not reached", calls)
	}
	// Page through scenario s0's ledger.
	seen, offset := 0, any(0)
	for page := 0; offset != nil; page++ {
		fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":"p%d","method":"simulation_ledger","params":{"scenario_id":"s0","offset":%v}}`+"\n", page, offset)
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if len(line) > 5<<20 {
			t.Fatalf("ledger page %d is a %d-byte line: more than a page", page, len(line))
		}
		var a struct {
			Result struct {
				Entries []struct {
					Seq int `json:"seq"`
				} `json:"entries"`
				Total      int `json:"total"`
				NextOffset any `json:"next_offset"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &a); err != nil || len(a.Result.Entries) == 0 {
			t.Fatalf("ledger page %d: %v: %.300s", page, err, line)
		}
		for _, e := range a.Result.Entries {
			if seen++; e.Seq != seen {
				t.Fatalf("ledger page %d: entry seq %d, want %d", page, e.Seq, seen)
			}
		}
		offset = a.Result.NextOffset
		if offset == nil && seen != a.Result.Total {
			t.Fatalf("the pages end after %d entries of %d", seen, a.Result.Total)
		}
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var hwm int64
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:")), "%d", &hwm)
		}
	}
	t.Logf("%d calls, %d refused (3003), scenario s0's ledger %d entries; peak RSS %.1f MiB", calls, limited, seen, float64(hwm)/1024)
	if hwm<<10 > simLedgerResident {
		t.Errorf("peak RSS %.1f MiB with full ledgers, over the stated %d MiB", float64(hwm)/1024, simLedgerResident>>20)
	}
}
