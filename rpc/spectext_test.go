// spectext_test.go: batches whose specs the engine knows by their text answer exactly as without them.

package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKnownSpecs sends a sequence of batches through one server (specs
// remembered by their text) and each through a fresh one: every answer must
// match. The sequence repeats specs under new assertion ids and traces, sends
// a known spec text under another type, with other white space, as a prefix
// of a longer spec, and as a decoy "spec" member elsewhere at the same depth.
func TestKnownSpecs(t *testing.T) {
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
	const lte = `{"field":"metadata.cost_usd","operator":"lte","value":0.1}`
	one := func(id, typ, sp string) string {
		return `[{"assertion_id":"` + id + `","type":"` + typ + `","spec":` + sp + `}]`
	}
	decoy := strings.Replace(refund, `"context":{}`, `"context":{},"spec":`+lte, 1)
	invalid := strings.Replace(refund, `"trace_id":`, `"trace_idx":`, 1)
	lines := []struct {
		line  string
		known int // specs the engine knows afterwards
	}{
		{spec, 5},
		{strings.ReplaceAll(spec, `"assert_00`, `"a_`), 5}, // new ids, the same specs: taken as known
		{batch(costly, one("c1", "constraint", lte), ""), 6},
		{batch(refund, one("c2", "constraint", lte), ""), 6},
		{batch(refund, one("c3", "content", lte), ""), 6},                                                          // a known text under another type: 1002, as fresh
		{batch(refund, one("c4", "constraint", strings.Replace(lte, `,`, `, `, 1)), ""), 7},                        // other white space: another text
		{batch(refund, one("c5", "constraint", lte[:len(lte)-1]+`,"soft":true}`), ""), 8},                          // the known text's prefix
		{batch(refund, one("c6", "constraint", `{"field":"x","operator":"lte","value":{"a":"}"}}`), ""), 9},        // brackets in strings
		{batch(decoy, one("c7", "content", `{"target":"output.message","check":"contains","value":"x"}`), ""), 10}, // the decoy is not remembered
		{batch(decoy, one("c8", "constraint", lte), `,"extra":{"spec":{"field":"y"}}`), 10},
		{batch(invalid, list, ""), 10},                                 // invalid trace: answered as fresh
		{batch(refund, one("c9", "constraint", lte+` `), `,"x":`), 10}, // a known spec in a line that does not parse
	}
	s := newReadyServer(t)
	for i, tc := range lines {
		req, perr := s.parseBatch([]byte(tc.line))
		got := wireAnswer(s, req, perr)
		if !json.Valid([]byte(got)) {
			t.Fatalf("line %d: answer is not JSON: %s", i, got)
		}
		fresh := newReadyServer(t)
		freq, fperr := parse([]byte(tc.line))
		if d := cmp.Diff(wireAnswer(fresh, freq, fperr), got); d != "" {
			t.Errorf("line %d: answer with known specs differs (-fresh +known):\n%s", i, d)
		}
		if n := s.engine.KnownSpecs(); n != tc.known {
			t.Errorf("line %d: %d specs known, want %d", i, n, tc.known)
		}
	}
}

// FuzzKnownSpecs: lines parsed as the read loop parses evaluate_batch,
// with specs known from earlier lines, answer byte for byte as the same
// lines decoded plainly by a server that saw the same lines. The fuzzer can
// give the later lines specs that are the earlier ones' text, a prefix or an
// extension of it, or a decoy of it at the same depth in another object.
func FuzzKnownSpecs(f *testing.F) {
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
	lte := `{"field":"metadata.cost_usd","operator":"lte","value":0.01}`
	specDecoy := strings.Replace(spec, `"context":{}`, `"context":{},"spec":`+lte, 1)
	specLonger := strings.Replace(spec, lte, lte[:len(lte)-1]+`,"soft":true}`, 1)
	f.Add(specDecoy, spec, specLonger)
	f.Add(specLonger, strings.Replace(spec, lte, lte+` `, 1), specDecoy)
	f.Fuzz(func(t *testing.T, a, b, c string) {
		known, plain := newReadyServer(t), newReadyServer(t)
		for i, line := range []string{a, b, c} {
			req, perr := known.parseBatch([]byte(line))
			preq, pperr := parse([]byte(line))
			got, want := wireAnswer(known, req, perr), wireAnswer(plain, preq, pperr)
			if got != want || !json.Valid([]byte(got)) {
				t.Fatalf("line %d: with known specs %s\nplainly %s", i, got, want)
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

// TestKnownSpecsShared pipelines batches that share known specs through
// Serve, so that workers use the same decoded values at once (run with -race, as .ci/run does): every answer must be the one a
// fresh server gives the same line alone.
func TestKnownSpecsShared(t *testing.T) {
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
	if got != len(want) || s.engine.KnownSpecs() != 5 {
		t.Errorf("%d of %d batches answered, %d specs known (want 5)", got, len(want), s.engine.KnownSpecs())
	}
}

// TestKnownSpecKeepsCopy: the engine keeps its own copy of a spec's text,
// so the request line that text was a slice of may be reused (the read
// loop's buffer) or dropped once its request is answered.
func TestKnownSpecKeepsCopy(t *testing.T) {
	s := newReadyServer(t)
	line := []byte(specBatchLine(t))
	if _, perr := s.parseBatch(line); perr != nil {
		t.Fatal(perr)
	}
	sp := []byte(`{"field":"metadata.cost_usd","operator":"lte","value":0.01}`)
	at := bytes.Index(line, sp)
	if at < 0 {
		t.Fatal("testdata/session.jsonl: no constraint spec")
	}
	if v, ok := s.engine.KnownSpec(bytes.Clone(sp)); !ok || v == nil {
		t.Fatalf("KnownSpec: %v, %v; want the spec, true", v, ok)
	}
	copy(line[at:], `{"field":"metadata.cost_usd","operator":"gte"`)
	if _, ok := s.engine.KnownSpec(bytes.Clone(sp)); !ok {
		t.Error("the spec is not known once the line changed: the engine kept the line, not a copy")
	}
	if _, ok := s.engine.KnownSpec(line[at : at+len(sp)]); ok {
		t.Error("the changed line's text is known")
	}
}
