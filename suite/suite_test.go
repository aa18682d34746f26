// suite_test.go: what a suite file may hold, its bounds, its hash; fuzzed.

package suite

import (
	"fmt"
	"strings"
	"testing"
)

func TestSuite(t *testing.T) {
	tests := []struct {
		name, text, err string
	}{
		{"ok", `{"assertions":[{"name":"a","type":"trace","spec":{}}],"sample_rates":{"x":0.5},"filter":{"agent_ids":["x"]}}`, ""},
		{"not an object", `[]`, `want a JSON object {"assertions": [...]}, got array`},
		{"unknown member", `{"assertions":[{"name":"a","type":"t","spec":{}}],"x":1}`, `unknown member "x" (want assertions, sample_rates, filter)`},
		{"no assertions", `{"assertions":[]}`, `"assertions" must be a non-empty array`},
		{"duplicate name", `{"assertions":[{"name":"a","type":"t","spec":{}},{"name":"a","type":"t","spec":{}}]}`, `assertions[1]: name "a" is used twice (names are the keys of results and history)`},
		{"no spec", `{"assertions":[{"name":"a","type":"t"}]}`, `assertions[0]: assertion "a": "spec" must be an object`},
		{"assertion_id is not a member", `{"assertions":[{"name":"a","type":"t","spec":{},"assertion_id":"x"}]}`, `assertions[0]: unknown member "assertion_id" (want name, type, spec, agent_id)`},
		{"bad rate", `{"assertions":[{"name":"a","type":"t","spec":{}}],"sample_rates":{"x":2}}`, `sample_rates["x"]: sample rate "2": want a decimal number from 0 to 1`},
		{"bad filter", `{"assertions":[{"name":"a","type":"t","spec":{}}],"filter":{"agents":[]}}`, `"filter" must be {"agent_ids": [...]} with at most 10000 ids`},
	}
	for _, tt := range tests {
		_, err := parse([]byte(tt.text))
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if msg != tt.err {
			t.Errorf("%s: error %q, want %q", tt.name, msg, tt.err)
		}
	}
	// docs/security.md "watch suite file | 4 MiB, 1,000 assertions, names
	// ≤ 256 bytes, 10,000 agents in sample_rates and in filter": one past
	// each bound is refused, the bound itself accepted.
	one := func(name string) string { return `{"name":"` + name + `","type":"trace","spec":{}}` }
	many := func(n int, item func(int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = item(i)
		}
		return strings.Join(parts, ",")
	}
	rates := func(n int) string {
		return `{"assertions":[` + one("a") + `],"sample_rates":{` + many(n, func(i int) string { return fmt.Sprintf(`"agent-%d":0.5`, i) }) + `}}`
	}
	bounds := []struct {
		name, text, err string
	}{
		{"1,000 assertions", `{"assertions":[` + many(MaxAssertions, func(i int) string { return one(fmt.Sprint("a", i)) }) + `]}`, ""},
		{"1,001 assertions", `{"assertions":[` + many(MaxAssertions+1, func(i int) string { return one(fmt.Sprint("a", i)) }) + `]}`, "1001 assertions, more than 1000"},
		{"256-byte name", `{"assertions":[` + one(strings.Repeat("n", MaxNameBytes)) + `]}`, ""},
		{"257-byte name", `{"assertions":[` + one(strings.Repeat("n", MaxNameBytes+1)) + `]}`, `assertions[0]: "name" must be a string of 1 to 256 bytes`},
		{"10,000 sample rates", rates(MaxAgentRates), ""},
		{"10,001 sample rates", rates(MaxAgentRates + 1), `"sample_rates" must be an object of at most 10000 agent ids → rates`},
	}
	for _, tt := range bounds {
		_, err := parse([]byte(tt.text))
		if msg := fmt.Sprint(err); (tt.err == "" && err != nil) || (tt.err != "" && msg != tt.err) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
		}
	}
	big := `{"assertions":[` + one("a") + `],"filter":{"agent_ids":["` + strings.Repeat("x", MaxBytes) + `"]}}`
	if _, err := Read(strings.NewReader(big), "big.json"); err == nil || err.Error() != "suite big.json: larger than 4194304 bytes" {
		t.Errorf("a suite file over 4 MiB: error %v, want it refused by size", err)
	}

	// The hash is of the canonical form: white space and member order do not count.
	a, _ := parse([]byte(`{"assertions":[{"name":"a","type":"trace","spec":{"x":1,"y":2}}]}`))
	b, _ := parse([]byte("{ \"assertions\" : [ {\"spec\":{\"y\":2,\"x\":1}, \"type\":\"trace\", \"name\":\"a\"} ] }"))
	c, _ := parse([]byte(`{"assertions":[{"name":"a","type":"trace","spec":{"x":1,"y":3}}]}`))
	if a.Hash != b.Hash || a.Hash == c.Hash {
		t.Errorf("suite hashes: %s %s %s", a.Hash, b.Hash, c.Hash)
	}
}

// FuzzSuite: any suite text is read or refused with an error, never a panic.
func FuzzSuite(f *testing.F) {
	f.Add([]byte(`{"assertions":[{"name":"a","type":"trace","spec":{}}],"sample_rates":{"x":0.5},"filter":{"agent_ids":["x"]}}`))
	f.Add([]byte(`{"assertions":[{"name":"a","type":"t","spec":{}}],"sample_rates":{"x":"1"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parse(data)
		if err == nil && (len(s.Assertions) == 0 || s.Hash == "") {
			t.Fatal("a suite without assertions or hash")
		}
	})
}
