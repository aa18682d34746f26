// memo_test.go: batches answered through the memos answer exactly as without them.

package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMemos sends a sequence of batches through one server (memos on) and
// each through a fresh one (memos empty): every answer must match. The
// sequence repeats assertions over different traces and traces under
// different assertions, changes them, sends an invalid trace, and hides
// decoy "assertions" and "trace" members at the same depth in another object.
func TestMemos(t *testing.T) {
	spec := specBatchLine(t)
	batch := func(trace, assertions, extra string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"evaluate_batch","params":{"trace":` + trace + `,"assertions":` + assertions + `}` + extra + `}`
	}
	var p struct {
		Params struct{ Trace, Assertions json.RawMessage }
	}
	if err := json.Unmarshal([]byte(spec), &p); err != nil {
		t.Fatal(err)
	}
	refund, list := string(p.Params.Trace), string(p.Params.Assertions)
	costly := strings.Replace(refund, `"cost_usd":0.0067`, `"cost_usd":0.5`, 1)
	if costly == refund {
		t.Fatal("testdata/session.jsonl: no cost_usd to change")
	}
	other := `[{"assertion_id":"c1","type":"constraint","spec":{"field":"metadata.cost_usd","operator":"lte","value":0.1}}]`
	third := `[{"assertion_id":"t1","type":"content","spec":{"target":"output.message","check":"contains","value":"refund"}}]`
	cheap := strings.Replace(refund, `"cost_usd":0.0067`, `"cost_usd":0.001`, 1)
	invalid := strings.Replace(refund, `"trace_id":`, `"trace_idx":`, 1)
	lines := []struct {
		line     string
		reused   bool // the memo supplies params.assertions
		memoized int  // assertions memo entries afterwards
		traceHit bool // the memo supplies params.trace
		traces   int  // trace memo entries afterwards
	}{
		{spec, false, 1, false, 1},
		{spec, true, 1, true, 1},
		{batch(costly, list, ""), true, 1, false, 2}, // same assertions, another trace: evaluated afresh
		{batch(refund, other, ""), false, 2, true, 2},
		{batch(costly, other, ""), true, 2, true, 2},
		{batch(refund, list, `,"extra":{"assertions":[{"decoy":1}]}`), true, 2, true, 2},   // the decoy is not params'
		{batch(refund, third, `,"extra":{"assertions":[{"decoy":1}]}`), false, 2, true, 2}, // the last one seen is the decoy: nothing kept
		{batch(refund, `[{"decoy":1}]`, ""), false, 2, true, 2},                            // never stored as third's text: an error, as fresh
		{batch(cheap, list, `,"extra":{"trace":`+refund+`}`), true, 2, false, 2},           // the last trace seen is the decoy: nothing kept
		{batch(invalid, list, ""), true, 2, false, 2},                                      // invalid: answered as fresh, not kept
		{batch(invalid, list, ""), true, 2, false, 2},
	}
	s := newReadyServer(t)
	for i, tc := range lines {
		req, perr := s.parseBatch([]byte(tc.line))
		if perr != nil {
			t.Fatalf("line %d: %v", i, perr)
		}
		_, reused := s.memos.assertions.extra(req.params["assertions"])
		got := wireAnswer(s, req, nil)
		if !json.Valid([]byte(got)) {
			t.Fatalf("line %d: answer is not JSON: %s", i, got)
		}

		fresh := newReadyServer(t)
		freq, perr := parse([]byte(tc.line))
		if perr != nil {
			t.Fatal(perr)
		}
		if d := cmp.Diff(wireAnswer(fresh, freq, nil), got); d != "" {
			t.Errorf("line %d: answer through the memo differs (-fresh +memo):\n%s", i, d)
		}
		if reused != tc.reused || len(s.memos.assertions.entries) != tc.memoized {
			t.Errorf("line %d: assertions reused %v, %d memo entries; want %v, %d", i, reused, len(s.memos.assertions.entries), tc.reused, tc.memoized)
		}
		if req.traceKnown != tc.traceHit || len(s.memos.traces.entries) != tc.traces {
			t.Errorf("line %d: trace reused %v, %d memo entries; want %v, %d", i, req.traceKnown, len(s.memos.traces.entries), tc.traceHit, tc.traces)
		}
	}
}

// FuzzMemos: lines parsed as the read loop parses evaluate_batch, through
// the memos, answer byte for byte as the same lines decoded plainly by a
// server that saw the same lines. The fuzzer can give the later lines
// assertions or a trace that are the earlier ones' text, a prefix or an
// extension of it, or a decoy of it at the same depth in another object.
func FuzzMemos(f *testing.F) {
	spec := specBatchLine(f)
	var p struct {
		Params struct{ Trace, Assertions json.RawMessage }
	}
	if err := json.Unmarshal([]byte(spec), &p); err != nil {
		f.Fatal(err)
	}
	list, tr := string(p.Params.Assertions), string(p.Params.Trace)
	again := strings.Replace(spec, `"id":2,`, `"id":3,`, 1)
	decoy := strings.Replace(spec, `"params":{`, `"extra":{"assertions":`+list+`},"params":{`, 1)
	longer := strings.Replace(spec, list, list[:len(list)-1]+`,{"assertion_id":"x","type":"content","spec":{"target":"output.message","check":"contains","value":"y"}}]`, 1)
	f.Add(spec, again, spec)
	f.Add(spec, decoy, again)
	f.Add(longer, spec, longer)
	f.Add(decoy, strings.Replace(spec, list, `[{"decoy":1}]`, 1), spec)
	trDecoy := strings.Replace(spec, `"params":{`, `"extra":{"trace":`+tr+`},"params":{`, 1)
	trLonger := strings.Replace(spec, tr, tr[:len(tr)-1]+`,"x":1}`, 1)
	trInvalid := strings.Replace(spec, `"trace_id":`, `"trace_idx":`, 1)
	f.Add(spec, trDecoy, trLonger)
	f.Add(trLonger, spec, trDecoy)
	f.Add(trInvalid, trInvalid, spec)
	f.Fuzz(func(t *testing.T, a, b, c string) {
		memo, plain := newReadyServer(t), newReadyServer(t)
		for i, line := range []string{a, b, c} {
			req, perr := memo.parseBatch([]byte(line))
			preq, pperr := parse([]byte(line))
			got, want := wireAnswer(memo, req, perr), wireAnswer(plain, preq, pperr)
			if got != want || !json.Valid([]byte(got)) {
				t.Fatalf("line %d: through the memo %s\nplainly %s", i, got, want)
			}
		}
	})
}

// wireAnswer is the answer line to a parsed request, durations zeroed.
func wireAnswer(s *Server, req *request, perr *Error) string {
	var id any
	if req != nil {
		id = req.id
	}
	if perr != nil {
		return string(encodeError(id, perr))
	}
	b, err := s.evaluate(context.Background(), req)
	if err != nil {
		b = encodeError(id, s.toWire(err))
	}
	return durations.ReplaceAllString(string(b), `"${1}duration_ms":0`)
}

// TestLargeRequestsCollected: requests of collectAfterBytes or more are
// counted while in flight and answered normally; the count returns to zero.
func TestLargeRequestsCollected(t *testing.T) {
	lines := sessionLines(t)
	padding := strings.Repeat("x", collectAfterBytes)
	big := strings.Replace(lines[1], `"user_message":"`, `"padding":"`+padding+`","user_message":"`, 1)
	if len(big) < collectAfterBytes {
		t.Fatal("testdata/session.jsonl: no user_message to pad")
	}
	in := lines[0] + "\n" + big + "\n" + strings.Replace(big, `"id":2`, `"id":3`, 1) + "\n"
	s := newReadyServer(t)
	s.state = stateNew
	var out strings.Builder
	if err := s.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	answers := strings.Count(out.String(), `"results":[`)
	if answers != 2 || s.largeInFlight.Load() != 0 {
		t.Errorf("%d batch answers, %d large requests still counted; want 2, 0\n%.300s", answers, s.largeInFlight.Load(), out.String())
	}
}

// TestMemosShared pipelines batches that share memoized traces and
// assertions through Serve, so that workers use the same decoded values at
// once (run with -race, as .ci/run does): every answer must be the one a
// fresh server gives the same line alone.
func TestMemosShared(t *testing.T) {
	lines := sessionLines(t)
	spec := lines[1]
	variants := []string{
		spec,
		strings.Replace(spec, `"cost_usd":0.0067`, `"cost_usd":0.5`, 1),
		strings.Replace(spec, `"request_id":`, `"request_idx":`, -1), // evaluated every time
	}
	var in strings.Builder
	in.WriteString(lines[0] + "\n")
	want := map[string]string{}
	for i := range 150 {
		line := strings.Replace(variants[i%len(variants)], `"id":2,`, fmt.Sprintf(`"id":%d,`, 100+i), 1)
		in.WriteString(line + "\n")
		req, perr := parse([]byte(line))
		if perr != nil {
			t.Fatal(perr)
		}
		want[fmt.Sprint(100+i)] = strings.TrimSuffix(wireAnswer(newReadyServer(t), req, nil), "\n")
	}
	s := newReadyServer(t)
	s.state = stateNew
	var out strings.Builder
	if err := s.Serve(context.Background(), strings.NewReader(in.String()), &out); err != nil {
		t.Fatal(err)
	}
	got := 0
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var a struct{ ID json.Number }
		if err := json.Unmarshal([]byte(l), &a); err != nil {
			t.Fatal(err)
		}
		if w, ok := want[a.ID.String()]; ok {
			got++
			if d := cmp.Diff(w, durations.ReplaceAllString(l, `"${1}duration_ms":0`)); d != "" {
				t.Errorf("id %s (-alone +pipelined):\n%s", a.ID, d)
			}
		}
	}
	if got != len(want) || len(s.memos.traces.entries) != 2 {
		t.Errorf("%d of %d batches answered, %d traces memoized (want 2)", got, len(want), len(s.memos.traces.entries))
	}
}

// TestMemoKeepsCopy: the memo keeps its own copy of a text, so the request
// line that text was a slice of may be reused (the read loop's buffer) or
// dropped once its request is answered.
func TestMemoKeepsCopy(t *testing.T) {
	var m memo[struct{}]
	line := []byte(`{"a":1}`)
	v := map[string]any{"a": json.Number("1")}
	m.add(line, v, struct{}{})
	copy(line, `{"b":2}`)
	if n, got, ok := m.lookup([]byte(`{"a":1},"x":2}`)); !ok || n != len(line) || !same(got, v) {
		t.Errorf("lookup after the line changed: %d, %v, %v; want %d, the value added, true", n, got, ok, len(line))
	}
	if _, _, ok := m.lookup([]byte(`{"b":2}`)); ok {
		t.Error("the changed line's text is found: the memo kept the line, not a copy")
	}
}
