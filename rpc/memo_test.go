// memo_test.go: batches answered through the assertions memo answer exactly as without it.

package rpc

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"attest-engine/assert"

	"github.com/google/go-cmp/cmp"
)

// TestAssertionMemo sends a sequence of batches through one server (memo on)
// and each through a fresh one (memo empty): every answer must match. The
// sequence repeats assertions over different traces, changes them, and hides
// a decoy "assertions" member at the same depth in another object.
func TestAssertionMemo(t *testing.T) {
	data, err := os.ReadFile("../testdata/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	spec := strings.Split(string(data), "\n")[1]
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
	lines := []struct {
		line     string
		reused   bool // the memo supplies params.assertions
		memoized int  // memo entries afterwards
	}{
		{spec, false, 1},
		{spec, true, 1},
		{batch(costly, list, ""), true, 1}, // same assertions, another trace: evaluated afresh
		{batch(refund, other, ""), false, 2},
		{batch(costly, other, ""), true, 2},
		{batch(refund, list, `,"extra":{"assertions":[{"decoy":1}]}`), true, 2},   // the decoy is not params'
		{batch(refund, third, `,"extra":{"assertions":[{"decoy":1}]}`), false, 2}, // the last one seen is the decoy: nothing kept
		{batch(refund, `[{"decoy":1}]`, ""), false, 2},                            // never stored as third's text: an error, as fresh
	}
	s := newReadyServer(t)
	for i, tc := range lines {
		req, perr := s.parseBatch([]byte(tc.line))
		if perr != nil {
			t.Fatalf("line %d: %v", i, perr)
		}
		_, reused := s.memo.list(req.params["assertions"])
		got := answer(t, s, req)

		fresh := newReadyServer(t)
		freq, perr := parse([]byte(tc.line))
		if perr != nil {
			t.Fatal(perr)
		}
		if d := cmp.Diff(answer(t, fresh, freq), got); d != "" {
			t.Errorf("line %d: answer through the memo differs (-fresh +memo):\n%s", i, d)
		}
		if reused != tc.reused || len(s.memo.entries) != tc.memoized {
			t.Errorf("line %d: reused %v, %d memo entries; want %v, %d", i, reused, len(s.memo.entries), tc.reused, tc.memoized)
		}
	}
}

func newReadyServer(t *testing.T) *Server {
	eng, err := assert.New(assert.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{Engine: eng})
	s.state = stateReady
	return s
}

// answer is the decoded answer to req, durations dropped.
func answer(t *testing.T, s *Server, req *request) any {
	b, err := s.evaluate(context.Background(), req)
	if err != nil {
		return s.toWire(err).Message
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	res := v["result"].(map[string]any)
	delete(res, "total_duration_ms")
	for _, r := range res["results"].([]any) {
		delete(r.(map[string]any), "duration_ms")
	}
	return v
}

// TestLargeRequestsCollected: requests of collectAfterBytes or more are
// counted while in flight and answered normally; the count returns to zero.
func TestLargeRequestsCollected(t *testing.T) {
	data, err := os.ReadFile("../testdata/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
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
