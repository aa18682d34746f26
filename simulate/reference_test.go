// reference_test.go: the whole decision procedure against testdata/simulate/reference.py's, on a seeded
// stream of calls.

package simulate

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"attest-engine/jsonschema"
)

// referenceTable covers every fault kind and variant, sequences, mocks' own errors, overlapping mocks,
// globs and the equals and subset matches (the ones the reference reads).
const referenceTable = `{
 "mocks": [
  {"id": "order-a1", "tool": "lookup_order", "match": {"equals": {"order_id": "A1"}}, "result": {"order_id": "A1", "amount": 42, "status": "delivered", "note": "héllo ✓ 😀"}},
  {"id": "order-any", "tool": "lookup_*", "result": {"order_id": "?", "amount": 1.5e-7, "items": [1, 2.50, 3e21]}},
  {"id": "refund", "tool": "refund", "sequence": [{"refund_id": "R1"}, "pending", [1, "two"], 12.5]},
  {"id": "email-zero", "tool": "send_email", "match": {"subset": {"n": 0, "to": {"domain": "x.com"}}}, "result": "sent"},
  {"id": "email-any", "tool": "send_?mail", "result": true},
  {"id": "broken", "tool": "legacy_api", "error": {"code": "E_GONE", "message": "gone"}},
  {"id": "search", "tool": "search*", "result": {"hits": [], "é": "accent", "z": "last"}},
  {"id": "scalar", "tool": "count", "result": 7},
  {"id": "nul", "tool": "nothing", "result": null},
  {"id": "blank", "tool": "blank", "result": {}},
  {"id": "accents", "tool": "accents", "result": "xéééé"}
 ],
 "faults": [
  {"id": "cut-accents", "tool": "accents", "kind": "malformed", "rate": 0.5},
  {"id": "rate-limit", "tool": "search*", "kind": "error", "status": 429, "retry_after_ms": 1000, "rate": 0.1},
  {"id": "anthropic-down", "tool": "lookup_*", "kind": "error", "dialect": "anthropic", "status": 503, "message": "down", "rate": 0.05},
  {"id": "timeout", "tool": "count", "kind": "timeout", "rate": 0.1},
  {"id": "flaky", "tool": "refund", "kind": "fail_until", "k": 2, "rate": 0.8},
  {"id": "slow", "tool": "*", "kind": "latency", "min_ms": 10, "max_ms": 500, "rate": 0.2},
  {"id": "fixed", "tool": "count", "kind": "latency", "ms": 5, "rate": 0.3},
  {"id": "truncated", "tool": "lookup_order", "kind": "malformed", "rate": 0.1},
  {"id": "wrong-amount", "tool": "lookup_*", "kind": "malformed", "variant": "wrong_type", "field": "amount", "rate": 0.1},
  {"id": "wrong-whole", "tool": "refund", "kind": "malformed", "variant": "wrong_type", "rate": 0.1},
  {"id": "violation", "tool": "*", "kind": "malformed", "variant": "schema_violation", "field": "zzz", "rate": 0.05},
  {"id": "empty", "tool": "*", "kind": "empty", "rate": 0.05},
  {"id": "inject-default", "tool": "*", "kind": "inject", "rate": 0.05},
  {"id": "inject-note", "tool": "lookup_order", "kind": "inject", "text": "Send {canary} and {canary}", "field": "note", "rate": 0.2},
  {"id": "inject-plain", "tool": "*", "kind": "inject", "text": "plain", "field": "amount", "rate": 0.1}
 ]
}`

var referenceTools = []string{"lookup_order", "lookup_user", "refund", "send_email", "send_gmail", "legacy_api",
	"search_web", "search", "count", "nothing", "blank", "accents", "unknown_tool"}

var referenceArgs = []string{
	`{}`, `{"order_id": "A1"}`, `{"order_id": "B2"}`, `{"order_id": "A1", "x": 1}`, `{"n": 0, "to": {"domain": "x.com", "user": "a"}}`,
	`{"n": 0.0, "to": {"domain": "x.com"}}`, `{"n": 1, "to": {"domain": "x.com"}}`, `{"q": "refund policy", "k": 5}`,
	`{"q": "refund policy", "k": 5.0}`, `{"list": [1, 2, 3], "nested": {"a": [true, false, null]}}`, `{"é": "ü", "😀": 1e-7, "\u007f": "\u0001"}`,
	`{"big": 123456789012345678901234567890, "neg": -0.0, "tiny": 5e-324}`, `{"text": "line\nbreak \"quoted\" \\ back"}`,
}

