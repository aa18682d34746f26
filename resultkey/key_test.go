// key_test.go: the keys pinned by golden hashes, and the properties the rule promises.

package resultkey

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/resultkey")

// decode reads JSON as the engine's decoder model (numbers as json.Number).
func decode(t testing.TB, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

type keyCase struct {
	Name     string `json:"name"`
	Type     string `json:"type,omitempty"`
	Spec     string `json:"spec,omitempty"`
	AgentID  string `json:"agent_id,omitempty"`
	Suite    string `json:"suite_name,omitempty"`
	Input    string `json:"input,omitempty"`
	Scenario string `json:"scenario_id,omitempty"`
	Key      string `json:"key"`
}

// goldenCases are the inputs whose keys testdata/resultkey/keys.json pins:
// a change to the rule (domain, field order, encoding, canonical form)
// changes one of them, and every history and report keyed before it.
var goldenCases = []keyCase{
	{Name: "SDK tools_called_in_order", Type: "trace", Spec: `{"check":"contains_in_order","tools":["lookup_order","refund"],"soft":false}`},
	{Name: "SDK judge with null model", Type: "llm_judge", Spec: `{"target":"output.message","criteria":"polite","rubric":"default","threshold":0.8,"model":null,"soft":false}`},
	{Name: "scoped to an agent", Type: "content", Spec: `{"target":"output.message","check":"contains","value":"ok"}`, AgentID: "billing"},
	{Name: "watch suite name", Type: "schema", Spec: `{"target":"output.structured","schema":{"type":"object"}}`, Suite: "has-output"},
	{Name: "empty spec", Type: "constraint", Spec: `{}`},
	{Name: "trace case", AgentID: "customer-service-agent", Input: `{"user_message":"Refund order ORD-123","context":{"tier":"gold"}}`},
	{Name: "trace case without agent", Input: `"hello"`},
	{Name: "trace case, input null", Input: `null`},
	{Name: "trace case, no input"},
	{Name: "scenario", Scenario: "refund-happy-path"},
}

func (c keyCase) key(t testing.TB) string {
	t.Helper()
	switch {
	case c.Scenario != "":
		return Scenario(c.Scenario)
	case c.Type != "":
		k, err := Assertion(c.Type, decode(t, c.Spec), c.AgentID, c.Suite)
		if err != nil {
			t.Fatal(err)
		}
		return k
	case c.Input != "":
		k, err := Case(c.AgentID, decode(t, c.Input), true)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	k, _ := Case(c.AgentID, nil, false)
	return k
}

func TestGoldenKeys(t *testing.T) {
	got := make([]keyCase, len(goldenCases))
	for i, c := range goldenCases {
		c.Key = c.key(t)
		if len(c.Key) != Len {
			t.Errorf("%s: key %q is %d bytes, want %d", c.Name, c.Key, len(c.Key), Len)
		}
		got[i] = c
	}
	path := filepath.Join("..", "testdata", "resultkey", "keys.json")
	if *update {
		b, _ := json.MarshalIndent(got, "", "  ")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./resultkey -update writes it)", err)
	}
	var want []keyCase
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("keys changed (-golden +now): every history and report keyed before would part from new ones\n%s", d)
	}
}

// TestRuleByHand recomputes two keys from the rule as doc.go states it,
// with no code of the package.
func TestRuleByHand(t *testing.T) {
	field := func(b *bytes.Buffer, s string) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		b.Write(n[:])
		b.WriteString(s)
	}
	sum := func(prefix string, fields ...string) string {
		var b bytes.Buffer
		for _, f := range fields {
			field(&b, f)
		}
		h := sha256.Sum256(b.Bytes())
		return prefix + hex.EncodeToString(h[:16])
	}
	spec := `{"soft":false, "tools":["a","b"], "check":"exact_order", "n": 1.50}`
	got, err := Assertion("trace", decode(t, spec), "", "")
	if err != nil {
		t.Fatal(err)
	}
	want := sum("ak_", "attest-assertion-key-v1", "trace", `{"check":"exact_order","n":1.5,"soft":false,"tools":["a","b"]}`, "", "")
	if got != want {
		t.Errorf("assertion key %s, by hand %s", got, want)
	}
	got, _ = Case("agent", decode(t, `{"q": 1e2}`), true)
	if want := sum("ck_", "attest-case-key-v1", "trace", "agent", `{"q":100}`); got != want {
		t.Errorf("case key %s, by hand %s", got, want)
	}
	if got, want := Scenario("s1"), sum("ck_", "attest-case-key-v1", "scenario", "s1"); got != want {
		t.Errorf("scenario key %s, by hand %s", got, want)
	}
}

