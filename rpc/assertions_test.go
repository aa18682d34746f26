// assertions_test.go: params.assertions read straight into assertions answer exactly as decoded plainly.

package rpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadAssertions: the assertions of a batch are read straight into
// assertions only in the shape SDKs send; any other shape is left to the
// plain decode. Either way the answer is the one a server that decodes the
// line plainly gives.
func TestReadAssertions(t *testing.T) {
	var p struct {
		Params struct{ Trace json.RawMessage }
	}
	if err := json.Unmarshal([]byte(specBatchLine(t)), &p); err != nil {
		t.Fatal(err)
	}
	const sp = `{"target":"output.message","check":"contains","value":"refund"}`
	tests := []struct {
		name, assertions string
		read             bool // read straight, not through maps
	}{
		{"one", `[{"assertion_id":"a1","type":"content","spec":` + sp + `}]`, true},
		{"white space", "[ {\t\"assertion_id\" : \"a1\" ,\n\"type\":\"content\" , \"spec\" :" + sp + " } , {\"spec\":" + sp + ",\"type\":\"content\",\"assertion_id\":\"a2\"}\r]", true},
		{"request_id and agent_id", `[{"assertion_id":"a1","type":"content","spec":` + sp + `,"request_id":"r1","agent_id":null}]`, true},
		{"null request_id", `[{"assertion_id":"a1","type":"content","spec":` + sp + `,"request_id":null}]`, true},
		{"escapes", `[{"assertion\u005fid":"a\"1\u00e9","type":"cont\u0065nt","spec":` + sp + `}]`, true},
		{"unknown type", `[{"assertion_id":"a1","type":"contents","spec":` + sp + `}]`, true},
		{"unknown agent", `[{"assertion_id":"a1","type":"content","spec":` + sp + `,"agent_id":"nobody"}]`, true},
		{"empty", `[]`, true},
		{"another member", `[{"assertion_id":"a1","type":"content","spec":` + sp + `,"note":1}]`, true}, // ignored, as assert.Parse ignores it
		{"duplicate member", `[{"assertion_id":"a1","type":"content","spec":` + sp + `,"type":"content"}]`, false},
		{"duplicate in spec", `[{"assertion_id":"a1","type":"content","spec":{"check":"contains","check":"contains"}}]`, false},
		{"missing id", `[{"type":"content","spec":` + sp + `}]`, false},
		{"empty id", `[{"assertion_id":"","type":"content","spec":` + sp + `}]`, false},
		{"numeric id", `[{"assertion_id":1,"type":"content","spec":` + sp + `}]`, false},
		{"spec not an object", `[{"assertion_id":"a1","type":"content","spec":[]}]`, false},
		{"empty agent_id", `[{"assertion_id":"a1","type":"content","spec":` + sp + `,"agent_id":""}]`, false},
		{"request_id a number", `[{"assertion_id":"a1","type":"content","spec":` + sp + `,"request_id":7}]`, false},
		{"nullx", `[{"assertion_id":"a1","type":"content","spec":` + sp + `,"request_id":nullx}]`, false},
		{"not an object", `[{"assertion_id":"a1","type":"content","spec":` + sp + `},3]`, false},
		{"duplicate ids", `[{"assertion_id":"a1","type":"content","spec":` + sp + `},{"assertion_id":"a1","type":"content","spec":` + sp + `}]`, true},
		{"invalid UTF-8", "[{\"assertion_id\":\"a\xff\",\"type\":\"content\",\"spec\":" + sp + "}]", false},
		{"unterminated", `[{"assertion_id":"a1","type":"content","spec":` + sp + `}`, false},
		{"trailing comma", `[{"assertion_id":"a1","type":"content","spec":` + sp + `},]`, false},
		{"deep spec", `[{"assertion_id":"a1","type":"content","spec":{"x":` + strings.Repeat("[", 507) + strings.Repeat("]", 507) + `}}]`, true},
		{"too deep spec", `[{"assertion_id":"a1","type":"content","spec":{"x":` + strings.Repeat("[", 508) + strings.Repeat("]", 508) + `}}]`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			line := `{"jsonrpc":"2.0","id":1,"method":"evaluate_batch","params":{"trace":` + string(p.Params.Trace) + `,"assertions":` + tc.assertions + `}}`
			s := newReadyServer(t)
			req, perr := s.parseBatch([]byte(line))
			got := wireAnswer(s, req, perr)
			freq, fperr := parse([]byte(line))
			if d := cmp.Diff(wireAnswer(newReadyServer(t), freq, fperr), got); d != "" {
				t.Errorf("answer differs (-plain +read):\n%s", d)
			}
			read := false
			if req != nil {
				read = req.read
			}
			if read != tc.read {
				t.Errorf("read straight: %v, want %v (answer %.200s)", read, tc.read, got)
			}
		})
	}
}
