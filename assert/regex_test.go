// regex_test.go: the compiled-size bound of regex_match patterns: it is an upper bound, and it bounds the cost of refusing.

package assert

import (
	"regexp/syntax"
	"runtime"
	"strings"
	"testing"
)

// regexSeeds are patterns of every shape the estimate reads.
var regexSeeds = []string{
	`RFD-\d{3,}`, `^RFD-\d+$`, `(?i)rfd`, `a{2,5}`, `(a|bc){3}x*`, `[a-z]{10,}`, `\pL+\p{Greek}*\PN?`,
	`(?:[\p{Han}\p{Hiragana}]{1,40})+`, `(?s).{0,100}`, `\b(?:foo|bar|baz)\b`, `x{1000}`, `(?:ab{3}){300}`,
	`((((a))))`, `\Q\pL{1000}\E`, `[^\x00-\x{10FFFF}]`, `\p{^Greek}`, `(?-i:A)b`, ``,
}

// TestRegexEstimateIsUpperBound: for every pattern compileRegex accepts,
// the estimate is at least the program RE2 builds, so the bound holds.
func TestRegexEstimateIsUpperBound(t *testing.T) {
	for _, p := range regexSeeds {
		for _, fold := range []bool{false, true} {
			checkEstimate(t, p, fold)
		}
	}
}

func checkEstimate(t *testing.T, p string, fold bool) {
	t.Helper()
	if _, err := compileRegex(p, fold); err != nil {
		return
	}
	flags := syntax.Perl
	if fold {
		flags |= syntax.FoldCase
	}
	tree, err := syntax.Parse(p, flags)
	if err != nil {
		t.Fatalf("%q: compileRegex accepted what syntax.Parse refuses: %v", p, err)
	}
	est := programSize(tree)
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		t.Fatalf("%q: %v", p, err)
	}
	if got := len(prog.Inst); got > est {
		t.Errorf("%q (fold %v): program of %d instructions, estimated %d: the estimate must bound it", p, fold, got, est)
	}
}

// TestRegexLongAlternation: a pattern far longer than the former 4,096-byte
// limit is accepted when its program is small.
func TestRegexLongAlternation(t *testing.T) {
	names := make([]string, 600)
	for i := range names {
		names[i] = "Product Name " + strings.Repeat("x", i%7) + string(rune('A'+i%26)) + string(rune('a'+i/26))
	}
	p := `\b(?:` + strings.Join(names, "|") + `)\b`
	if len(p) < 10000 {
		t.Fatalf("pattern of %d bytes: want a long one", len(p))
	}
	re, err := compileRegex(p, false)
	if err != nil {
		t.Fatalf("%d-byte alternation of 600 names: %v", len(p), err)
	}
	if name := names[300]; !re.MatchString("we sell "+name+" here") || re.MatchString(strings.ToLower(name)) {
		t.Errorf("the alternation must match %q, case-sensitively", name)
	}
}

// TestRegexRefusalIsCheap: hostile patterns up to the 16 MiB line bound are
// refused without building what they describe: the memory allocated while
// compiling stays under 8 MiB (parsing \pL 4 million times would take
// gigabytes; a text of 16 MiB is read, not copied).
func TestRegexRefusalIsCheap(t *testing.T) {
	const line = 16 << 20
	cases := []struct{ name, unit string }{
		{"literal", "a"},
		{"Unicode classes", `\pL`},
		{"folded classes", `(?i)\p{Lu}`},
		{"repeats", "a{1000}"},
		{"captures", "(a)"},
		{"classes", "[a-c]"},
		{"alternation", "a|"},
	}
	for _, c := range cases {
		p := strings.Repeat(c.unit, line/len(c.unit))
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := compileRegex(p, false)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "pattern too large") {
			t.Errorf("%s: %d bytes: got %v, want a too-large error", c.name, len(p), err)
		}
		n := after.TotalAlloc - before.TotalAlloc
		if n > 8<<20 {
			t.Errorf("%s: refusing a %d-byte pattern allocated %d bytes, want at most 8 MiB", c.name, len(p), n)
		}
		t.Logf("%s: %d-byte pattern refused, %d bytes allocated", c.name, len(p), n)
	}
}

// FuzzRegexBound: any pattern is accepted or refused with an error, never
// a panic; when accepted, the estimate bounds the program RE2 builds.
func FuzzRegexBound(f *testing.F) {
	for _, p := range regexSeeds {
		f.Add(p, false)
	}
	f.Add(`\b(?:Nimbus Pro 300|Zephyr Air 100|Aurora Max 200)\b`, true)
	f.Add(strings.Repeat(`\pL`, 300), false)
	f.Add("(?:"+strings.Repeat("[a-z0-9]", 300)+"){1000}", false)
	f.Fuzz(func(t *testing.T, p string, fold bool) {
		checkEstimate(t, p, fold)
	})
}
