// grounded_test.go: grounded_values on texts with very many matches, and patterns with many groups.

package assert

import (
	"context"
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
