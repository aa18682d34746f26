// tracetree_test.go: golden cases of trace_tree and agent scoping over a three-level tree; tree summary; fuzzing.

package assert

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"attest-engine/provider"
	"attest-engine/tape"
	"attest-engine/trace"

	"github.com/google/go-cmp/cmp"
)

const treeDir = "../testdata/multi_agent"

// treeCase is one entry of testdata/multi_agent/cases.json: an assertion
// (type trace_tree unless Type says otherwise) on one of the tree files.
type treeCase struct {
	Name    string         `json:"name"`
	Reason  string         `json:"reason"`
	Trace   string         `json:"trace"`
	Type    string         `json:"type,omitempty"`
	AgentID string         `json:"agent_id,omitempty"`
	Spec    map[string]any `json:"spec"`
}

// treeAnswer is what results.golden.json records. Other layers' cases keep
// only status and score: their wording belongs to those layers' goldens.
type treeAnswer struct {
	Name        string  `json:"name"`
	Status      Status  `json:"status,omitempty"`
	Score       float64 `json:"score"`
	Explanation string  `json:"explanation,omitempty"`
	Error       string  `json:"error,omitempty"`
	Detail      string  `json:"detail,omitempty"`
}

func loadTree(t testing.TB, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(treeDir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := trace.Decode(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if _, verr := trace.Validate(v, trace.Options{}); verr != nil {
		t.Fatalf("%s is not a valid trace: %v", name, verr)
	}
	return v.(map[string]any)
}

func TestTraceTreeGolden(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(treeDir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []treeCase
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers as json.Number, as on the wire
	if err := dec.Decode(&cases); err != nil {
		t.Fatal(err)
	}
	eng, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	traces := map[string]map[string]any{}
	var got []treeAnswer
	for _, tc := range cases {
		if tc.Reason == "" {
			t.Errorf("case %s has no reason", tc.Name)
		}
		if traces[tc.Trace] == nil {
			traces[tc.Trace] = loadTree(t, tc.Trace)
		}
		typ := tc.Type
		if typ == "" {
			typ = "trace_tree"
		}
		a := Assertion{ID: tc.Name, Type: typ, Spec: tc.Spec, AgentID: tc.AgentID}
		res, err := eng.Evaluate(context.Background(), traces[tc.Trace], []Assertion{a})
		ans := treeAnswer{Name: tc.Name}
		var ae *Error
		switch {
		case errors.As(err, &ae):
			ans.Error, ans.Detail = ae.Error(), ae.Detail
		case err != nil:
			t.Fatalf("%s: %v", tc.Name, err)
		default:
			ans.Status, ans.Score = res[0].Status, res[0].Score
			if typ == "trace_tree" || strings.HasPrefix(res[0].Explanation, "Agent '"+tc.AgentID+"'") {
				ans.Explanation = res[0].Explanation
			}
		}
		got = append(got, ans)
	}
	wantAns := goldenFile(t, filepath.Join(treeDir, "results.golden.json"), got)
	byName := map[string]string{}
	for _, tc := range cases {
		byName[tc.Name] = tc.Reason
	}
	for i := range max(len(got), len(wantAns)) {
		var g, w treeAnswer
		if i < len(got) {
			g = got[i]
		}
		if i < len(wantAns) {
			w = wantAns[i]
		}
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("%s (%s): (-want +got)\n%s", g.Name, byName[g.Name], diff)
		}
	}
}

func TestSummarizeTree(t *testing.T) {
	tests := []struct {
		name, reason string
		trace        string
		want         TreeSummary
	}{
		{name: "three levels", reason: "orchestrator -> researcher -> two tool agents: depth 2, four traces, exact decimal sums",
			trace: "tree", want: TreeSummary{Depth: 2, AgentCount: 4, AgentIDs: []string{"orchestrator", "researcher", "web-search-agent", "db-agent"},
				Tokens: 2200, CostUSD: 0.0071, LatencyMS: 10200}},
		{name: "shared ids and a bad link", reason: "a shared agent_id is listed once; a trace without one is counted but not listed; a wrong parent_trace_id is reported",
			trace: "tree_dup", want: TreeSummary{Depth: 1, AgentCount: 4, AgentIDs: []string{"orchestrator", "tool-agent"}, LatencyMS: 250,
				LinkErrors: []string{"sub_trace of step 'second_call' (steps[1]): parent_trace_id 'trc_wrong' does not match the parent trace_id 'trc_dup'"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SummarizeTree(loadTree(t, tc.trace))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: (-want +got)\n%s", tc.reason, diff)
			}
		})
	}
}

// TestScopedIdempotency: a request_id names one assertion; the same spec
// scoped to another agent must not be answered from the cache.
func TestScopedIdempotency(t *testing.T) {
	eng, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	tr := loadTree(t, "tree")
	spec := map[string]any{"check": "delegation_depth", "max_depth": json.Number("1")}
	first, err := eng.Evaluate(context.Background(), tr, []Assertion{{ID: "a", Type: "trace_tree", Spec: spec, RequestID: "r1", AgentID: "researcher"}})
	if err != nil {
		t.Fatal(err)
	}
	second, err := eng.Evaluate(context.Background(), tr, []Assertion{{ID: "a", Type: "trace_tree", Spec: spec, RequestID: "r1"}})
	if err != nil {
		t.Fatal(err)
	}
	if first[0].Status != Pass || second[0].Status != HardFail {
		t.Errorf("scoped pass then root fail expected, got %s then %s", first[0].Status, second[0].Status)
	}
}

// TestScopedCostlyShareTree: costly assertions run concurrently, and each
// scoped one reads the batch's one trace tree (run under -race).
func TestScopedCostlyShareTree(t *testing.T) {
	eng, err := New(Config{Settings: provider.Settings{
		Embedding: provider.Config{Provider: "lexical"},
		Getenv:    func(string) string { return "" },
	}})
	if err != nil {
		t.Fatal(err)
	}
	tr := loadTree(t, "tree")
	var as []Assertion
	for i, agent := range []string{"orchestrator", "researcher", "web-search-agent", "db-agent", "researcher", "db-agent"} {
		as = append(as, Assertion{ID: fmt.Sprintf("e%d", i), Type: "embedding", AgentID: agent,
			Spec: map[string]any{"target": "output", "reference": "done", "threshold": json.Number("0")}})
	}
	rs, err := eng.Evaluate(context.Background(), tr, as)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(as) {
		t.Fatalf("%d results for %d assertions", len(rs), len(as))
	}
	for i, r := range rs {
		if r.Status != Pass {
			t.Errorf("%s scoped to %s: %s (%s), want pass: every agent of the tree has an output", r.AssertionID, as[i].AgentID, r.Status, r.Explanation)
		}
	}
}

// TestAgentOutputContainsFoldsAsContent: agent_output_contains matches its
// value as content's contains does, so the two never disagree on one text.
func TestAgentOutputContainsFoldsAsContent(t *testing.T) {
	tests := []struct {
		value, output string
		caseSensitive bool
		want          bool
		reason        string
	}{
		{"STOP", "ſtop now", false, true, "the long s folds to s (Unicode simple folding, not lower-casing)"},
		{"k", "5 \u212a", false, true, "the Kelvin sign folds to k"},
		{"Refund", "your refund is processed", false, true, "ASCII, ignoring case"},
		{"Refund", "your refund is processed", true, false, "ASCII, case sensitive"},
		{"refund", "nothing here", false, false, "absent"},
	}
	for _, tc := range tests {
		tr := map[string]any{"trace_id": "t", "agent_id": "a", "output": map[string]any{"message": tc.output}}
		tree, err := compileTraceTree(nil, spec{"check": "agent_output_contains", "agent_id": "a", "value": tc.value, "case_sensitive": tc.caseSensitive})
		if err != nil {
			t.Fatal(err)
		}
		content, err := compileContent(nil, spec{"target": "output.message", "check": "contains", "value": tc.value, "case_sensitive": tc.caseSensitive})
		if err != nil {
			t.Fatal(err)
		}
		got, err := tree.eval(context.Background(), testInput(tr))
		if err != nil {
			t.Fatal(err)
		}
		agrees, err := content.eval(context.Background(), testInput(tr))
		if err != nil {
			t.Fatal(err)
		}
		if got.pass != tc.want || agrees.pass != tc.want {
			t.Errorf("%q in %q: agent_output_contains %v, content contains %v, want %v (%s)", tc.value, tc.output, got.pass, agrees.pass, tc.want, tc.reason)
		}
	}
}

// TestOrderedAgentsLinear: ordered_agents costs the groups' sizes plus the
// tree, not their product: two groups of 100,000 ids (a spec well under the
// request line limit) took minutes when every pair was compared and every id
// walked the tree.
func TestOrderedAgentsLinear(t *testing.T) {
	const n = 100_000
	g1, g2 := make([]any, n), make([]any, n)
	for i := range n {
		g1[i], g2[i] = "web-search-agent", "db-agent"
	}
	c, err := compileTraceTree(nil, spec{"check": "ordered_agents", "groups": []any{g1, g2}})
	if err != nil {
		t.Fatal(err)
	}
	in := testInput(loadTree(t, "tree"))
	done := make(chan outcome, 1)
	go func() {
		o, _ := c.eval(context.Background(), in)
		done <- o
	}()
	select {
	case o := <-done:
		if !o.pass {
			t.Errorf("web-search-agent (400-1900ms) before db-agent (2000-2200ms): %s, want a pass", o.explanation)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ordered_agents with two groups of 100,000 ids took over 10s: quadratic in the groups' sizes")
	}
}

// TestAggregateLongNumbers: aggregates and the tree summary stay fast on
// numbers of a million digits (a valid trace may carry them): such numbers
// are summed through float64, as numbers with an exponent are, while
// decimals up to maxExactText characters stay exact.
func TestAggregateLongNumbers(t *testing.T) {
	digits := strings.Repeat("1", 1_000_000)
	sub := func(id string) map[string]any {
		return map[string]any{"trace_id": id, "agent_id": id, "output": map[string]any{"m": "x"},
			"metadata": map[string]any{"cost_usd": json.Number("0." + digits)}}
	}
	root := sub("root")
	root["steps"] = []any{
		map[string]any{"type": "agent_call", "name": "a", "sub_trace": sub("a")},
		map[string]any{"type": "agent_call", "name": "b", "sub_trace": sub("b")},
	}
	c, err := compileTraceTree(nil, spec{"check": "aggregate_cost", "operator": "lt", "value": json.Number("0." + digits)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan outcome, 1)
	go func() {
		SummarizeTree(root)
		o, _ := c.eval(context.Background(), testInput(root))
		done <- o
	}()
	select {
	case o := <-done:
		if o.pass || !strings.Contains(o.explanation, "= 0.3333333333333333,") {
			t.Errorf("three costs of 0.111…: %s, want a failure with the sum 0.3333333333333333", o.explanation)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("aggregate_cost over three million-digit costs took over 10s")
	}
	text := "0." + strings.Repeat("0", maxExactText-3) + "1" // 10^-62, as long as an exact number may be
	want := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(maxExactText-2), nil))
	if got, _ := ratOf(json.Number(text)); got.Cmp(want) != 0 {
		t.Errorf("%s read as %s, want it exactly", text, got.FloatString(70))
	}
}

// TestDataFlowStopsAtDeadline: cross_agent_data_flow compares every value
// the field selects with every value of the input; 20,000 values against an
// input of 100,000 members took minutes. The search ends with the batch's
// context, so the time limit really stops it.
func TestDataFlowStopsAtDeadline(t *testing.T) {
	xs, ys := make([]any, 20_000), make([]any, 100_000)
	for i := range xs {
		xs[i] = map[string]any{"x": json.Number("1")}
	}
	for i := range ys {
		ys[i] = map[string]any{"y": json.Number("2")}
	}
	root := map[string]any{"trace_id": "r", "agent_id": "a", "output": map[string]any{"list": xs}, "steps": []any{
		map[string]any{"type": "agent_call", "name": "s", "sub_trace": map[string]any{
			"trace_id": "s", "agent_id": "b", "input": map[string]any{"list": ys}, "output": map[string]any{"m": "x"}}}}}
	c, err := compileTraceTree(nil, spec{"check": "cross_agent_data_flow", "from_agent": "a", "to_agent": "b", "field": "list[*].x"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.eval(ctx, testInput(root))
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("eval past its deadline: error %v, want context.DeadlineExceeded", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cross_agent_data_flow ran on 10s past a 100ms deadline")
	}
}

// FuzzTraceTreeSpec decodes any trace_tree spec, seeded with the golden
// cases' specs, and evaluates it on the trees: never a panic or a hang.
func FuzzTraceTreeSpec(f *testing.F) { fuzzLayer(f, "multi_agent", "trace_tree") }

// FuzzTraceTree: any decoded document, as a tree, summarizes and evaluates
// every check without panicking; a check never errors at evaluation.
func FuzzTraceTree(f *testing.F) {
	for _, name := range []string{"tree", "tree_dup"} {
		b, err := os.ReadFile(filepath.Join(treeDir, name+".json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "researcher")
	}
	f.Add([]byte(`{"steps":[{"sub_trace":{"steps":[{"sub_trace":{}}]}},7,{"sub_trace":[]}],"metadata":{"cost_usd":1e999999}}`), "")
	f.Add([]byte(`{"agent_id":"a","steps":[{"agent_id":"a","started_at_ms":"x","ended_at_ms":1}]}`), "a")
	specs := []map[string]any{
		{"check": "agent_called", "agent_id": "researcher"},
		{"check": "delegation_depth", "max_depth": json.Number("1")},
		{"check": "agent_output_contains", "agent_id": "a", "value": "x"},
		{"check": "cross_agent_data_flow", "from_agent": "a", "to_agent": "researcher", "field": "doc_id"},
		{"check": "aggregate_cost", "operator": "lt", "value": json.Number("0.01")},
		{"check": "follows_transitions", "transitions": []any{[]any{"a", "researcher"}}},
		{"check": "agent_ordered_before", "agent_a": "a", "agent_b": "researcher"},
		{"check": "agents_overlap", "agent_a": "a", "agent_b": "researcher"},
		{"check": "agent_wall_time_under", "agent_id": "a", "max_ms": json.Number("10")},
		{"check": "ordered_agents", "groups": []any{[]any{"a"}, []any{"researcher"}}},
		{"check": "all_tools_called", "tools": []any{"search_web"}},
	}
	var checks []check
	for _, s := range specs {
		c, err := compileTraceTree(nil, spec(s))
		if err != nil {
			f.Fatalf("%v: %v", s, err)
		}
		checks = append(checks, c)
	}
	f.Fuzz(func(t *testing.T, doc []byte, agent string) {
		v, err := trace.Decode(doc)
		if err != nil {
			return
		}
		root, ok := v.(map[string]any)
		if !ok {
			return
		}
		sum := SummarizeTree(root)
		if sum.AgentCount < 1 || sum.Depth < 0 || len(sum.AgentIDs) > sum.AgentCount {
			t.Fatalf("summary %+v", sum)
		}
		in := testInput(root)
		if agent != "" {
			if scoped, _ := scope(in, agent); scoped != nil {
				in = scoped
			}
		}
		for _, c := range checks {
			if _, err := c.eval(context.Background(), in); err != nil {
				t.Fatalf("eval: %v", err)
			}
		}
	})
}

// BenchmarkTraceTreeBatch: a batch of every trace_tree check, plus one
// scoped content check, on the three-level tree.
func BenchmarkTraceTreeBatch(b *testing.B) {
	eng, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	tr := loadTree(b, "tree")
	as := []Assertion{
		{ID: "a1", Type: "trace_tree", Spec: map[string]any{"check": "agent_called", "agent_id": "db-agent"}},
		{ID: "a2", Type: "trace_tree", Spec: map[string]any{"check": "aggregate_cost", "operator": "lte", "value": json.Number("0.01")}},
		{ID: "a3", Type: "trace_tree", Spec: map[string]any{"check": "cross_agent_data_flow", "from_agent": "web-search-agent", "to_agent": "db-agent", "field": "doc_id"}},
		{ID: "a4", Type: "trace_tree", Spec: map[string]any{"check": "ordered_agents", "groups": []any{[]any{"web-search-agent"}, []any{"db-agent"}}}},
		{ID: "a5", Type: "content", AgentID: "db-agent", Spec: map[string]any{"target": "output.message", "check": "contains", "value": "delivered"}},
	}
	v, err := encodeTrace(tr) // once, as a request line is read
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := eng.EvaluateValue(context.Background(), v, as); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStampedIntervalLowerCase: a timestamp trace validation accepts with a
// lower-case "t" and "z" (RFC 3339 §5.6) gives the same interval as upper case.
func TestStampedIntervalLowerCase(t *testing.T) {
	at := func(ts string) (float64, float64, string) {
		return stampedInterval(map[string]any{"metadata": map[string]any{"timestamp": ts, "latency_ms": 1500.0}})
	}
	s1, e1, m1 := at("2026-02-18T10:30:00.5Z")
	s2, e2, m2 := at("2026-02-18t10:30:00.5z")
	if m1 != "" || m2 != "" || s1 != s2 || e1 != e2 || e1-s1 != 1500 {
		t.Errorf("upper case: %v..%v %q; lower case: %v..%v %q; want the same interval of 1500 ms", s1, e1, m1, s2, e2, m2)
	}
}

// TestStampedIntervalLeapSecond: a leap second, which trace validation
// accepts (RFC 3339 §5.6), gives an interval: it reads as the last
// nanosecond of 23:59:59, after 23:59:59.5.
func TestStampedIntervalLeapSecond(t *testing.T) {
	at := func(ts string) (float64, float64, string) {
		return stampedInterval(map[string]any{"metadata": map[string]any{"timestamp": ts, "latency_ms": 250.0}})
	}
	s1, e1, m1 := at("2016-12-31T23:59:60Z")
	s0, _, m0 := at("2016-12-31T23:59:59.5Z")
	if m1 != "" || m0 != "" || e1-s1 != 250 || s1 <= s0 {
		t.Errorf("leap second: %v..%v %q; 23:59:59.5: %v %q; want an interval of 250 ms starting after 23:59:59.5", s1, e1, m1, s0, m0)
	}
}

// TestScopedReadsInPlace: an assertion scoped to an agent reads that
// agent's trace in place in the batch's tape (treeNode.value), and answers
// as an unscoped assertion over that trace alone does; the root, which a
// wrong step would reach, has other members.
func TestScopedReadsInPlace(t *testing.T) {
	sub := `{"trace_id":"t-sub","agent_id":"db-agent","output":{"message":"m","structured":{"b":"x","a":"y"}},"steps":[]}`
	text := `{"trace_id":"t-root","output":{"message":"m","structured":{"c":"x"}},"steps":[` +
		`{"type":"llm_call","name":"plan"},{"type":"agent_call","name":"db","args":{},"sub_trace":` + sub + `}]}`
	run := func(text, agent string) string {
		doc, err := tape.Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		eng, err := New(Config{})
		if err != nil {
			t.Fatal(err)
		}
		rs, err := eng.EvaluateValue(context.Background(), doc.Root(), []Assertion{{ID: "c", Type: "content", AgentID: agent,
			Spec: map[string]any{"target": "output.structured.*", "check": "contains", "value": "z"}}})
		if err != nil {
			t.Fatal(err)
		}
		return rs[0].Explanation
	}
	scoped, alone := run(text, "db-agent"), run(sub, "")
	if scoped != alone || !strings.Contains(alone, "2 of 2 matches failed") {
		t.Errorf("scoped: %q\nunscoped over the agent's trace alone: %q\nwant the same, over its 2 members", scoped, alone)
	}
}
