// malformed_test.go: a long table of bad requests through the real binary; each gets the right answer
// and the engine still serves a valid request afterwards.

package main

import (
	"fmt"
	"strings"
	"testing"
)

// traceJSON builds a valid trace whose compact encoding has exactly size
// bytes when size > 0 (padding goes into output.pad).
func traceJSON(steps int, message string, result string, size int) string {
	var b strings.Builder
	b.WriteString(`{"schema_version":1,"trace_id":"trc_limits","steps":[`)
	for i := range steps {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"tool_call","name":"t","result":{"r":"%s"}}`, result)
	}
	fmt.Fprintf(&b, `],"output":{"message":%q`, message)
	if size > 0 {
		head := b.Len() + len(`,"pad":""}}`)
		fmt.Fprintf(&b, `,"pad":"%s"`, strings.Repeat("p", size-head))
	}
	b.WriteString(`}}`)
	return b.String()
}

// resultOf pads a step result to exactly n bytes of compact JSON: {"r":"..."}.
func resultOf(n int) string { return strings.Repeat("r", n-len(`{"r":""}`)) }

func nested(depth int) string {
	return `{"jsonrpc":"2.0","id":"deep","method":"evaluate_batch","params":{"trace":` +
		strings.Repeat("[", depth) + strings.Repeat("]", depth) + `,"assertions":[]}}`
}

// subTrace nests depth sub-traces below a root.
func subTrace(depth int) string {
	t := `{"schema_version":1,"trace_id":"leaf","output":{"m":"x"}}`
	for i := range depth {
		t = fmt.Sprintf(`{"schema_version":1,"trace_id":"t%d","steps":[{"type":"agent_call","name":"a%d","sub_trace":%s}],"output":{"m":"x"}}`, i, i, t)
	}
	return t
}

func evalReq(id, trace string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"evaluate_batch","params":{"trace":%s,"assertions":[]}}`, id, trace)
}

const okTrace = `{"schema_version":1,"trace_id":"trc_ok","output":{"message":"fine"}}`

