// fuzz_test.go: fuzz targets for patterns (a check's spec) and traces.

package trajectory

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"attest-engine/tape"
)

// seedTraces are the example traces and the golden cases' trace.
func seedTraces(f *testing.F) [][]byte {
	var out [][]byte
	b, err := os.ReadFile("../testdata/tracecheck/traces/trajectory.json")
	if err != nil {
		f.Fatal(err)
	}
	out = append(out, b)
	for _, name := range []string{"customer_service", "multi_agent"} {
		b, err := os.ReadFile("../testdata/trajectory/examples/" + name + ".json")
		if err != nil {
			f.Fatal(err)
		}
		var ex struct {
			Trace   json.RawMessage `json:"trace"`
			Planted struct {
				Trace json.RawMessage `json:"trace"`
			} `json:"planted"`
		}
		if err := json.Unmarshal(b, &ex); err != nil {
			f.Fatal(err)
		}
		out = append(out, ex.Trace, ex.Planted.Trace)
	}
	return out
}

// seedSpecs are the golden cases' specs and the examples' checks.
func seedSpecs(f *testing.F) [][]byte {
	var out [][]byte
	b, err := os.ReadFile("../testdata/trajectory/cases.json")
	if err != nil {
		f.Fatal(err)
	}
	var cases []struct {
		Spec json.RawMessage `json:"spec"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		out = append(out, c.Spec)
	}
	return out
}

func decodeSpec(b []byte) (map[string]any, bool) {
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	var m map[string]any
	if d.Decode(&m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// checkOutcome is what every evaluation must satisfy, whatever it read.
func checkOutcome(t *testing.T, o Outcome) {
	t.Helper()
	if o.Pass != (o.Failed == nil) {
		t.Fatalf("pass %v with failure %+v", o.Pass, o.Failed)
	}
	if !(o.Score >= 0 && o.Score <= 1) {
		t.Fatalf("score %v outside [0, 1]", o.Score)
	}
	if o.Explanation == "" || len(o.Explanation) > 16<<10 {
		t.Fatalf("explanation of %d bytes: every list and quoted text in it is cut", len(o.Explanation))
	}
	if f := o.Failed; f != nil && len(f.Reason) > 4<<10 {
		t.Fatalf("failure reason of %d bytes", len(f.Reason))
	}
	if f := o.Failed; f != nil && (f.Step < 0 || f.Location == "" || f.Reason == "") {
		t.Fatalf("failure without a place: %+v", f)
	}
}

// FuzzCompile: any spec compiles to a check or to a *SpecError, never a
// panic; a compiled check evaluates on the seed traces with a consistent
// outcome.
func FuzzCompile(f *testing.F) {
	for _, s := range seedSpecs(f) {
		f.Add(s)
	}
	var roots []tape.Value
	for _, b := range seedTraces(f) {
		doc, err := tape.Parse(b)
		if err != nil {
			f.Fatal(err)
		}
		roots = append(roots, doc.Root())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, ok := decodeSpec(b)
		if !ok {
			return
		}
		c, err := Compile(m, nil)
		if err != nil {
			if _, ok := err.(*SpecError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		for _, r := range roots {
			o, err := c.Eval(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			checkOutcome(t, o)
		}
	})
}

// FuzzEval: any JSON text read as a trace (validated or not) evaluates
// with every kind, in both scopes, with a consistent outcome.
func FuzzEval(f *testing.F) {
	for _, b := range seedTraces(f) {
		f.Add(b)
	}
	f.Add([]byte(`{"steps":{"a":1}}`))
	f.Add([]byte(`{"steps":[{"name":3,"type":"tool_call","sub_trace":{"steps":[{"name":"x"}]}}]}`))
	var checks []*Check
	for _, s := range []string{
		`{"check":"tool_args","tool":"process_refund","scope":"tree","args":{"order_id":{"ref":"input.order_id"},"amount":{"exact":1,"tolerance":0.5}}}`,
		`{"check":"trajectory_match","mode":"strict","scope":"tree","reference":["lookup_order",{"tool":"search_kb","max":"unbounded"},{"tool":"process_refund","optional":true,"args":{"x":{"subset":{"a":1}}}}]}`,
		`{"check":"trajectory_match","mode":"unordered","reference":[{"max":"unbounded"},"a",{"tool":"b","min":2,"max":3}]}`,
		`{"check":"trajectory_match","mode":"subset","reference":[{"type":"tool_call","max":5},"x"]}`,
		`{"check":"trajectory_match","mode":"superset","scope":"tree","reference":[{"tool":"a","args":{"q":{"regex":"^a"}}},{"result":{"r":{"schema":{"type":"string"}}}}]}`,
		`{"check":"trajectory_alignment","threshold":0.5,"scope":"tree","reference":["a",{"tool":"b","cost":3,"max":"unbounded"},{"optional":true}]}`,
		`{"check":"trajectory_alignment","threshold":0.5,"order":"unordered","unexpected_cost":0.5,"reference":["a",{"tool":"b","cost":3,"min":2,"max":4}]}`,
		`{"check":"temporal","constraints":[{"rule":"before","a":"a","b":"b"},{"rule":"never_after","a":"a","b":"b","scope":"tree"},{"rule":"immediately_after","a":{"type":"llm_call"},"b":"b"},{"rule":"at_most","n":1,"a":"a"},{"rule":"between","a":"a","b":"b","c":{"args":{"k":{"any":true}}}},{"rule":"eventually","a":{"tool":"z","args":{"k":{"ref":"steps[*].name"}}}}]}`,
	} {
		m, _ := decodeSpec([]byte(s))
		c, err := Compile(m, nil)
		if err != nil {
			f.Fatalf("%s: %v", s, err)
		}
		checks = append(checks, c)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := tape.Parse(b)
		if err != nil {
			return
		}
		for _, c := range checks {
			o, err := c.Eval(context.Background(), doc.Root())
			if err != nil {
				t.Fatal(err)
			}
			checkOutcome(t, o)
		}
	})
}