func TestKeyProperties(t *testing.T) {
	ak := func(typ, spec, agent, name string) string {
		k, err := Assertion(typ, decode(t, spec), agent, name)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	ck := func(agent, input string) string {
		k, err := Case(agent, decode(t, input), true)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	noInput, _ := Case("", nil, false)
	tests := []struct {
		name string
		a, b string
		same bool
	}{
		{"members in another order, numbers written otherwise: one spec", ak("trace", `{"tools":["x"],"n":1}`, "", ""), ak("trace", `{ "n" : 1.0e0, "tools" : [ "x" ] }`, "", ""), true},
		{"another tool name: another check", ak("trace", `{"tools":["x"]}`, "", ""), ak("trace", `{"tools":["y"]}`, "", ""), false},
		{"another type", ak("trace", `{}`, "", ""), ak("content", `{}`, "", ""), false},
		{"soft is part of the spec", ak("trace", `{"soft":true}`, "", ""), ak("trace", `{"soft":false}`, "", ""), false},
		{"scoped to an agent", ak("trace", `{}`, "a", ""), ak("trace", `{}`, "", ""), false},
		{"named by a suite", ak("trace", `{}`, "", "n"), ak("trace", `{}`, "", ""), false},
		{"fields do not run into each other", ak("trace", `{}`, "ab", ""), ak("trace", `{}`, "a", "b"), false},
		{"case: input in another form", ck("a", `{"x":[1,2],"y":"é"}`), ck("a", `{"y":"\u00e9","x":[1.0,2]}`), true},
		{"case: another input", ck("a", `{"x":1}`), ck("a", `{"x":2}`), false},
		{"case: another agent", ck("a", `{"x":1}`), ck("b", `{"x":1}`), false},
		{"case: null input is not an absent one", ck("", `null`), noInput, false},
		{"case: a scenario is not a trace of that name", Scenario("s"), ck("", `"s"`), false},
	}
	for _, tt := range tests {
		if (tt.a == tt.b) != tt.same {
			t.Errorf("%s: %s vs %s, want same=%v", tt.name, tt.a, tt.b, tt.same)
		}
	}
}

func TestKeyErrors(t *testing.T) {
	deep := strings.Repeat("[", 600) + strings.Repeat("]", 600)
	if _, err := Assertion("trace", decode(t, deep), "", ""); err == nil {
		t.Error("a spec nested 600 deep has a key; want an error")
	}
	if _, err := Case("", decode(t, `1e400`), true); err == nil {
		t.Error("an input beyond the double range has a key; want an error")
	}
}

func TestLabel(t *testing.T) {
	long := strings.Repeat("é", 200)
	tests := []struct {
		name, typ, spec, suite, want string
	}{
		{"a name wins", "trace", `{}`, "refund-order", "refund-order"},
		{"type and spec", "trace", `{"tools":["a"]}`, "", `trace {"tools":["a"]}`},
		{"cut on a character", "content", `"` + long + `"`, "", ""},
	}
	for _, tt := range tests {
		got := Label(tt.typ, []byte(tt.spec), tt.suite)
		if len(got) > LabelMax || !strings.HasPrefix(tt.typ+" "+tt.spec, strings.TrimSuffix(got, "…")) && got != tt.suite {
			t.Errorf("%s: %q (%d bytes)", tt.name, got, len(got))
		}
		if tt.want != "" && got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
		if !strings.HasSuffix(got, "…") && len(tt.typ+" "+tt.spec) > LabelMax {
			t.Errorf("%s: cut without an ellipsis", tt.name)
		}
	}
}

func BenchmarkAssertion(b *testing.B) {
	spec := decode(b, `{"target":"output.message","criteria":"The answer is polite and cites the order number","rubric":"default","threshold":0.8,"model":null,"soft":false}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Assertion("llm_judge", spec, "", ""); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAssertionOf(b *testing.B) {
	c := []byte(`{"criteria":"The answer is polite and cites the order number","model":null,"rubric":"default","soft":false,"target":"output.message","threshold":0.8}`)
	b.ReportAllocs()
	for b.Loop() {
		_ = AssertionOf("llm_judge", c, "", "")
	}
}
