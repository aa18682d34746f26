// bench_test.go: a 10,000-step trace against a 50-pattern reference, every kind, and the stated worst cases.

package trajectory

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"attest-engine/tape"
)

// longTrace is a trace of n tool calls cycling through p tools in runs
// (t00 ×r, t01 ×r, …), each with args {session, n}, and an input.session
// the reference's refs point at.
func longTrace(n, p int) []byte {
	steps := make([]any, n)
	run := max(n/p, 1)
	for i := range steps {
		steps[i] = map[string]any{"type": "tool_call", "name": fmt.Sprintf("t%02d", (i/run)%p),
			"args": map[string]any{"session": "S-1", "n": i}, "result": map[string]any{"ok": true}}
	}
	b, _ := json.Marshal(map[string]any{"schema_version": 1, "trace_id": "trc_long", "input": map[string]any{"session": "S-1"},
		"steps": steps, "output": map[string]any{"message": "done"}})
	return b
}

// longReference is p patterns, one per tool, each repeated any number of
// times, checking args by ref, regex and schema in turn.
func longReference(p int) []any {
	ref := make([]any, p)
	for i := range ref {
		var arg any
		switch i % 3 {
		case 0:
			arg = map[string]any{"session": map[string]any{"ref": "input.session"}}
		case 1:
			arg = map[string]any{"session": map[string]any{"regex": "^S-\\d+$"}}
		default:
			arg = map[string]any{"n": map[string]any{"schema": map[string]any{"type": "integer", "minimum": 0}}}
		}
		ref[i] = map[string]any{"tool": fmt.Sprintf("t%02d", i), "args": arg, "max": "unbounded"}
	}
	return ref
}

func withoutCounts(p any) any {
	m := map[string]any{}
	for k, v := range p.(map[string]any) {
		if k != "max" {
			m[k] = v
		}
	}
	return m
}

// longChecks are the specs benchmarked, by name.
func longChecks(p int) []struct {
	name string
	spec map[string]any
} {
	ref := longReference(p)
	cons := make([]any, 0, 4)
	cons = append(cons,
		map[string]any{"rule": "before", "a": "t00", "b": fmt.Sprintf("t%02d", p-1)},
		map[string]any{"rule": "never_after", "a": fmt.Sprintf("t%02d", p-1), "b": "t00"},
		map[string]any{"rule": "between", "a": "t00", "b": fmt.Sprintf("t%02d", p-1), "c": withoutCounts(ref[p/2])},
		map[string]any{"rule": "at_most", "n": 10000, "a": withoutCounts(ref[1])})
	return []struct {
		name string
		spec map[string]any
	}{
		{"tool_args", map[string]any{"check": "tool_args", "tool": "t00", "args": map[string]any{"session": map[string]any{"ref": "input.session"}}}},
		{"strict", map[string]any{"check": "trajectory_match", "mode": "strict", "reference": ref}},
		{"unordered", map[string]any{"check": "trajectory_match", "mode": "unordered", "reference": ref}},
		{"subset", map[string]any{"check": "trajectory_match", "mode": "subset", "reference": ref}},
		{"superset", map[string]any{"check": "trajectory_match", "mode": "superset", "reference": ref}},
		{"align_ordered", map[string]any{"check": "trajectory_alignment", "threshold": 0.9, "reference": ref}},
		{"align_unordered", map[string]any{"check": "trajectory_alignment", "order": "unordered", "threshold": 0.9, "reference": ref}},
		{"temporal", map[string]any{"check": "temporal", "constraints": cons}},
	}
}

func compileLong(tb testing.TB, spec map[string]any) *Check {
	b, _ := json.Marshal(spec)
	m, ok := decodeSpec(b)
	if !ok {
		tb.Fatal("spec")
	}
	c, err := Compile(m, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// BenchmarkLong: the stated bound, a 10,000-step trace against a 50-pattern
// reference (args checked by ref, regex and schema), each kind; every
// check passes, so every step is matched against its pattern.
//
//	go test ./trajectory -run '^$' -bench Long -benchmem
func BenchmarkLong(b *testing.B) {
	doc, err := tape.Parse(longTrace(10000, 50))
	if err != nil {
		b.Fatal(err)
	}
	for _, lc := range longChecks(50) {
		c := compileLong(b, lc.spec)
		b.Run(lc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				o, err := c.Eval(context.Background(), doc.Root())
				if err != nil || !o.Pass {
					b.Fatalf("%v: %s", err, o.Explanation)
				}
			}
		})
	}
}

// BenchmarkWorst: the stated worst cases at the bounds: 10,000 steps that
// each match all 64 patterns of a reference (no tool named, so every step
// is tested against every pattern), for the assignment (O((n+P)·P²)), and a
// reference of 1,024 count states for the ordered alignment (O(n·S)).
func BenchmarkWorst(b *testing.B) {
	doc, err := tape.Parse(longTrace(10000, 50))
	if err != nil {
		b.Fatal(err)
	}
	wild := make([]any, 64)
	states := make([]any, 64)
	for i := range wild {
		// Distinct lower bounds keep the steps moving between patterns.
		wild[i] = map[string]any{"args": map[string]any{"session": map[string]any{"any": true}}, "min": i % 4, "max": "unbounded"}
		states[i] = map[string]any{"tool": fmt.Sprintf("t%02d", i%50), "min": 0, "max": 15}
	}
	for _, w := range []struct {
		name string
		spec map[string]any
	}{
		{"unordered_64_wildcards", map[string]any{"check": "trajectory_match", "mode": "unordered", "reference": wild}},
		{"align_unordered_64_wildcards", map[string]any{"check": "trajectory_alignment", "order": "unordered", "threshold": 0, "reference": wild}},
		{"align_ordered_1024_states", map[string]any{"check": "trajectory_alignment", "threshold": 0, "reference": states}},
		{"strict_1024_states", map[string]any{"check": "trajectory_match", "reference": states}},
	} {
		c := compileLong(b, w.spec)
		b.Run(w.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Eval(context.Background(), doc.Root()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
