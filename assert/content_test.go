// content_test.go: golden cases and the fuzz target of the content layer.

package assert

import (
	"context"
	"strings"
	"testing"
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
