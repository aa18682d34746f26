// trajectory_test.go: the trajectory checks through the engine: golden cases, and the upstream SDKs' examples with a planted failure.

package assert

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"attest-engine/trace"

	"github.com/google/go-cmp/cmp"
)

// TestTrajectoryGolden runs testdata/trajectory/cases.json: each kind,
// mode and rule passing and failing, with the step named, and every 1002.
func TestTrajectoryGolden(t *testing.T) { runGolden(t, "trajectory", "trace") }

// An example of testdata/trajectory/examples: a trace written after an
// upstream SDK example, the same trace with a failure planted, the checks
// a user writes with the spec's six, and with the trajectory checks.
type example struct {
	Name    string
	Trace   map[string]any
	Planted struct {
		What     string
		Trace    map[string]any
		At       FailedStep
		CaughtBy []string
	}
	SpecChecks       []Assertion
	TrajectoryChecks []Assertion
}

func loadExample(t *testing.T, path string) example {
	t.Helper()
	m, _ := decodeFile(t, path).(map[string]any)
	var ex example
	ex.Name, _ = m["name"].(string)
	ex.Trace, _ = m["trace"].(map[string]any)
	pl, _ := m["planted"].(map[string]any)
	ex.Planted.What, _ = pl["what"].(string)
	ex.Planted.Trace, _ = pl["trace"].(map[string]any)
	at, _ := pl["at"].(map[string]any)
	ex.Planted.At.AgentID, _ = at["agent_id"].(string)
	ex.Planted.At.Tool, _ = at["tool"].(string)
	if n, ok := at["step"].(interface{ Int64() (int64, error) }); ok {
		i, _ := n.Int64()
		ex.Planted.At.Step = int(i)
	}
	for _, id := range pl["caught_by"].([]any) {
		ex.Planted.CaughtBy = append(ex.Planted.CaughtBy, id.(string))
	}
	for _, f := range []struct {
		key string
		dst *[]Assertion
	}{{"spec_checks", &ex.SpecChecks}, {"trajectory_checks", &ex.TrajectoryChecks}} {
		as, err := Parse(m[f.key].([]any))
		if err != nil {
			t.Fatalf("%s %s: %v", path, f.key, err)
		}
		*f.dst = as
	}
	for _, tr := range []map[string]any{ex.Trace, ex.Planted.Trace} {
		if _, err := trace.Validate(tr, trace.Options{}); err != nil {
			t.Fatalf("%s: a trace is invalid: %v", path, err)
		}
	}
	return ex
}

// exampleAnswer is one result of an example, as the golden file keeps it.
type exampleAnswer struct {
	Trace       string      `json:"trace"`
	ID          string      `json:"assertion_id"`
	Status      Status      `json:"status"`
	Score       float64     `json:"score"`
	Explanation string      `json:"explanation"`
	FailedStep  *FailedStep `json:"failed_step,omitempty"`
}

