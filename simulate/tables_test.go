package simulate

import (
	"errors"
	"testing"
)

// TestTables: the request's mocks and faults win, the base (config) fills what the request does not
// send, and a table sent again by equal text is the one parsed before.
func TestTables(t *testing.T) {
	base := table(t, `{"mocks": [{"id": "cfg-mock", "tool": "a", "result": 1}], "faults": [{"id": "cfg-fault", "tool": "a", "kind": "empty"}]}`)
	ts := NewTables(2)
	mocks := decode(t, `[{"id": "req-mock", "tool": "b", "result": 2}]`)
	faults := decode(t, `[{"id": "req-fault", "tool": "b", "kind": "timeout"}]`)

	if got, err := ts.For(base, nil, false, nil, false); err != nil || got != base {
		t.Errorf("no rules in the request: %v, %v; want the base table", got, err)
	}
	got, err := ts.For(base, mocks, true, nil, false)
	if err != nil || len(got.Mocks) != 1 || got.Mocks[0].ID != "req-mock" || len(got.Faults) != 1 || got.Faults[0].ID != "cfg-fault" {
		t.Fatalf("request mocks, config faults: %+v, %v", got, err)
	}
	again, _ := ts.For(base, decode(t, `[{"tool": "b", "result": 2, "id": "req-mock"}]`), true, nil, false)
	if again != got {
		t.Error("equal rule text (other member order) parsed again")
	}
	both, err := ts.For(nil, mocks, true, faults, true)
	if err != nil || both.Mocks[0].ID != "req-mock" || both.Faults[0].ID != "req-fault" {
		t.Fatalf("request mocks and faults: %+v, %v", both, err)
	}
	// A value Canonical refuses is named by its own field.
	var ce *CallError
	if _, err := ts.For(nil, nil, false, map[string]any{"x": make(chan int)}, true); !errors.As(err, &ce) || ce.Field != "faults" {
		t.Errorf("bad faults: %v, want a CallError on faults", err)
	}
}
