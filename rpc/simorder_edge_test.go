// simorder_edge_test.go: a scenario's order survives requests that fail, time out or come after shutdown.

package rpc

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSimulationOrderEdges: piped with calls that fail before their turn (sleep not a boolean), at their
// turn (attempt 0), sleep past their decision, and come after shutdown, a scenario's valid calls and
// ledger read still answer as one at a time, and the session ends (a watchdog of 10 s each way).
func TestSimulationOrderEdges(t *testing.T) {
	table := `"mocks":[{"id":"seq","tool":"refund","sequence":[{"n":1},{"n":2},{"n":3},{"n":4}]}],` +
		`"faults":[{"id":"slow","tool":"refund","kind":"latency","min_ms":30,"max_ms":30,"rate":1}]`
	call := func(id int, scenario, extra string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"mock_tool_call","params":{"scenario_id":%q,"seed":7,"tool":"refund","args":{"order":"A"},%s%s}}`+"\n", id, scenario, table, extra)
	}
	lines := []string{`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"sdk_name":"t","sdk_version":"0","protocol_version":1,"required_capabilities":["simulation"],"preferred_encoding":"json"}}` + "\n"}
	id := 1
	for i := range 40 {
		sc := fmt.Sprintf("s%d", i%2)
		extra := ""
		switch i % 5 {
		case 1:
			extra = `,"sleep":"yes"` // refused before its turn is waited
		case 2:
			extra = `,"attempt":0` // refused at its turn
		case 3:
			extra = `,"sleep":true` // sleeps after its decision
		}
		lines = append(lines, call(id, sc, extra))
		id++
		if i%10 == 9 {
			lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"simulation_ledger","params":{"scenario_id":%q}}`+"\n", id, sc))
			id++
		}
	}
	lines = append(lines, `{"jsonrpc":"2.0","id":"bye","method":"shutdown","params":{}}`+"\n")
	var want map[string]string
	done := make(chan struct{})
	go func() {
		defer close(done)
		want = serveOneAtATime(t, lines)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("one at a time, the session did not end within 10 s: a turn waits for good (simorder.go)")
	}
	for k, v := range want {
		if strings.Contains(v, `"error"`) && !strings.Contains(v, "sleep") && !strings.Contains(v, "attempt") {
			t.Fatalf("one at a time, %s answered %s", k, v)
		}
	}
	// After shutdown: the calls are refused, and their turns passed on.
	after := append(append([]string(nil), lines...), call(id, "s0", ""), call(id+1, "s0", `,"sleep":"yes"`))
	runs := min(pipelineRuns(t), 100)
	for run := range runs {
		got := servePiped(t, lines)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("run %d of %d: pipelined answers differ from one-at-a-time ones (-one at a time +pipelined):\n%s", run+1, runs, diff)
		}
		got = servePiped(t, after)
		for _, k := range []string{fmt.Sprint(id), fmt.Sprint(id + 1)} {
			if a, ok := got[k]; ok && !strings.Contains(a, "after shutdown") {
				t.Fatalf("run %d: call %s after shutdown answered %s", run+1, k, a)
			}
		}
	}
}