func TestBinaryMalformedInput(t *testing.T) {
	bin := buildEngine(t)
	e := start(t, bin, "--log-level=error")
	e.send(t, initLine)
	e.answer(t)

	tests := []struct {
		name    string
		line    string
		noReply bool   // notifications and blank lines get no answer
		id      any    // the id the answer must carry (JSON-decoded)
		code    int    // 0 means a result is expected
		message string // exact message, or a prefix when it ends with "…"
	}{
		{name: "truncated JSON, id recovered", line: `{"jsonrpc":"2.0","id":1,"method":"evaluate_batch","params":{"tr`, id: 1, code: -32700, message: "parse error: …"},
		{name: "NaN from Python's json.dumps, id recovered", line: evalReq("py-nan", `{"schema_version":1,"trace_id":"x","metadata":{"cost_usd":NaN},"output":{"m":1}}`), id: "py-nan", code: -32700, message: "parse error: NaN is not a JSON value (RFC 8259 §6: numbers are finite) at offset 133"},
		{name: "Infinity, id recovered", line: evalReq("py-inf", `{"schema_version":1,"trace_id":"x","output":{"score":-Infinity}}`), id: "py-inf", code: -32700, message: "parse error: -Infinity is not a JSON value…"},
		{name: "trailing data, id recovered", line: `{"jsonrpc":"2.0","id":"tr","method":"nope"}}`, id: "tr", code: -32700, message: "parse error: unexpected data after top-level value at offset 43"},
		{name: "id unreadable: null", line: `{"jsonrpc":"2.0","id":"a`, code: -32700, message: "parse error: …"},
		{name: "not JSON", line: `hello`, code: -32700, message: "parse error: …"},
		{name: "empty line", line: ``, noReply: true},
		{name: "white space line", line: " \t ", noReply: true},
		{name: "JSON array (batch)", line: `[{"jsonrpc":"2.0","id":1,"method":"shutdown"}]`, code: -32600, message: "invalid request: batch arrays are not supported"},
		{name: "JSON scalar", line: `42`, code: -32600, message: "invalid request: not a JSON object"},
		{name: "jsonrpc wrong type", line: `{"jsonrpc":2.0,"id":1,"method":"evaluate_batch"}`, id: 1, code: -32600, message: `invalid request: jsonrpc must be "2.0"`},
		{name: "jsonrpc missing", line: `{"id":2,"method":"evaluate_batch"}`, id: 2, code: -32600, message: `invalid request: jsonrpc must be "2.0"`},
		{name: "method wrong type", line: `{"jsonrpc":"2.0","id":3,"method":["evaluate_batch"]}`, id: 3, code: -32600, message: "invalid request: method must be a string"},
		{name: "method case folded", line: `{"jsonrpc":"2.0","id":4,"METHOD":"evaluate_batch"}`, id: 4, code: -32600, message: "invalid request: method must be a string"},
		{name: "params wrong type", line: `{"jsonrpc":"2.0","id":5,"method":"evaluate_batch","params":"x"}`, id: 5, code: -32602, message: "invalid params: params must be an object"},
		{name: "id object", line: `{"jsonrpc":"2.0","id":{},"method":"evaluate_batch"}`, code: -32600, message: "invalid request: id must be a string or a number"},
		{name: "id array", line: `{"jsonrpc":"2.0","id":[1],"method":"evaluate_batch"}`, code: -32600, message: "invalid request: id must be a string or a number"},
		{name: "id bool", line: `{"jsonrpc":"2.0","id":false,"method":"evaluate_batch"}`, code: -32600, message: "invalid request: id must be a string or a number"},
		{name: "id null is answered with null", line: `{"jsonrpc":"2.0","id":null,"method":"nope"}`, code: -32601, message: "method not found: nope"},
		{name: "id huge number echoed", line: `{"jsonrpc":"2.0","id":1e400,"method":"nope"}`, id: "1e400", code: -32601, message: "method not found: nope"},
		{name: "id string", line: `{"jsonrpc":"2.0","id":"s\u00e9","method":"nope"}`, id: "sé", code: -32601, message: "method not found: nope"},
		{name: "notification of unknown method", line: `{"jsonrpc":"2.0","method":"nope"}`, noReply: true},
		{name: "duplicate keys", line: `{"jsonrpc":"2.0","id":6,"method":"nope","method":"evaluate_batch"}`, id: 6, code: -32600, message: `invalid request: duplicate object key "method" at offset 40`},
		{name: "invalid UTF-8", line: "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"\xff\"}", id: 7, code: -32700, message: "parse error: invalid UTF-8 in string at offset 34"},
		{name: "NUL byte in string", line: "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"a\x00\"}", id: 8, code: -32700, message: "parse error: invalid control character 0x00 in string at offset 35"},
		{name: "NUL byte outside string", line: "{\"jsonrpc\":\"2.0\",\x00\"id\":8}", code: -32700, message: "parse error: …"},
		{name: "100,000 levels of nesting, id recovered", line: nested(100000), id: "deep", code: -32700, message: "parse error: nesting exceeds maximum depth 512…"},
		{name: "trace missing", line: `{"jsonrpc":"2.0","id":9,"method":"evaluate_batch","params":{"assertions":[]}}`, id: 9, code: -32602, message: "invalid params: missing required field 'trace'"},
		{name: "trace wrong type", line: evalReq("t1", `[]`), id: "t1", code: 1001, message: "trace must be a JSON object, got array"},
		{name: "assertions wrong type", line: `{"jsonrpc":"2.0","id":10,"method":"evaluate_batch","params":{"trace":` + okTrace + `,"assertions":"all"}}`, id: 10, code: -32602, message: "invalid params: assertions must be an array"},
		{name: "assertion_id wrong type", line: `{"jsonrpc":"2.0","id":11,"method":"evaluate_batch","params":{"trace":` + okTrace + `,"assertions":[{"assertion_id":1,"type":"content","spec":{}}]}}`, id: 11, code: 1002, message: "assertion '#0' failed: missing required field 'assertion_id'"},
		{name: "spec wrong type", line: `{"jsonrpc":"2.0","id":12,"method":"evaluate_batch","params":{"trace":` + okTrace + `,"assertions":[{"assertion_id":"a","type":"content","spec":[]}]}}`, id: 12, code: 1002, message: "assertion 'a' failed: missing required field 'spec'"},
		{name: "unknown assertion type", line: `{"jsonrpc":"2.0","id":13,"method":"evaluate_batch","params":{"trace":` + okTrace + `,"assertions":[{"assertion_id":"a","type":"vibes","spec":{}}]}}`, id: 13, code: 1002, message: "assertion 'a' failed: unknown assertion type 'vibes'"},
		{name: "trace_id missing", line: evalReq("t2", `{"schema_version":1,"output":{"m":1}}`), id: "t2", code: 1001, message: "trace missing required field: trace_id"},
		{name: "trace_id case folded", line: evalReq("t3", `{"schema_version":1,"Trace_ID":"x","output":{"m":1}}`), id: "t3", code: 1001, message: "trace missing required field: trace_id"},
		{name: "schema_version huge", line: evalReq("t4", `{"schema_version":1e400,"trace_id":"x","output":{"m":1}}`), id: "t4", code: 1001, message: "trace schema_version 1e400 is newer than this engine supports"},
		{name: "trace at max size", line: evalReq("size-ok", traceJSON(0, "m", "", 10485760)), id: "size-ok"},
		{name: "trace one byte past max size", line: evalReq("size-over", traceJSON(0, "m", "", 10485761)), id: "size-over", code: 1001, message: "trace exceeds max size: 10485761 > 10485760 bytes"},
		{name: "trace at max steps", line: evalReq("steps-ok", traceJSON(10000, "m", "", 0)), id: "steps-ok"},
		{name: "trace one step past max", line: evalReq("steps-over", traceJSON(10001, "m", "", 0)), id: "steps-over", code: 1001, message: "trace exceeds max steps: 10001 > 10000"},
		{name: "output.message at max length", line: evalReq("msg-ok", traceJSON(0, strings.Repeat("é", 500000), "", 0)), id: "msg-ok"},
		{name: "output.message one character past", line: evalReq("msg-over", traceJSON(0, strings.Repeat("é", 500001), "", 0)), id: "msg-over", code: 1001, message: "output.message length 500001 exceeds 500000 characters"},
		{name: "step result at max size", line: evalReq("res-ok", traceJSON(1, "m", resultOf(1048576), 0)), id: "res-ok"},
		{name: "step result one byte past", line: evalReq("res-over", traceJSON(1, "m", resultOf(1048577), 0)), id: "res-over", code: 1001, message: "trace step 't' result exceeds 1048576 bytes (actual: 1048577 bytes)"},
		{name: "sub-trace depth at max", line: evalReq("depth-ok", subTrace(5)), id: "depth-ok"},
		{name: "sub-trace depth past max", line: evalReq("depth-over", subTrace(6)), id: "depth-over", code: 1001, message: "trace nesting depth 6 exceeds maximum 5"},
		{name: "50 MB line, id recovered", line: evalReq("huge", traceJSON(0, "m", "", 50<<20)), id: "huge", code: 1001, message: fmt.Sprintf("request line exceeds max size: %d > 16777216 bytes", len(evalReq("huge", traceJSON(0, "m", "", 50<<20))))},
		{name: "50 MB line of garbage", line: strings.Repeat("x", 50<<20), code: -32600, message: "request line exceeds max size: 52428800 > 16777216 bytes"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e.send(t, tc.line)
			// A valid probe behind every case: the engine still serves, and a
			// case that must not be answered is not (the probe's answer comes next).
			probe := fmt.Sprintf("probe-%d", i)
			e.send(t, evalReq(probe, okTrace))
			// Answers may come out of order (spec §1.5): match them by id.
			want := 2
			if tc.noReply {
				want = 1
			}
			byID := map[string]map[string]any{}
			for range want {
				a := e.answer(t)
				byID[fmt.Sprint(a["id"])] = a
			}
			checkAnswer(t, byID[probe], probe, 0, "")
			if !tc.noReply {
				got, ok := byID[fmt.Sprint(tc.id)]
				if !ok {
					t.Fatalf("no answer with id %v among %v", tc.id, byID)
				}
				checkAnswer(t, got, tc.id, tc.code, tc.message)
			}
		})
	}
}

