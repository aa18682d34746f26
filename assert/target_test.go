// target_test.go: path resolution shared by the layers, and the layers 1–4 benchmarks.

package assert

import (
	"context"
	"testing"

	"attest-engine/trace"

	"github.com/google/go-cmp/cmp"
)

func TestParseTarget(t *testing.T) {
	cases := []struct {
		expr, reason string
		wantErr      string // the error message, "" for success
		wantLocs     []string
	}{
		{"output.message", "spec short form, singular", "", []string{"output.message"}},
		{"$.output.message", "RFC 9535 spelling", "", []string{"output.message"}},
		{"steps[?name=='lookup_order'].result", "filter: every match with its location", "", []string{"steps[1].result"}},
		{"steps[?type=='tool_call'].name", "filter over two steps", "", []string{"steps[1].name", "steps[2].name"}},
		{"steps.length", "the length rule", "", []string{"steps.length"}},
		{"output.nope", "a missing member selects nothing", "", nil},
		{"steps[0:1]", "slices are outside the subset", "unsupported JSONPath expression 'steps[0:1]'", nil},
		{"", "an empty path is a missing field", "spec field 'target' must not be empty", nil},
	}
	in := testInput(loadTrace(t, "refund"))
	for _, tc := range cases {
		tg, err := parseTarget(spec{"target": tc.expr}, "target")
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%q (%s): error %v, want %q", tc.expr, tc.reason, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q (%s): %v", tc.expr, tc.reason, err)
			continue
		}
		var locs []string
		for _, m := range tg.resolve(in, nil) {
			locs = append(locs, m.Location())
		}
		if diff := cmp.Diff(tc.wantLocs, locs); diff != "" {
			t.Errorf("%q (%s): locations (-want +got):\n%s", tc.expr, tc.reason, diff)
		}
	}
	// Parsed once: the second parse is the cached Path.
	a, _ := parseTarget(spec{"target": "output.message"}, "target")
	b, _ := parseTarget(spec{"target": "output.message"}, "target")
	if a.path != b.path {
		t.Errorf("a path parsed twice was not shared from the cache")
	}
}

func benchResolve(b *testing.B, tr map[string]any, expr string) {
	tg, err := parseTarget(spec{"target": expr}, "target")
	if err != nil {
		b.Fatal(err)
	}
	in := testInput(tr)
	b.ReportAllocs()
	for b.Loop() {
		if len(tg.resolve(in, nil)) == 0 {
			b.Fatal("no match")
		}
	}
}

func BenchmarkResolveStatic(b *testing.B) {
	benchResolve(b, loadTrace(b, "refund"), "output.message")
}

func BenchmarkResolveFilter(b *testing.B) {
	benchResolve(b, loadTrace(b, "refund"), "steps[?name=='lookup_order'].result")
}

func BenchmarkResolveFilter10kSteps(b *testing.B) {
	benchResolve(b, bigTrace(b, 10000), "steps[?name=='lookup_order'].result")
}

func BenchmarkResolveCount10kSteps(b *testing.B) {
	benchResolve(b, bigTrace(b, 10000), "steps[?type=='tool_call'].length")
}

// BenchmarkParseTargetCached is the cost of a path the cache already holds.
func BenchmarkParseTargetCached(b *testing.B) {
	s := spec{"target": "steps[?name=='lookup_order'].result"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseTarget(s, "target"); err != nil {
			b.Fatal(err)
		}
	}
}

// bigTrace is a valid trace of n steps: reasoning, lookup_order and
// process_refund in turn, with the refund trace's output and metadata.
func bigTrace(t testing.TB, n int) map[string]any {
	t.Helper()
	base := loadTrace(t, "refund")
	src := base["steps"].([]any)
	steps := make([]any, n)
	for i := range steps {
		steps[i] = src[i%len(src)]
	}
	tr := make(map[string]any, len(base))
	for k, v := range base {
		tr[k] = v
	}
	tr["steps"] = steps
	if _, err := trace.Validate(tr, trace.Options{}); err != nil {
		t.Fatal(err)
	}
	return tr
}

func benchBatch(b *testing.B, tr map[string]any, withRequestIDs bool) {
	eng, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	as := specBatch(b, withRequestIDs)
	v, err := encodeTrace(tr)
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

// The spec's five layer 1–4 assertions (compiled once, then from the cache).
func BenchmarkSpecBatchRefund(b *testing.B)   { benchBatch(b, loadTrace(b, "refund"), false) }
func BenchmarkSpecBatch10kSteps(b *testing.B) { benchBatch(b, bigTrace(b, 10000), false) }

// With request_ids: the idempotency cache answers (fingerprinting the trace).
func BenchmarkSpecBatchRefundCached(b *testing.B) { benchBatch(b, loadTrace(b, "refund"), true) }

// testInput is the input for a decoded trace (inputOf), for tests.
func testInput(tr map[string]any) *input {
	in, err := inputOf(tr)
	if err != nil {
		panic(err)
	}
	return in
}

// BenchmarkWildcard10kSteps: content and schema checks over 10,000 matches
// (steps[*]): a match is named only when an explanation names it, and a
// step is found by index, so the cost stays linear in the matches.
func BenchmarkWildcard10kSteps(b *testing.B) {
	eng, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	tr := bigTrace(b, 10000)
	as := []Assertion{{ID: "w", Type: "content", Spec: map[string]any{"target": "steps[*].name", "check": "contains", "value": "o"}}, {ID: "s", Type: "schema", Spec: map[string]any{"target": "steps[*].result", "schema": map[string]any{"type": "object"}}}}
	v, err := encodeTrace(tr)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		rs, err := eng.EvaluateValue(context.Background(), v, as)
		if err != nil || rs[0].Status != Pass {
			b.Fatal(err, rs)
		}
	}
}