// TestTrajectoryExamples: on the upstream examples the spec's six checks
// and the trajectory checks all pass; with the failure planted, the six
// still all pass, and every trajectory check meant to catch it fails,
// naming the planted step (agent, index, tool).
func TestTrajectoryExamples(t *testing.T) {
	files, err := filepath.Glob("../testdata/trajectory/examples/*.json")
	if err != nil || len(files) < 2 {
		t.Fatalf("examples: %v %v", files, err)
	}
	eng, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	var got []exampleAnswer
	for _, f := range files {
		ex := loadExample(t, f)
		all := append(append([]Assertion{}, ex.SpecChecks...), ex.TrajectoryChecks...)
		spec := map[string]bool{}
		for _, a := range ex.SpecChecks {
			spec[a.ID] = true
		}
		caught := map[string]bool{}
		for _, id := range ex.Planted.CaughtBy {
			caught[id] = true
		}
		for _, run := range []struct {
			name string
			tr   map[string]any
		}{{ex.Name, ex.Trace}, {ex.Name + "_planted", ex.Planted.Trace}} {
			rs, err := eng.Evaluate(context.Background(), run.tr, all)
			if err != nil {
				t.Fatalf("%s: %v", run.name, err)
			}
			planted := strings.HasSuffix(run.name, "_planted")
			for _, r := range rs {
				got = append(got, exampleAnswer{run.name, r.AssertionID, r.Status, r.Score, r.Explanation, r.FailedStep})
				switch {
				case !planted || spec[r.AssertionID]:
					if r.Status != Pass {
						t.Errorf("%s: %s %s, want pass (the spec's checks miss the planted failure: %s): %s", run.name, r.AssertionID, r.Status, ex.Planted.What, r.Explanation)
					}
				case caught[r.AssertionID]:
					f := r.FailedStep
					if r.Status != HardFail || f == nil || f.AgentID != ex.Planted.At.AgentID || f.Step != ex.Planted.At.Step || f.Tool != ex.Planted.At.Tool {
						t.Errorf("%s: %s %s at %+v, want hard_fail at %+v: %s", run.name, r.AssertionID, r.Status, f, ex.Planted.At, r.Explanation)
					}
					delete(caught, r.AssertionID)
				}
			}
		}
		for id := range caught {
			t.Errorf("%s: caught_by names %s, which is not a trajectory check of the example", ex.Name, id)
		}
	}
	want := goldenFile(t, "../testdata/trajectory/examples.golden.json", got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("examples (-want +got):\n%s", diff)
	}
	if _, err := os.Stat("../testdata/trajectory/examples.golden.json"); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkTrajectory10k: the trajectory checks' stated bound through the engine: a
// 10,000-step trace (50 tools, 200 calls each in runs) against a
// 50-pattern reference whose args are checked by ref, regex and schema,
// one assertion per batch, beside the spec's contains_in_order over the
// same 50 tools as the baseline, in one run:
//
//	go test ./assert -run '^$' -bench Trajectory10k -benchmem -count 6 | benchstat -col /check -
func BenchmarkTrajectory10k(b *testing.B) {
	steps := make([]any, 10000)
	tools := make([]any, 50)
	ref := make([]any, 50)
	for i := range tools {
		tools[i] = fmt.Sprintf("t%02d", i)
		arg := map[string]any{"session": map[string]any{"ref": "input.session"}}
		switch i % 3 {
		case 1:
			arg = map[string]any{"session": map[string]any{"regex": `^S-\d+$`}}
		case 2:
			arg = map[string]any{"n": map[string]any{"schema": map[string]any{"type": "integer", "minimum": 0}}}
		}
		ref[i] = map[string]any{"tool": tools[i], "args": arg, "max": "unbounded"}
	}
	for i := range steps {
		steps[i] = map[string]any{"type": "tool_call", "name": tools[i/200], "args": map[string]any{"session": "S-1", "n": i}, "result": map[string]any{"ok": true}}
	}
	v, err := encodeTrace(map[string]any{"schema_version": 1, "trace_id": "trc_long", "input": map[string]any{"session": "S-1"},
		"steps": steps, "output": map[string]any{"message": "done"}})
	if err != nil {
		b.Fatal(err)
	}
	eng, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		spec map[string]any
	}{
		{"contains_in_order", map[string]any{"check": "contains_in_order", "tools": tools}},
		{"tool_args", map[string]any{"check": "tool_args", "tool": "t00", "args": map[string]any{"session": map[string]any{"ref": "input.session"}}}},
		{"strict", map[string]any{"check": "trajectory_match", "mode": "strict", "reference": ref}},
		{"unordered", map[string]any{"check": "trajectory_match", "mode": "unordered", "reference": ref}},
		{"subset", map[string]any{"check": "trajectory_match", "mode": "subset", "reference": ref}},
		{"superset", map[string]any{"check": "trajectory_match", "mode": "superset", "reference": ref}},
		{"align_ordered", map[string]any{"check": "trajectory_alignment", "threshold": 0.9, "reference": ref}},
		{"align_unordered", map[string]any{"check": "trajectory_alignment", "order": "unordered", "threshold": 0.9, "reference": ref}},
		{"temporal", map[string]any{"check": "temporal", "constraints": []any{
			map[string]any{"rule": "before", "a": "t00", "b": "t49"},
			map[string]any{"rule": "never_after", "a": "t49", "b": "t00"},
			map[string]any{"rule": "between", "a": "t00", "b": "t49", "c": map[string]any{"tool": "t25", "args": map[string]any{"session": map[string]any{"ref": "input.session"}}}},
			map[string]any{"rule": "at_most", "n": 200, "a": "t01"}}}},
	} {
		// The spec goes through JSON, as a request's would (numbers as json.Number).
		raw, _ := json.Marshal(c.spec)
		spec, _ := trace.Decode(raw)
		as := []Assertion{{ID: "a", Type: "trace", Spec: spec.(map[string]any)}}
		b.Run("check="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rs, err := eng.EvaluateValue(context.Background(), v, as)
				if err != nil || rs[0].Status != Pass {
					b.Fatalf("%v %+v", err, rs)
				}
			}
		})
	}
}
