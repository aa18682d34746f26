// parse_test.go: every error Parse gives (a golden file), the earliest-repeat rule of duplicate names, Doc reuse.

package tape

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/tape")

const testdataDir = "../testdata/tape"

// truncated are documents Parse is given cut at every byte: each prefix is
// invalid, so the golden file shows the error for each place a text can end.
var truncated = []string{
	`{"a":[1,-2.5e+3,true,false,null,"x\u00e9\n"],"b":{}}`,
	`["\ud83d\ude00", "ü", 0.5E-7, {"k" : [ ]}]`,
	`[-1.0e+10,0]`,
}

// invalidTests are texts Parse refuses; name says why each is here.
var invalidTests = []struct{ name, in string }{
	{"empty input", ``},
	{"white space only", " \t\r\n"},
	{"trailing data after object", `{} x`},
	{"trailing data after number", `1 2`},
	{"trailing data after string", `"a""b"`},
	{"two top-level values", `[][]`},
	{"leading zero", `01`},
	{"trailing comma in array", `[1,]`},
	{"trailing comma in object", `{"a":1,}`},
	{"missing comma in array", `[1 2]`},
	{"missing comma in object", `{"a":1 "b":2}`},
	{"missing colon", `{"a" 1}`},
	{"non-string key", `{1:2}`},
	{"single-quoted string", `'a'`},
	{"unquoted key", `{a:1}`},
	{"bad literal true", `tru`},
	{"bad literal false", `fals`},
	{"bad literal null", `nul`},
	{"capital True", `True`},
	{"literal with junk", `nullx`},
	{"lone minus", `-`},
	{"minus then letter", `-a`},
	{"plus sign", `+1`},
	{"leading dot", `.5`},
	{"no digits after point", `1.`},
	{"no digits after point, exponent", `1.e5`},
	{"no digits in exponent", `1e`},
	{"no digits after exponent sign", `1e+`},
	{"hex number", `0x10`},
	{"NaN", `NaN`},
	{"Infinity", `Infinity`},
	{"-Infinity", `-Infinity`},
	{"NaN in array", `[1,NaN]`},
	{"Infinity member", `{"a":Infinity}`},
	{"-Infinity member", `{"a":-Infinity}`},
	{"-NaN", `-NaN`},
	{"Nan (not NaN)", `Nan`},
	{"Infinit (cut)", `Infinit`},
	{"bad escape", `"\x"`},
	{"escaped single quote", `"\'"`},
	{"bad unicode escape", `"\u00zz"`},
	{"short unicode escape", `"\u12"`},
	{"short unicode escape at the end", `"\u12`},
	{"bad second half of a pair", `"\ud800\uZZZZ"`},
	{"short second half of a pair", `"\ud800\u12"`},
	{"backslash at the end", `"\`},
	{"raw newline in string", "\"a\nb\""},
	{"raw tab in string", "\"a\tb\""},
	{"raw NUL in string", "\"\x00\""},
	{"raw 0x1f in string", "\"\x1f\""},
	{"control character in a key", "{\"a\x01\":1}"},
	{"invalid UTF-8 byte", "\"\xff\""},
	{"lone continuation byte", "\"\x80\""},
	{"truncated two-byte rune", "\"\xc3\""},
	{"truncated three-byte rune", "\"\xe2\x82\""},
	{"overlong encoding", "\"\xc0\xaf\""},
	{"UTF-8 surrogate", "\"\xed\xa0\x80\""},
	{"beyond U+10FFFF", "\"\xf4\x90\x80\x80\""},
	{"invalid UTF-8 in a key", "{\"\xff\":1}"},
	{"invalid UTF-8 outside strings", "[\xff]"},
	{"byte order mark", "\xef\xbb\xbf{}"},
	{"form feed is not white space", "\f1"},
	{"vertical tab is not white space", "[1,\v2]"},
	{"NBSP is not white space", "[1,\xc2\xa02]"},
	{"comment", `[1 /* c */]`},
	{"unclosed array", `[1,2`},
	{"unclosed object", `{"a":1`},
	{"unclosed nested", `{"a":[{"b":[`},
	{"mismatched brackets", `[1}`},
	{"mismatched braces", `{"a":1]`},
	{"close only", `]`},
	{"depth MaxDepth+1 of arrays", nest("[", "]", MaxDepth+1)},
	{"depth MaxDepth+1 of objects", nest(`{"a":`, "}", MaxDepth+1)},
	{"depth MaxDepth+1, mixed", nest(`[{"a":`, "}]", (MaxDepth+1)/2+1)},
	{"depth MaxDepth, then trailing data", nest("[", "]", MaxDepth) + "]"},
	{"duplicate then syntax error", `{"a":1,"a":2} x`},
}

// nest is depth-1 copies of open around an empty array or object (an
// array after "[", else an object), then depth-1 copies of close.
func nest(open, close string, depth int) string {
	inner := "{}"
	if strings.HasSuffix(open, "[") {
		inner = "[]"
	}
	return strings.Repeat(open, depth-1) + inner + strings.Repeat(close, depth-1)
}

// parseStd is encoding/json's value of a valid text (UseNumber, into any).
func parseStd(t *testing.T, in string) any {
	t.Helper()
	var v any
	dec := json.NewDecoder(strings.NewReader(in))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	return v
}

// TestErrorsGolden parses every invalid text and compares each error (its
// type, message, offset and NonFinite mark) with testdata/tape/errors.golden.
func TestErrorsGolden(t *testing.T) {
	var b strings.Builder
	line := func(name, in string) {
		d, err := Parse([]byte(in))
		var se *SyntaxError
		if !errors.As(err, &se) || d != nil {
			t.Errorf("%s: Parse(%q) = Doc %v, error %v; want no Doc and a *SyntaxError", name, in, d != nil, err)
			if d != nil {
				d.Release()
			}
			return
		}
		if se.Offset < 0 || se.Offset > len(in) {
			t.Errorf("%s: offset %d outside the input (%d bytes)", name, se.Offset, len(in))
		}
		shown := fmt.Sprintf("%q", in)
		if len(in) > 60 {
			shown = fmt.Sprintf("%q…%q (%d bytes)", in[:24], in[len(in)-24:], len(in))
		}
		mark := ""
		if se.NonFinite {
			mark = " [NonFinite]"
		}
		fmt.Fprintf(&b, "%s\n\t%s\n\t%v%s\n", name, shown, err, mark)
	}
	for _, tt := range invalidTests {
		line(tt.name, tt.in)
	}
	for i, doc := range truncated {
		if _, err := Parse([]byte(doc)); err != nil {
			t.Fatalf("truncated document %d is invalid whole: %v", i, err)
		}
		for n := range len(doc) {
			line(fmt.Sprintf("document %d cut to %d bytes", i, n), doc[:n])
		}
	}
	compareGolden(t, "errors.golden", b.String())
}

// TestMaxDepth: documents nested exactly MaxDepth deep parse.
func TestMaxDepth(t *testing.T) {
	for _, in := range []string{nest("[", "]", MaxDepth), nest(`{"a":`, "}", MaxDepth), "[" + nest(`[{"a":`, "}]", MaxDepth/2) + "]"} {
		d, err := Parse([]byte(in))
		if err != nil {
			t.Errorf("%.20s…: %v", in, err)
			continue
		}
		depth := 0
		for v := d.Root(); v.Exists(); depth++ {
			if v.Kind() == Array {
				v = v.Index(0)
			} else {
				_, v = first(v.Members())
			}
		}
		d.Release()
		if depth != MaxDepth {
			t.Errorf("%.20s…: depth %d", in, depth)
		}
	}
}

// first is the first pair seq yields, or zero Values.
func first(seq func(func(Value, Value) bool)) (k, v Value) {
	for k, v = range seq {
		break
	}
	return k, v
}

func compareGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(testdataDir, name)
	if *update {
		if err := os.MkdirAll(testdataDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-golden +got):\n%s", name, diff)
	}
}

// manyMembers is an object of n members k0…k(n-1), then extra.
func manyMembers(n int, extra string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		fmt.Fprintf(&b, `"k%d":%d,`, i, i)
	}
	b.WriteString(extra)
	b.WriteByte('}')
	return b.String()
}

// TestDuplicate: the *DuplicateKeyError names the document's earliest
// repeat (the repeated name's offset is smallest), although inner objects
// are checked first because they close first; names compare decoded.
func TestDuplicate(t *testing.T) {
	long := manyMembers(20, `"k3":"again","k1":"again"`)
	tests := []struct {
		name, in string
		key      string
		offset   int
	}{
		{"a pair", `{"a":1,"a":2}`, "a", 7},
		{"three times: the second", `{"a":1,"a":2,"a":3}`, "a", 7},
		{"earliest repeat, not earliest name", `{"a":1,"b":2,"b":3,"a":4}`, "b", 13},
		{"empty name", `{"":1,"":2}`, "", 6},
		{"names alike in length and first and last bytes", `{"axb":1,"ayb":2,"axb":3}`, "axb", 17},
		{"in a nested object", `[1,{"x":{"a":1,"a":2}}]`, "a", 15},
		{"inner closes first but the outer repeat is earlier", `{"x":1,"x":{"a":1,"a":2}}`, "x", 7},
		{"inner repeat earlier than the outer one", `{"x":{"a":1,"a":2},"x":3}`, "a", 12},
		{"two sibling objects: the first", `[{"b":1,"b":2},{"a":1,"a":2}]`, "b", 8},
		{"two sibling objects, the second repeats earlier", `[{"b":1,"c":2,"d":3,"b":4},{"a":1,"a":2}]`, "b", 20},
		{"deep inside outer repeat", `{"o":{"p":{"q":{"a":1,"a":2}}},"o":1}`, "a", 22},
		{"escaped repeat of a plain name", `{"a":1,"\u0061":2}`, "a", 7},
		{"plain repeat of an escaped name", `{"\u0061":1,"a":2}`, "a", 12},
		{"both escaped differently", `{"\u0061":1,"\u0041\u0061":2,"\u0041a":3}`, "Aa", 29},
		{"escaped quote", `{"\"":1,"\u0022":2}`, `"`, 8},
		{"lone surrogates decode alike", `{"\ud800":1,"\udc00":2}`, "\uFFFD", 12},
		{"same raw text, not escaped", `{"é":1,"é":2}`, "é", 8},
		{"more than 16 members", long, "k3", strings.Index(long, `"k3":"again"`)},
		{"more than 16 members, escaped", manyMembers(17, `"\u006b5":0`), "k5", strings.Index(manyMembers(17, ""), "}")},
		{"exactly 16 members", manyMembers(15, `"k0":0`), "k0", strings.Index(manyMembers(15, ""), "}")},
		{"17th member repeats the 16th", manyMembers(16, `"k15":0`), "k15", strings.Index(manyMembers(16, ""), "}")},
	}
	for _, tt := range tests {
		d, err := Parse([]byte(tt.in))
		var de *DuplicateKeyError
		if !errors.As(err, &de) || d == nil {
			t.Errorf("%s: Parse(%s) = Doc %v, error %v; want a Doc and a *DuplicateKeyError", tt.name, tt.in, d != nil, err)
			continue
		}
		if de.Key != tt.key || de.Offset != tt.offset {
			t.Errorf("%s: %v; want key %q at offset %d", tt.name, err, tt.key, tt.offset)
		}
		if tt.in[de.Offset] != '"' {
			t.Errorf("%s: offset %d is not a name's quote", tt.name, de.Offset)
		}
		// The Doc is whole: Any keeps the last member, and so does Get.
		for k, v := range d.Root().Members() {
			last := d.Root().Get(k.Str())
			for k2, v2 := range d.Root().Members() {
				if k2.Str() == k.Str() {
					last = v2
				}
			}
			if d.Root().Get(k.Str()) != last {
				t.Errorf("%s: Get(%q) is not the last member of that name", tt.name, k.Str())
			}
			_ = v
		}
		if m, ok := d.Root().Any().(map[string]any); ok {
			for name, v := range m {
				if want := d.Root().Get(name).Any(); !cmp.Equal(v, want) {
					t.Errorf("%s: Any's %q is %v, Get's is %v", tt.name, name, v, want)
				}
			}
		}
		d.Release()
	}
	// No duplicates: no error, whatever the size.
	for _, in := range []string{manyMembers(16, `"z":0`), manyMembers(40, `"z":0`), `{"a":{"a":{"a":1}}}`, `[{"a":1},{"a":2}]`, `{"a":1,"A":2,"a ":3}`, `{"axb":1,"ayb":2,"azb":3}`} {
		d, err := Parse([]byte(in))
		if err != nil {
			t.Errorf("Parse(%s): %v", in, err)
			continue
		}
		d.Release()
	}
}

// TestReuse: a Doc that a Parse reuses (released, or after an error) keeps
// nothing of the document before it.
func TestReuse(t *testing.T) {
	first := []string{
		manyMembers(40, `"deep":`+nest(`{"a":`, "}", 50)),          // keys and depth left mid-way by the errors below
		`{"a":"\u00e9\ud83d\ude00","b":[1,2,3],"a":"dup"}`,         // a duplicate error left behind
		`{"a":[1,2,{"b":` + nest("[", "]", 100),                    // an error deep inside
		nest("[", "]", MaxDepth+1),                                 // the depth error
		`{"k":"` + strings.Repeat("x", 100) + `\u0041", "z": tru}`, // an error after an escape
	}
	second := []struct{ in, text string }{
		{`{"a":1}`, `{"a":1}`},
		{`["x\ty",{"a":2}]`, `["x\ty",{"a":2}]`},
		{` "s" `, `"s"`},
	}
	for range 20 { // a sync.Pool does not promise to hand back the same Doc: try often
		for _, f := range first {
			for _, cut := range []int{len(f), len(f) / 2} {
				if d, _ := Parse([]byte(f[:cut])); d != nil {
					_ = d.Root().Any() // fill the interner and the scratch buffer
					d.Release()
				}
				for _, s := range second {
					d, err := Parse([]byte(s.in))
					if err != nil {
						t.Fatalf("Parse(%s) after Parse(%.30s…): %v", s.in, f[:cut], err)
					}
					if got := string(d.Root().Text()); got != s.text {
						t.Errorf("after %.30s…: Text %s, want %s", f[:cut], got, s.text)
					}
					if diff := diffAny(parseStd(t, s.in), d.Root().Any()); diff != "" {
						t.Errorf("after %.30s…: Any differs from encoding/json:\n%s", f[:cut], diff)
					}
					if len(d.keys) != 0 || d.depth != 0 || d.dup != nil || d.pos != len(s.in) {
						t.Errorf("after %.30s…: leftovers: %d keys, depth %d, dup %v, pos %d", f[:cut], len(d.keys), d.depth, d.dup, d.pos)
					}
					d.Release()
				}
			}
		}
	}
}

// TestParseNamesCompared: an object's names are compared (for a repeat)
// only when it has two members or more; one member named with escapes
// costs Parse no allocation.
func TestParseNamesCompared(t *testing.T) {
	src := []byte(`{"a\u0062":[{"\u00e9\n":1},{"é":2}]}`)
	d, err := Parse(src) // a Doc in the pool, with room for the tape
	if err != nil {
		t.Fatal(err)
	}
	d.Release()
	allocs := testing.AllocsPerRun(100, func() {
		d, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		d.Release()
	})
	if allocs != 0 {
		t.Errorf("Parse(%s) allocates %v times", src, allocs)
	}
}

// TestParseUnique: a duplicate member name is an error with no Doc; any
// other text is Parse's answer.
func TestParseUnique(t *testing.T) {
	d, err := ParseUnique([]byte(`{"a":1,"b":{"c":2,"c":3}}`))
	var dup *DuplicateKeyError
	if d != nil || !errors.As(err, &dup) || dup.Key != "c" {
		t.Errorf("duplicate: doc %v, error %v; want no doc and the duplicate c", d, err)
	}
	if d, err := ParseUnique([]byte(`{"a":`)); d != nil || err == nil {
		t.Errorf("truncated: doc %v, error %v", d, err)
	}
	d, err = ParseUnique([]byte(`{"a":1,"b":{"c":2}}`))
	if err != nil || string(d.Root().Get("b").Get("c").Text()) != "2" {
		t.Fatalf("valid: %v", err)
	}
	d.Release()
}
