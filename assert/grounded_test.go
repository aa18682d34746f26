// grounded_test.go: grounded_values on texts with very many matches, and patterns with many groups.

package assert

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestGroundedTooManyMatches: a text with more matches than maxGroundedMatches fails the check, naming the
// bound, rather than holding every match at once.
func TestGroundedTooManyMatches(t *testing.T) {
	tr := loadTrace(t, "refund")
	out := map[string]any{}
	for k, v := range tr["output"].(map[string]any) {
		out[k] = v
	}
	out["message"] = strings.Repeat("a", maxGroundedMatches+1)
	tr["output"] = out
	eng, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := eng.Evaluate(context.Background(), tr, []Assertion{{ID: "g", Type: "content",
		Spec: map[string]any{"target": "output.message", "check": "grounded_values", "value": "(a)"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].Status == Pass || !strings.Contains(rs[0].Explanation, "more than 100000 matches") {
		t.Fatalf("got %+v", rs)
	}
}

// TestGroundingRegex: only the first group still captures, and what matches is unchanged.
func TestGroundingRegex(t *testing.T) {
	for _, c := range []struct{ pattern, text, want string }{
		{`(\d+)`, "id 42", "42"},
		{`(?i)ref-(\d+)(x)?((y))`, "REF-7Y", "7"},
		{`((a)(b))|(c)`, "c", ""},
		{`((a)(b))|(c)`, "ab", "ab"},
		{`(?:x)((?P<n>\d)+)`, "x12", "12"},
	} {
		re := groundingRegex(regexp.MustCompile(c.pattern))
		if re.NumSubexp() != 1 {
			t.Errorf("%s: %d groups", c.pattern, re.NumSubexp())
		}
		loc := re.FindStringSubmatchIndex(c.text)
		orig := regexp.MustCompile(c.pattern).FindStringSubmatchIndex(c.text)
		if loc == nil || loc[0] != orig[0] || loc[1] != orig[1] || loc[2] != orig[2] || loc[3] != orig[3] {
			t.Errorf("%s on %q: %v, want %v", c.pattern, c.text, loc, orig)
			continue
		}
		if got := ""; loc[2] >= 0 && c.text[loc[2]:loc[3]] != c.want {
			got = c.text[loc[2]:loc[3]]
			t.Errorf("%s on %q: group %q, want %q", c.pattern, c.text, got, c.want)
		}
	}
}

// BenchmarkGroundedWorstCase is 1,000 distinct ungrounded values looked up in 9 MB of tool results.
func BenchmarkGroundedWorstCase(b *testing.B) {
	tr := loadTrace(b, "refund")
	out := map[string]any{}
	for k, v := range tr["output"].(map[string]any) {
		out[k] = v
	}
	var msg strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&msg, "ID-%07d ", i)
	}
	out["message"] = msg.String()
	tr["output"] = out
	steps := make([]any, 9)
	for i := range steps {
		steps[i] = map[string]any{"type": "tool_call", "name": "t", "args": map[string]any{}, "result": map[string]any{"text": strings.Repeat("ID-000000 ", 100000)}}
	}
	tr["steps"] = steps
	eng, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	as := []Assertion{{ID: "g", Type: "content", Spec: map[string]any{"target": "output.message", "check": "grounded_values", "value": `ID-\d{7}`}}}
	for b.Loop() {
		if _, err := eng.Evaluate(context.Background(), tr, as); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGroundedIn: the indexed lookup answers as the scan does, a value spanning two sources included.
func TestGroundedIn(t *testing.T) {
	sources := []string{"refund R-1 issued", "42", "ab\xffcd", "é"}
	for _, c := range []struct {
		v    string
		want bool
	}{
		{"R-1", true}, {"42", true}, {"issued42", false}, {"d\xffr", false}, {"b\xffc", true},
		{"\xffc", true}, {"é", true}, {"x", false}, {"refund R-1 issued", true}, {"2a", false},
	} {
		for _, lookups := range []int{1, indexFrom} { // scanned, indexed
			if got := groundedIn(sources, lookups)(c.v); got != c.want {
				t.Errorf("%q (lookups %d): %v, want %v", c.v, lookups, got, c.want)
			}
		}
	}
}

// TestGroundedTooManyValues: a value past maxGroundedValues is never left unchecked under a pass; here the
// first 1,000 are grounded in the input and the last is not.
func TestGroundedTooManyValues(t *testing.T) {
	tr := loadTrace(t, "refund")
	var grounded, msg strings.Builder
	for i := range maxGroundedValues {
		fmt.Fprintf(&grounded, "ID-%07d ", i)
	}
	msg.WriteString(grounded.String())
	msg.WriteString("ID-9999999")
	tr["input"] = map[string]any{"ids": grounded.String()}
	out := map[string]any{}
	for k, v := range tr["output"].(map[string]any) {
		out[k] = v
	}
	out["message"] = msg.String()
	tr["output"] = out
	eng, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := eng.Evaluate(context.Background(), tr, []Assertion{{ID: "g", Type: "content",
		Spec: map[string]any{"target": "output.message", "check": "grounded_values", "value": `ID-\d{7}`}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].Status == Pass || !strings.Contains(rs[0].Explanation, "more than 1000 distinct") {
		t.Fatalf("got %+v", rs[0].Status)
	}
}

// TestGroundedLongValue: a long ungrounded value is named cut to 200 bytes, not whole.
func TestGroundedLongValue(t *testing.T) {
	tr := loadTrace(t, "refund")
	out := map[string]any{}
	for k, v := range tr["output"].(map[string]any) {
		out[k] = v
	}
	out["message"] = "<" + strings.Repeat("z", 100000) + ">"
	tr["output"] = out
	eng, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := eng.Evaluate(context.Background(), tr, []Assertion{{ID: "g", Type: "content",
		Spec: map[string]any{"target": "output.message", "check": "grounded_values", "value": `<(z+)>`}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].Status == Pass || len(rs[0].Explanation) > 1000 {
		t.Fatalf("status %s, explanation of %d bytes", rs[0].Status, len(rs[0].Explanation))
	}
}
