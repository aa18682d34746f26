package simulate

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParseTable feeds arbitrary JSON to the rule parser: it returns a table or an error, never panics,
// and a table it accepts answers a call without panicking.
func FuzzParseTable(f *testing.F) {
	f.Add([]byte(streamTable))
	f.Add([]byte(behaviourTable))
	f.Add([]byte(`{"mocks": [{"id": "m", "tool": "*", "match": {"jsonpath": "$[?@.a == 1]"}, "result": null}], "faults": [{"id": "f", "tool": "?", "kind": "latency", "min_ms": 1, "max_ms": 9}]}`))
	f.Add([]byte(`{"faults": [{"id": "f", "tool": "t", "kind": "fail_until", "k": 1e3, "status": 429.0}]}`))
	f.Add([]byte(`{"mocks": [{"id": "m", "tool": "t", "sequence": [1, "2", {"3": [4]}], "match": {"schema": {"$ref": "#/$defs/a", "$defs": {"a": {"type": "object"}}}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var v map[string]any
		if d.Decode(&v) != nil {
			return
		}
		tb, err := ParseTable(v["mocks"], v["faults"])
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		for _, tool := range []string{"t", "search_web", "lookup_order"} {
			sim := New()
			for range 3 {
				if a, err := sim.Call(tb, Call{ScenarioID: "s", Seed: "1", Tool: tool, Args: map[string]any{"a": json.Number("1")}}); err == nil {
					if _, err := Canonical(a.Wire()); err != nil {
						t.Fatalf("answer is not JSON: %v", err)
					}
				}
			}
		}
	})
}

// FuzzCall sends arbitrary args, tools and attempts through a fixed table: an answer whose outcome is the
// same when the call is repeated in a new Simulator (determinism), or an error.
func FuzzCall(f *testing.F) {
	f.Add("lookup_order", []byte(`{"order_id": "A1"}`), 0)
	f.Add("refund", []byte(`{"order": {"id": "A1"}}`), 3)
	f.Add("search_web", []byte(`{"q": "\u0000\ud83d\ude00", "n": 1e308}`), 1)
	f.Add("echo_x", []byte(`{"text": "hi", "n": 1.0}`), 0)
	tb := table(f, behaviourTable+"")
	stream := table(f, streamTable)
	f.Fuzz(func(t *testing.T, tool string, args []byte, attempt int) {
		d := json.NewDecoder(bytes.NewReader(args))
		d.UseNumber()
		var v any
		if d.Decode(&v) != nil {
			return
		}
		for _, table := range []*Table{tb, stream} {
			c := Call{ScenarioID: "fuzz", Seed: "s", Tool: tool, Args: v, Attempt: attempt}
			a1, err1 := New().Call(table, c)
			a2, err2 := New().Call(table, c)
			if (err1 == nil) != (err2 == nil) {
				t.Fatalf("one call failed, its repeat did not: %v / %v", err1, err2)
			}
			if err1 != nil {
				continue
			}
			w1, e1 := Canonical(a1.Wire())
			w2, _ := Canonical(a2.Wire())
			if e1 != nil || !bytes.Equal(w1, w2) {
				t.Fatalf("the same call answered differently: %s / %s (%v)", w1, w2, e1)
			}
		}
	})
}

// FuzzCanonical checks that canonical text is JSON that canonicalises to itself.
func FuzzCanonical(f *testing.F) {
	f.Add([]byte(`{"b": [1e21, 1e-7, -0.0, "\u0001é"], "\ue000": 1, "\ud83d\ude00": 2}`))
	f.Add([]byte(`[0.1, 123456789012345678901234567890, 5e-324, "<&>"]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var v any
		if d.Decode(&v) != nil {
			return
		}
		c, err := Canonical(v)
		if err != nil {
			return
		}
		d = json.NewDecoder(bytes.NewReader(c))
		d.UseNumber()
		var w any
		if err := d.Decode(&w); err != nil {
			t.Fatalf("canonical text %s is not JSON: %v", c, err)
		}
		c2, err := Canonical(w)
		if err != nil || !bytes.Equal(c, c2) {
			t.Fatalf("not idempotent: %s → %s (%v)", c, c2, err)
		}
	})
}