func checkAnswer(t *testing.T, got map[string]any, id any, code int, message string) {
	t.Helper()
	if fmt.Sprint(got["id"]) != fmt.Sprint(id) {
		t.Errorf("answer id %v, want %v (answer %.300v)", got["id"], id, got)
		return
	}
	errObj, isErr := got["error"].(map[string]any)
	if code == 0 {
		if isErr || got["result"] == nil {
			t.Errorf("want a result, got %.300v", got)
		}
		return
	}
	if !isErr {
		t.Fatalf("want error %d, got %.300v", code, got)
	}
	if c := fmt.Sprint(errObj["code"]); c != fmt.Sprint(code) {
		t.Errorf("code %v, want %d (%v)", c, code, errObj["message"])
	}
	msg, _ := errObj["message"].(string)
	if prefix, ok := strings.CutSuffix(message, "…"); ok {
		if !strings.HasPrefix(msg, prefix) {
			t.Errorf("message %q, want prefix %q", msg, prefix)
		}
	} else if msg != message {
		t.Errorf("message %q, want %q", msg, message)
	}
	data, _ := errObj["data"].(map[string]any)
	if data["error_type"] == nil || data["detail"] == "" || data["retryable"] == nil {
		t.Errorf("error data incomplete: %v", data)
	}
}
