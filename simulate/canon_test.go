package simulate

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCanonical(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"members sorted, no white space", `{"b": 1, "a": [true, null, "x"]}`, `{"a":[true,null,"x"],"b":1}`},
		{"one number, many spellings", `[1, 1.0, 1e0, 10e-1, -0, 0.0]`, `[1,1,1,1,0,0]`},
		{"ECMAScript notation bounds", `[1e21, 1e20, 123e18, 0.000001, 0.0000001, 1.5e-7, 12345.678]`, `[1e+21,100000000000000000000,123000000000000000000,0.000001,1e-7,1.5e-7,12345.678]`},
		{"integers beyond 2^53 read as doubles", `[9007199254740993, 12345678901234567890]`, `[9007199254740992,12345678901234567000]`},
		{"shortest round-trip digits", `[0.1, 0.30000000000000004, 5e-324, 1.7976931348623157e308]`, `[0.1,0.30000000000000004,5e-324,1.7976931348623157e+308]`},
		{"minimal string escapes", `"\u0001\u001f\b\t\n\f\r\"\\/<>&\u007f\u00e9"`, "\"\\u0001\\u001f\\b\\t\\n\\f\\r\\\"\\\\/<>&\x7f\u00e9\""},
		{"UTF-16 order: astral before U+E000..U+FFFF", `{"\ue000": 1, "\ud83d\ude00": 2, "z": 3}`, "{\"z\":3,\"\U0001F600\":2,\"\ue000\":1}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := canonString(t, decode(t, c.in)); got != c.want {
				t.Errorf("Canonical(%s)\n got %s\nwant %s", c.in, got, c.want)
			}
		})
	}
}

func TestCanonicalErrors(t *testing.T) {
	deep := strings.Repeat("[", 600) + strings.Repeat("]", 600)
	for _, in := range []any{json.Number("1e400"), json.Number("x"), struct{}{}, decode(t, deep)} {
		if _, err := Canonical(in); err == nil {
			t.Errorf("Canonical(%v) succeeded, want an error", in)
		}
	}
}

// TestPythonReference runs testdata/simulate/reference.py (the reference quoted in doc.go) on calls with
// awkward args and compares its canonical text, digest, decision, pick and canary with this package's.
func TestPythonReference(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: the Python reference of the decision function is not compared")
	}
	args := []string{
		`{}`, `{"q": "refund", "n": 3}`, `{"b": 1.5, "a": [1e21, 1e-7, -0.0, "\u0001é"], "\ue000": 1, "\ud83d\ude00": 2}`,
		`{"x": 0.1, "y": 123456789012345678901234567890, "z": [1.0, 5e-324, 0.000001]}`, `{"nested": {"z": null, "a": false}}`,
	}
	type tc struct {
		Seed, Scenario, Tool, Fault string
		Occ, Att, Lo, Hi            int
		Rate                        float64
	}
	var in strings.Builder
	var want [][]any
	for i, a := range args {
		for j, c := range []tc{
			{"42", "refund-happy", "lookup_order", "f1", 1, 1, 10, 500, 0.5},
			{"seed ✓", "s-2", "search_web", "", 3, 1, 0, 0, 0.25},
			{"0", "s", "t", "timeout", 2, 7, 1, 600000, 0.9},
		} {
			c.Occ += i
			av := decode(t, a)
			canon := canonString(t, av)
			k := Key{Seed: c.Seed, ScenarioID: c.Scenario, Tool: c.Tool, Args: []byte(canon), Occurrence: c.Occ, Attempt: c.Att, FaultID: c.Fault}
			d := k.Digest()
			line, _ := json.Marshal(map[string]any{"seed": c.Seed, "scenario_id": c.Scenario, "tool": c.Tool,
				"args": json.RawMessage(a), "occurrence": c.Occ, "attempt": c.Att, "fault_id": c.Fault,
				"rate": c.Rate, "lo": c.Lo, "hi": c.Hi})
			in.Write(line)
			in.WriteByte('\n')
			want = append(want, []any{canon, hexOf(d), Fires(d, c.Rate), float64(Pick(d, c.Lo, c.Hi)), Canary(d)})
			_ = j
		}
	}
	cmd := exec.Command(py, filepath.Join("..", "testdata", "simulate", "reference.py"))
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3 reference.py: %v", err)
	}
	var got [][]any
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var row []any
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("reference output %q: %v", l, err)
		}
		got = append(got, row)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Go and the Python reference differ (-go +python):\n%s", diff)
	}
}
