// content_test.go: golden cases and the fuzz target of the content layer.

package assert

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestContentGolden runs testdata/content/cases.json; see runGolden.
func TestContentGolden(t *testing.T) { runGolden(t, "content", "content") }

// FuzzContent decodes any spec and evaluates it: never a panic or a hang.
func FuzzContent(f *testing.F) { fuzzLayer(f, "content", "content") }

// TestKeywordsLowerTextOnce: a case-insensitive keyword check lowers its
// text once, not once per value: on a text with capitals it allocates at
// most one more time than on the same text in lower case.
func TestKeywordsLowerTextOnce(t *testing.T) {
	if raceDetector {
		t.Skip("counts allocations, which vary under the race detector")
	}
	c, err := compileContent(nil, spec{"target": "output.message", "check": "keyword_all",
		"values": []any{"refund", "processed", "business days", "rfd-", "order", "thank you"}})
	if err != nil {
		t.Fatal(err)
	}
	allocs := func(message string) float64 {
		in := testInput(map[string]any{"output": map[string]any{"message": message}})
		return testing.AllocsPerRun(100, func() {
			if o, _ := c.eval(context.Background(), in); !o.pass {
				t.Fatalf("%q: %s", message, o.explanation)
			}
		})
	}
	text := "Thank you: your REFUND of order ORD-123 is processed in 3 business days, RFD-001."
	upper, lower := allocs(text), allocs(strings.ToLower(text))
	if upper > lower+1 {
		t.Errorf("keyword_all with 6 values: %v allocations on a text with capitals, %v in lower case; want at most one more (the text lowered once)", upper, lower)
	}
}

// FuzzContentVerdict: the verdict eval gives the matches it does not name
// (holds) is the one it gives the matches it explains (one), for every
// check, text and value.
func FuzzContentVerdict(f *testing.F) {
	for _, s := range []struct {
		check, text, value string
		cs                 bool
	}{
		{"contains", "Your refund is processed.", "REFUND", false},
		{"contains", "Your refund is processed.", "REFUND", true},
		{"not_contains", "temperature in \u212a", "k", false},
		{"regex_match", "order ORD-123", `ORD-\d+`, true},
		{"keyword_all", "Thank you, RFD-001", "thank|rfd-|order", false},
		{"keyword_any", "nothing here", "refund|order", false},
		{"forbidden", "my SSN is 123", "ssn|password", false},
		{"forbidden", "ÉTÉ", "été", false},
	} {
		f.Add(s.check, s.text, s.value, s.cs)
	}
	f.Fuzz(func(t *testing.T, check, text, value string, cs bool) {
		if !utf8.ValidString(value) {
			return // a spec is JSON: its strings are UTF-8 (the text need not be)
		}
		sp := spec{"target": "output.message", "check": check, "case_sensitive": cs, "value": value}
		var values []any
		for _, v := range strings.Split(value, "|") {
			values = append(values, v)
		}
		sp["values"] = values
		chk, err := compileContent(nil, sp)
		if err != nil {
			return // not a check this test is about
		}
		c := chk.(*contentCheck)
		if c.check == "grounded_values" {
			return
		}
		room := make([]byte, 0, 16)
		want, why := c.one("output.message", text)
		if got := c.holds(text, c.lower(text, room)); got != want {
			t.Errorf("%s %q in %q (case_sensitive %v): holds %v, one %v (%s)", check, value, text, cs, got, want, why)
		}
	})
}

// TestLowerASCII: lowerASCII against strings.ToLower, in the caller's room
// and past it, and nil for text that is not ASCII.
func TestLowerASCII(t *testing.T) {
	long := strings.Repeat("Refund PROCESSED @[`{~ ", 40)
	for _, s := range []string{"", "A", "Z@[`az{", "Your Refund of $89.99", long, "café", long + "é", "\x7f\x00Q"} {
		var room [64]byte
		got := lowerASCII(s, room[:0])
		if !isASCII(s) {
			if got != nil {
				t.Errorf("lowerASCII(%q) = %q, want nil (not ASCII)", s, got)
			}
			continue
		}
		if string(got) != strings.ToLower(s) {
			t.Errorf("lowerASCII(%q) = %q, want %q", s, got, strings.ToLower(s))
		}
	}
}

// TestNeedleTooLong: a text past what a case-folding regexp may hold (the
// request line allows one) is a spec error naming its size, not a panic.
func TestNeedleTooLong(t *testing.T) {
	long := strings.Repeat("ab", 6<<20)
	for _, sp := range []spec{
		{"target": "output.message", "check": "contains", "value": long},
		{"target": "output.message", "check": "keyword_any", "values": []any{"x", long}},
	} {
		_, err := compileContent(nil, sp)
		var se *specError
		if !errors.As(err, &se) || !strings.Contains(se.msg, "too long to match ignoring case") {
			t.Errorf("%s: err = %v, want a spec error", sp["check"], err)
		}
	}
	sp := spec{"target": "output.message", "check": "contains", "value": long, "case_sensitive": true}
	if _, err := compileContent(nil, sp); err != nil {
		t.Errorf("case-sensitive: %v, want it compiled (matched exactly)", err)
	}
}