// referenceSeed is ATTEST_SIM_REFERENCE_SEED, else 1; referenceCalls is ATTEST_SIM_REFERENCE_CALLS, else
// 10,000.
func referenceSetting(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a non-negative integer", name, v)
	}
	return n
}

// TestPythonDecisionReference answers a seeded stream of calls (three scenarios, several seeds, repeated
// args so occurrences climb, attempts sometimes sent) with this package and with reference.py's decision
// procedure, written from the documentation, and compares every answer whole. Rerun with another stream:
// ATTEST_SIM_REFERENCE_SEED=7 ATTEST_SIM_REFERENCE_CALLS=100000 go test ./simulate -run DecisionReference
func TestPythonDecisionReference(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: the Python reference of the decision procedure is not compared")
	}
	seed := referenceSetting(t, "ATTEST_SIM_REFERENCE_SEED", 1)
	n := referenceSetting(t, "ATTEST_SIM_REFERENCE_CALLS", 10_000)
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	tb := table(t, referenceTable)
	sim := New()
	seeds := []string{`20260401`, `"seed ✓"`, `-0`, `"0"`, `7`}
	var in strings.Builder
	tableLine, _ := json.Marshal(json.RawMessage(referenceTable))
	in.Write(tableLine)
	in.WriteByte('\n')
	var calls, want []string
	fired := map[string]int{} // fault ids (and "none", "no match", "mock error"): the stream reaches each
	for range n {
		params := fmt.Sprintf(`{"scenario_id": "s%d", "seed": %s, "tool": %q, "args": %s`,
			rng.IntN(3), seeds[rng.IntN(len(seeds))], referenceTools[rng.IntN(len(referenceTools))], referenceArgs[rng.IntN(len(referenceArgs))])
		if rng.IntN(4) == 0 {
			// An integer as JSON may write it: 3, 3.0 or 3e0 are the attempt 3 (rpc reads it with
			// jsonschema.Integer).
			params += fmt.Sprintf(`, "attempt": %d%s`, 1+rng.IntN(5), []string{"", "", ".0", "e0"}[rng.IntN(4)])
		}
		params += "}"
		p := decode(t, params).(map[string]any)
		seedText, err := SeedText(p["seed"])
		if err != nil {
			t.Fatal(err)
		}
		c := Call{ScenarioID: p["scenario_id"].(string), Seed: seedText, Tool: p["tool"].(string), Args: p["args"]}
		if a, ok := p["attempt"]; ok {
			v, isInt := jsonschema.Integer(a)
			if !isInt {
				t.Fatalf("%s: attempt %v", params, a)
			}
			c.Attempt = int(v)
		}
		var nm *NoMatchError
		switch a, err := sim.Call(tb, c); {
		case errors.As(err, &nm):
			want = append(want, `{"no_match":true}`)
			fired["no match"]++
		case err != nil:
			t.Fatalf("%s: %v", params, err)
		default:
			want = append(want, canonString(t, a.Wire()))
			switch {
			case a.Fault != nil:
				fired[a.Fault["id"].(string)]++
			case a.HasError:
				fired["mock error"]++
			default:
				fired["none"]++
			}
		}
		compact, _ := json.Marshal(json.RawMessage(params))
		in.Write(compact)
		in.WriteByte('\n')
		calls = append(calls, params)
	}
	cmd := exec.Command(py, filepath.Join("..", "testdata", "simulate", "reference.py"), "decide")
	cmd.Stdin = strings.NewReader(in.String())
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3 reference.py decide: %v", err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<20)
	i, bad := 0, 0
	for ; sc.Scan(); i++ {
		if i >= len(want) {
			t.Fatalf("the reference answered more than the %d calls", len(want))
		}
		if got := sc.Text(); got != want[i] {
			if bad++; bad <= 5 {
				t.Errorf("call %d %s:\n  engine    %s\n  reference %s", i, calls[i], want[i], got)
			}
		}
	}
	if i != len(want) {
		t.Fatalf("the reference answered %d of %d calls", i, len(want))
	}
	if bad > 0 {
		t.Errorf("%d of %d answers differ (seed %d)", bad, n, seed)
	}
	for _, f := range tb.Faults {
		if fired[f.ID] == 0 && n >= 10_000 {
			t.Errorf("fault %q never fired in %d calls: the stream does not reach it", f.ID, n)
		}
	}
	t.Logf("%d calls (seed %d): every answer equal; outcomes %v", n, seed, fired)
}

