// fuzz_test.go: fuzz targets for Parse and Select, seeded from the golden and CTS expressions.

package jsonpath

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// boundExpressions are pairs at each limit of an expression: the first
// within it, the second one past it (TestBoundExpressions checks which is
// which).
func boundExpressions() [][2]string {
	return [][2]string{
		// maxExprLen bytes, then one more.
		{"['" + strings.Repeat("x", maxExprLen-4) + "']", "['" + strings.Repeat("x", maxExprLen-3) + "']"},
		// maxSegments segments, then one more.
		{"a" + strings.Repeat(".a", maxSegments-1), "a" + strings.Repeat(".a", maxSegments)},
		// The same, counting the query of a filter.
		{"a[?b" + strings.Repeat("[0]", maxSegments-3) + "]", "a[?b" + strings.Repeat("[0]", maxSegments-2) + "]"},
		// One filter, then a filter in a filter.
		{"a[?b[0]]", "a[?b[?c]]"},
		{"$[?@.b[0]]", "$[?@.b[?@.c]]"},
	}
}

// seedExpressions returns the golden expressions, the syntax error cases,
// the expressions at each limit and, when the suite is present, the CTS
// selectors.
func seedExpressions() []string {
	var seeds []string
	for _, tc := range selectCases {
		seeds = append(seeds, tc.expr)
	}
	for _, tc := range syntaxErrorCases {
		seeds = append(seeds, tc.expr)
	}
	for _, pair := range boundExpressions() {
		seeds = append(seeds, pair[0], pair[1])
	}
	b, err := os.ReadFile(filepath.Join(ctsDir, "cts.json"))
	if err != nil {
		return seeds
	}
	var suite struct {
		Tests []struct {
			Selector string `json:"selector"`
		} `json:"tests"`
	}
	if json.Unmarshal(b, &suite) == nil {
		for _, tc := range suite.Tests {
			seeds = append(seeds, tc.Selector)
		}
	}
	return seeds
}

// FuzzParse checks that Parse never panics, fails only with a SyntaxError
// inside the expression, and that a parsed path prints back to one that
// parses to the same Path.
func FuzzParse(f *testing.F) {
	for _, s := range seedExpressions() {
		f.Add(s)
	}
	opt := cmp.AllowUnexported(Path{}, segment{}, filter{}, operand{})
	f.Fuzz(func(t *testing.T, expr string) {
		p, err := Parse(expr)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error %T, want *SyntaxError", expr, err)
			}
			if se.Offset < 0 || se.Offset > len(expr) {
				t.Fatalf("Parse(%q) error offset %d outside the expression", expr, se.Offset)
			}
			return
		}
		s := p.String()
		q, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q).String() = %q, which does not parse: %v", expr, s, err)
		}
		if q.String() != s {
			t.Fatalf("Parse(%q) prints %q, which prints %q", expr, s, q.String())
		}
		if diff := cmp.Diff(p, q, opt); diff != "" {
			t.Fatalf("Parse(%q) and Parse(%q) differ:\n%s", expr, s, diff)
		}
	})
}

// FuzzSelect checks that Select never panics, that a singular path selects
// at most one value, and that every Location selects its match again.
func FuzzSelect(f *testing.F) {
	docs := []string{`{"a":[1,{"b":"x","length":2}],"c":"héllo"}`, `[0,[1],{"k":null}]`, `"s"`,
		strings.Repeat(`[{"a":`, 256) + "1" + strings.Repeat("}]", 256)} // as deep as the engine's decoder allows (trace.MaxDepth)
	for _, name := range []string{refund, multi} {
		b, err := os.ReadFile(filepath.Join(testdataDir, name))
		if err == nil {
			docs = append(docs, string(b))
		}
	}
	for i, s := range seedExpressions() {
		f.Add(s, docs[i%len(docs)])
	}
	f.Fuzz(func(t *testing.T, expr, doc string) {
		p, err := Parse(expr)
		if err != nil {
			return
		}
		var v any
		d := json.NewDecoder(strings.NewReader(doc))
		d.UseNumber()
		if d.Decode(&v) != nil {
			return
		}
		ms := p.Select(v)
		if p.IsSingular() && len(ms) > 1 {
			t.Fatalf("singular %q selected %d values", expr, len(ms))
		}
		checkLocations(t, expr, v, ms)
	})
}
