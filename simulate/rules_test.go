package simulate

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseTableErrors(t *testing.T) {
	big := `"` + strings.Repeat("x", MaxPayload) + `"`
	long := strings.Repeat("x", MaxText+1)
	cases := []struct{ name, in, want string }{
		{"mocks not an array", `{"mocks": {}}`, `mocks[-1]: must be an array`},
		{"rule not an object", `{"mocks": [1]}`, `mocks[0]: must be an object`},
		{"missing id", `{"mocks": [{"tool": "a", "result": 1}]}`, `mocks[0]: id: required string`},
		{"duplicate id across lists", `{"mocks": [{"id": "a", "tool": "t", "result": 1}], "faults": [{"id": "a", "tool": "t", "kind": "empty"}]}`, `fault rule "a": id: "a" is already the id of a rule in mocks`},
		{"unknown field, exact case", `{"mocks": [{"id": "m", "Tool": "t", "result": 1}]}`, `mock rule "m": Tool: unknown field (allowed: error, id, match, result, sequence, tool)`},
		{"no answer", `{"mocks": [{"id": "m", "tool": "t"}]}`, `mock rule "m": needs exactly one of result, sequence or error (has 0)`},
		{"two answers", `{"mocks": [{"id": "m", "tool": "t", "result": 1, "error": 2}]}`, `(has 2)`},
		{"empty sequence", `{"mocks": [{"id": "m", "tool": "t", "sequence": []}]}`, `mock rule "m": sequence: must be an array of 1 to 1024 answers`},
		{"payload over 1 MiB", `{"mocks": [{"id": "m", "tool": "t", "result": ` + big + `}]}`, `mock rule "m": result: payload of 1048578 bytes exceeds 1048576 bytes`},
		{"two match kinds", `{"mocks": [{"id": "m", "tool": "t", "result": 1, "match": {"equals": {}, "subset": {}}}]}`, `mock rule "m": match: must be an object with exactly one of`},
		{"unknown match kind", `{"mocks": [{"id": "m", "tool": "t", "result": 1, "match": {"regex": "x"}}]}`, `mock rule "m": match.regex: unknown match kind`},
		{"bad schema", `{"mocks": [{"id": "m", "tool": "t", "result": 1, "match": {"schema": {"type": 3}}}]}`, `mock rule "m": match.schema: jsonschema: compile`},
		{"remote $ref never loaded", `{"mocks": [{"id": "m", "tool": "t", "result": 1, "match": {"schema": {"$ref": "https://example.com/s.json"}}}]}`, `mock rule "m": match.schema:`},
		{"bad jsonpath", `{"mocks": [{"id": "m", "tool": "t", "result": 1, "match": {"jsonpath": "$[?"}}]}`, `mock rule "m": match.jsonpath:`},
		{"unknown fault kind", `{"faults": [{"id": "f", "tool": "t", "kind": "explode"}]}`, `fault rule "f": kind: must be one of error, timeout`},
		{"field of another kind", `{"faults": [{"id": "f", "tool": "t", "kind": "empty", "ms": 3}]}`, `fault rule "f": ms: unknown field`},
		{"rate above 1", `{"faults": [{"id": "f", "tool": "t", "kind": "empty", "rate": 1.5}]}`, `fault rule "f": rate: must be a number from 0 to 1`},
		{"status not allowed", `{"faults": [{"id": "f", "tool": "t", "kind": "error", "status": 404}]}`, `fault rule "f": status: must be 429, 500 or 503`},
		{"fail_until needs k", `{"faults": [{"id": "f", "tool": "t", "kind": "fail_until"}]}`, `fault rule "f": k: required`},
		{"latency both forms", `{"faults": [{"id": "f", "tool": "t", "kind": "latency", "ms": 1, "min_ms": 1, "max_ms": 2}]}`, `fault rule "f": ms: give ms or min_ms/max_ms, not both`},
		{"latency max below min", `{"faults": [{"id": "f", "tool": "t", "kind": "latency", "min_ms": 5, "max_ms": 2}]}`, `fault rule "f": max_ms: must be an integer from 5 to 600000`},
		{"latency over bound", `{"faults": [{"id": "f", "tool": "t", "kind": "latency", "ms": 600001}]}`, `fault rule "f": ms: must be an integer from 0 to 600000`},
		{"malformed variant", `{"faults": [{"id": "f", "tool": "t", "kind": "malformed", "variant": "garbled"}]}`, `fault rule "f": variant: must be truncated`},
		{"dialect", `{"faults": [{"id": "f", "tool": "t", "kind": "error", "dialect": "gemini"}]}`, `fault rule "f": dialect: must be openai or anthropic`},
		{"tool missing", `{"faults": [{"id": "f", "kind": "empty"}]}`, `fault rule "f": tool: required`},
		{"id too long", `{"faults": [{"id": "` + strings.Repeat("i", 129) + `", "tool": "t", "kind": "empty"}]}`, `faults[0]: id: must have 1 to 128 bytes`},
		// docs/security.md: 4,096-byte texts, durations ≤ 10 minutes.
		{"error message over 4 KiB", `{"faults": [{"id": "f", "tool": "t", "kind": "error", "message": "` + long + `"}]}`, `fault rule "f": message: must have 1 to 4096 bytes`},
		{"timeout message over 4 KiB", `{"faults": [{"id": "f", "tool": "t", "kind": "timeout", "message": "` + long + `"}]}`, `fault rule "f": message: must have 1 to 4096 bytes`},
		{"injected text over 4 KiB", `{"faults": [{"id": "f", "tool": "t", "kind": "inject", "text": "` + long + `"}]}`, `fault rule "f": text: must have 1 to 4096 bytes`},
		{"timeout over bound", `{"faults": [{"id": "f", "tool": "t", "kind": "timeout", "ms": 600001}]}`, `fault rule "f": ms: must be an integer from 0 to 600000`},
		{"latency min over bound", `{"faults": [{"id": "f", "tool": "t", "kind": "latency", "min_ms": 600001, "max_ms": 600002}]}`, `fault rule "f": min_ms: must be an integer from 0 to 600000`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obj := decode(t, c.in).(map[string]any)
			_, err := ParseTable(obj["mocks"], obj["faults"])
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("ParseTable error = %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestParseTableCounts(t *testing.T) {
	var mocks []any
	for i := range MaxMocks + 1 {
		mocks = append(mocks, map[string]any{"id": strings.Repeat("m", i+1)[:min(i+1, 100)] + string(rune('a'+i%26)), "tool": "t", "result": nil})
	}
	if _, err := ParseTable(mocks, nil); err == nil || !strings.Contains(err.Error(), "at most 256 mock rules") {
		t.Errorf("257 mocks: %v", err)
	}
	var faults []any
	for i := range MaxFaults + 1 {
		faults = append(faults, map[string]any{"id": fmt.Sprint("f", i), "tool": "t", "kind": "empty"})
	}
	if _, err := ParseTable(nil, faults); err == nil || !strings.Contains(err.Error(), "at most 256 fault rules") {
		t.Errorf("257 faults: %v", err)
	}
}

func TestGlob(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"search_*", "search_web", true},
		{"search_*", "search_", true},
		{"search_*", "research_web", false},
		{"*_order", "lookup_order", true},
		{"*", "", true},
		{"a?c", "abc", true},
		{"a?c", "aéc", true},
		{"a?c", "ac", false},
		{"a*b*c", "aXbYbZc", true},
		{"a*b*c", "aXbYbZ", false},
		{"[a]", "a", false},
		{"[a]", "[a]", true},
		{"mcp/fs/*", "mcp/fs/read", true},
	}
	for _, c := range cases {
		if got := globMatch(c.pattern, c.name); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
}

// TestSubset: what a subset pattern accepts, scalars against scalars and containers.
func TestSubset(t *testing.T) {
	for _, c := range []struct {
		p, v string
		want bool
	}{
		{`{"a": "x"}`, `{"a": "x", "b": 1}`, true},
		{`{"a": "x"}`, `{"a": "y"}`, false},
		{`{"a": "1"}`, `{"a": 1}`, false},
		{`{"a": 1}`, `{"a": 1.0}`, true},
		{`{"a": 1}`, `{"a": [1]}`, false},
		{`{"a": "x"}`, `{"a": {"x": 1}}`, false},
		{`{"a": null}`, `{"a": []}`, false},
		{`{"a": [{"b": "é"}]}`, `{"a": [{"b": "é", "c": 2}]}`, true},
		{`{"a": [1]}`, `{"a": [1, 2]}`, false},
		{`{"a": {}}`, `{"a": {"b": 1}}`, true},
	} {
		if got := subset(decode(t, c.p), decode(t, c.v), 0); got != c.want {
			t.Errorf("subset(%s, %s) = %v, want %v", c.p, c.v, got, c.want)
		}
	}
}