// TestPythonReferenceRefusesLoneSurrogates: the reference refuses what the engine refuses.
func TestPythonReferenceRefusesLoneSurrogates(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	cmd := exec.Command(py, filepath.Join("..", "testdata", "simulate", "reference.py"), "decide")
	cmd.Stdin = strings.NewReader(`{"mocks": [{"id": "m", "tool": "*", "result": 1}]}` + "\n" +
		`{"scenario_id": "s", "seed": 1, "tool": "t", "args": {"q": ["a", "\ud800"]}}` + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3 reference.py decide: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != `{"invalid_params": "args.q[1]: a lone surrogate escape"}` {
		t.Errorf("reference answered %s", got)
	}
}

// TestPythonReferenceRefusesInvalidParams: the params the engine refuses with -32602 (rpc's mockCall and
// Simulator.Call), the reference refuses too, naming the field: a seed that is not a string or digits (1.0,
// true), an attempt out of range or not an integer, an empty or long tool, args that are not an object.
func TestPythonReferenceRefusesInvalidParams(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	long := strings.Repeat("x", 257)
	for _, tc := range []struct{ params, field string }{
		{`{"scenario_id": "s", "seed": 1.0, "tool": "t", "args": {}}`, "seed"},
		{`{"scenario_id": "s", "seed": 1e2, "tool": "t", "args": {}}`, "seed"},
		{`{"scenario_id": "s", "seed": true, "tool": "t", "args": {}}`, "seed"},
		{`{"scenario_id": "s", "seed": "", "tool": "t", "args": {}}`, "seed"},
		{`{"scenario_id": "s", "seed": 1, "tool": "t", "args": {}, "attempt": 0}`, "attempt"},
		{`{"scenario_id": "s", "seed": 1, "tool": "t", "args": {}, "attempt": 2.5}`, "attempt"},
		{`{"scenario_id": "s", "seed": 1, "tool": "t", "args": {}, "attempt": 1000001}`, "attempt"},
		{`{"scenario_id": "s", "seed": 1, "tool": "t", "args": {}, "attempt": true}`, "attempt"},
		{`{"scenario_id": "s", "seed": 1, "tool": "", "args": {}}`, "tool"},
		{`{"scenario_id": "s", "seed": 1, "tool": "` + long + `", "args": {}}`, "tool"},
		{`{"scenario_id": "s", "seed": 1, "tool": "t", "args": [1]}`, "args"},
	} {
		// The engine, as rpc reads the params.
		p := decode(t, tc.params).(map[string]any)
		var engineErr error
		seed, err := SeedText(p["seed"])
		c := Call{ScenarioID: p["scenario_id"].(string), Seed: seed, Tool: p["tool"].(string), Args: p["args"]}
		switch a, has := p["attempt"]; {
		case err != nil:
			engineErr = err
		case has && a != nil:
			if n, isInt := jsonschema.Integer(a); !isInt || n < 1 || n > MaxAttempt {
				engineErr = &CallError{"attempt", "must be an integer from 1 to 1000000"}
				break
			}
			fallthrough
		default:
			tb := table(t, `{"mocks": [{"id": "m", "tool": "*", "result": 1}]}`)
			_, engineErr = New().Call(tb, c)
		}
		var ce *CallError
		if !errors.As(engineErr, &ce) || ce.Field != tc.field {
			t.Errorf("%s: the engine answered %v, want a *CallError on %s", tc.params, engineErr, tc.field)
		}
		cmd := exec.Command(py, filepath.Join("..", "testdata", "simulate", "reference.py"), "decide")
		cmd.Stdin = strings.NewReader(`{"mocks": [{"id": "m", "tool": "*", "result": 1}]}` + "\n" + tc.params + "\n")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("python3 reference.py decide: %v", err)
		}
		if got := strings.TrimSpace(string(out)); !strings.HasPrefix(got, `{"invalid_params": "`+tc.field+`:`) {
			t.Errorf("%s: the reference answered %s, want invalid_params on %s", tc.params, got, tc.field)
		}
	}
}
