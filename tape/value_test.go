// value_test.go: valid texts of every kind, and the reading API checked over each against its value.

package tape

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// validTests are texts Parse accepts, with the value Any gives for each;
// TestValid also checks that encoding/json decodes each to the same value.
var validTests = []struct {
	name, in string
	want     any
}{
	// Every kind.
	{"null", `null`, nil},
	{"true", `true`, true},
	{"false", `false`, false},
	{"zero", `0`, json.Number("0")},
	{"negative zero", `-0`, json.Number("-0")},
	{"integer", `1234567890`, json.Number("1234567890")},
	{"negative", `-42`, json.Number("-42")},
	{"fraction", `3.14159`, json.Number("3.14159")},
	{"big integer kept exact", `123456789012345678901234567890`, json.Number("123456789012345678901234567890")},
	{"empty string", `""`, ""},
	{"string", `"hello"`, "hello"},
	{"empty array", `[]`, []any{}},
	{"empty object", `{}`, map[string]any{}},
	{"array of every kind", `[null,true,false,1,"s",[],{}]`,
		[]any{nil, true, false, json.Number("1"), "s", []any{}, map[string]any{}}},
	{"object of every kind", `{"n":null,"t":true,"f":false,"num":-1.5,"s":"x","a":[1],"o":{"k":"v"}}`,
		map[string]any{"n": nil, "t": true, "f": false, "num": json.Number("-1.5"), "s": "x",
			"a": []any{json.Number("1")}, "o": map[string]any{"k": "v"}}},

	// Exponent forms: the text is kept as written.
	{"exponent", `1e5`, json.Number("1e5")},
	{"exponent capital", `1E5`, json.Number("1E5")},
	{"exponent plus", `1e+5`, json.Number("1e+5")},
	{"exponent minus", `1e-5`, json.Number("1e-5")},
	{"fraction and exponent", `-0.0e-0`, json.Number("-0.0e-0")},
	{"capital exponent plus", `1.5E+10`, json.Number("1.5E+10")},
	{"long exponent", `2e0000308`, json.Number("2e0000308")},

	// Nesting.
	{"nested arrays", `[[[[]]]]`, []any{[]any{[]any{[]any{}}}}},
	{"nested objects", `{"a":{"b":{"c":{}}}}`,
		map[string]any{"a": map[string]any{"b": map[string]any{"c": map[string]any{}}}}},
	{"mixed nesting", `[{"a":[{"b":[1,{"c":null}]}]},[]]`,
		[]any{map[string]any{"a": []any{map[string]any{"b": []any{json.Number("1"), map[string]any{"c": nil}}}}}, []any{}}},
	{"max depth", strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), nestedArrays(MaxDepth)},

	// White space: the four RFC 8259 bytes, anywhere between tokens.
	{"space around scalar", " \t\r\n1 \t\r\n", json.Number("1")},
	{"space everywhere", "\n{ \"a\" :\t[ 1 ,\r\n2 ] , \"b\" : { } }\n", map[string]any{"a": []any{json.Number("1"), json.Number("2")}, "b": map[string]any{}}},
	{"space in empty containers", "[ ]", []any{}},
	{"space in empty object", "{\n}", map[string]any{}},

	// Escapes.
	{"simple escapes", `"\"\\\/\b\f\n\r\t"`, "\"\\/\b\f\n\r\t"},
	{"unicode escape", `"caf\u00e9"`, "café"},
	{"unicode escape capital hex", `"\u00E9\u00e9"`, "éé"},
	{"escaped NUL", `"\u0000"`, "\x00"},
	{"three-byte rune", `"\u20ac"`, "€"},
	{"surrogate pair", `"\ud83d\ude00"`, "😀"},
	{"surrogate pair capital hex", `"\uD83D\uDE00"`, "😀"},
	{"lone high surrogate", `"\ud800"`, "\uFFFD"},
	{"lone low surrogate", `"\udc00"`, "\uFFFD"},
	{"high surrogate then letter", `"\ud800x"`, "\uFFFDx"},
	{"high surrogate then non-surrogate escape", `"\ud800\u0041"`, "\uFFFDA"},
	{"two high surrogates", `"\ud800\ud800"`, "\uFFFD\uFFFD"},
	{"high surrogate, two high then low", `"\ud800\ud83d\ude00"`, "\uFFFD😀"},
	{"low then high surrogate", `"\udc00\ud800"`, "\uFFFD\uFFFD"},
	{"high surrogate then other escape", `"\ud800\n"`, "\uFFFD\n"},
	{"high surrogate at the end of a pair-length string", `"ab\ud800cdefgh"`, "ab\uFFFDcdefgh"},
	{"pair and lone", `"\ud83d\ude00x\ud800"`, "😀x\uFFFD"},
	{"raw non-ASCII", `"ünïcödé 日本 😀"`, "ünïcödé 日本 😀"},
	{"raw U+FFFD", "\"\xef\xbf\xbd\"", "\uFFFD"},
	{"raw DEL and high ASCII punctuation", "\"\x7f~\"", "\x7f~"},
	{"escaped member name", `{"\u0061b":1}`, map[string]any{"ab": json.Number("1")}},
	{"escaped quote in member name", `{"a\"b":1}`, map[string]any{`a"b`: json.Number("1")}},
	{"long string", `"` + strings.Repeat("abcdefgh", 100) + `"`, strings.Repeat("abcdefgh", 100)},
	{"long escaped string", `"` + strings.Repeat(`a\n`, 100) + `"`, strings.Repeat("a\n", 100)},
}

func nestedArrays(depth int) any {
	var v any = []any{}
	for range depth - 1 {
		v = []any{v}
	}
	return v
}

// TestValid parses each valid text and checks its value, the value
// encoding/json gives, and the whole reading API against the value.
func TestValid(t *testing.T) {
	for _, tt := range validTests {
		t.Run(tt.name, func(t *testing.T) {
			var std any
			dec := json.NewDecoder(strings.NewReader(tt.in))
			dec.UseNumber()
			if err := dec.Decode(&std); err != nil {
				t.Fatalf("encoding/json: %v", err)
			}
			if diff := diffAny(tt.want, std); diff != "" {
				t.Fatalf("the table disagrees with encoding/json (-table +json):\n%s", diff)
			}
			d, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			defer d.Release()
			if diff := diffAny(tt.want, d.Root().Any()); diff != "" {
				t.Errorf("Any (-want +got):\n%s", diff)
			}
			checkValue(t, d.Root(), tt.want)
		})
	}
}

// diffAny is cmp.Diff of two values, after reflect.DeepEqual: cmp's slice
// diffing is exponential in the nesting depth, so it only explains a
// difference already found.
func diffAny(want, got any) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return cmp.Diff(want, got)
}

// checkValue checks every reading method of v, recursively, against want
// (v's value, without duplicate member names).
func checkValue(t *testing.T, v Value, want any) {
	t.Helper()
	if !v.Exists() {
		t.Fatalf("value %v is Missing", want)
	}
	text := v.Text()
	if off := v.Offset(); off < 0 || !bytes.HasPrefix(v.d.src[off:], text) {
		t.Errorf("Offset %d does not start Text %q", off, text)
	}
	if !reflect.DeepEqual(parseAny(t, text), want) {
		t.Errorf("Text %q re-parses to %v, want %v", text, parseAny(t, text), want)
	}
	if v.Kind() != String && (v.Str() != "" || v.Bytes() != nil || v.Is("")) {
		t.Errorf("%s: Str %q, Bytes %q, Is(\"\") %v; want zero", text, v.Str(), v.Bytes(), v.Is(""))
	}
	if v.Kind() != Number && v.Number() != "" {
		t.Errorf("%s: Number %q, want \"\"", text, v.Number())
	}
	if v.Kind() != Bool && v.Bool() {
		t.Errorf("%s: Bool true", text)
	}
	if k := v.Kind(); k != Array && k != Object && v.Len() != 0 {
		t.Errorf("%s: Len %d, want 0", text, v.Len())
	}
	for range v.Members() {
		if v.Kind() != Object {
			t.Errorf("%s: Members yields for kind %v", text, v.Kind())
		}
	}
	for range v.Elems() {
		if v.Kind() != Array {
			t.Errorf("%s: Elems yields for kind %v", text, v.Kind())
		}
	}
	if v.Kind() != Object && v.Get("a").Exists() {
		t.Errorf("%s: Get on kind %v exists", text, v.Kind())
	}
	if v.Kind() != Array && v.Index(0).Exists() {
		t.Errorf("%s: Index on kind %v exists", text, v.Kind())
	}
	switch w := want.(type) {
	case nil:
		if v.Kind() != Null {
			t.Errorf("%s: Kind %v, want Null", text, v.Kind())
		}
	case bool:
		if v.Kind() != Bool || v.Bool() != w {
			t.Errorf("%s: Kind %v Bool %v, want Bool %v", text, v.Kind(), v.Bool(), w)
		}
	case json.Number:
		if v.Kind() != Number || v.Number() != w {
			t.Errorf("%s: Kind %v Number %q, want %q", text, v.Kind(), v.Number(), w)
		}
	case string:
		if v.Kind() != String || v.Str() != w || string(v.Bytes()) != w || !v.Is(w) {
			t.Errorf("%s: Kind %v Str %q Bytes %q Is %v, want %q", text, v.Kind(), v.Str(), v.Bytes(), v.Is(w), w)
		}
		if v.Is(w + "x") {
			t.Errorf("%s: Is(%q) true", text, w+"x")
		}
		if len(w) > 0 && v.Is(w[:len(w)-1]) {
			t.Errorf("%s: Is(%q) true", text, w[:len(w)-1])
		}
	case []any:
		if v.Kind() != Array || v.Len() != len(w) {
			t.Fatalf("%s: Kind %v Len %d, want Array of %d", text, v.Kind(), v.Len(), len(w))
		}
		i := 0
		for e := range v.Elems() {
			if e != v.Index(i) {
				t.Errorf("%s: element %d: Elems and Index differ", text, i)
			}
			checkValue(t, e, w[i])
			i++
		}
		if i != len(w) {
			t.Errorf("%s: Elems yielded %d, want %d", text, i, len(w))
		}
		for _, i := range []int{-1, len(w), len(w) + 1, 1 << 40} {
			if e := v.Index(i); e.Exists() || e.Kind() != Missing {
				t.Errorf("%s: Index(%d) exists", text, i)
			}
		}
	case map[string]any:
		if v.Kind() != Object || v.Len() != len(w) {
			t.Fatalf("%s: Kind %v Len %d, want Object of %d", text, v.Kind(), v.Len(), len(w))
		}
		n := 0
		for k, e := range v.Members() {
			name := k.Str()
			if k.Kind() != String || !bytes.HasPrefix(v.d.src[k.Offset():], []byte{'"'}) {
				t.Errorf("%s: member name %s: Kind %v at %d", text, k.Text(), k.Kind(), k.Offset())
			}
			if v.Get(name) != e {
				t.Errorf("%s: Get(%q) is not the member Members yields", text, name)
			}
			checkValue(t, e, w[name])
			n++
		}
		if n != len(w) {
			t.Errorf("%s: Members yielded %d, want %d", text, n, len(w))
		}
		if g := v.Get("no such member"); g.Exists() {
			t.Errorf("%s: Get of a missing name exists: %s", text, g.Text())
		}
	}
}

// parseAny is the value of text, which must be valid.
func parseAny(t *testing.T, text []byte) any {
	t.Helper()
	d, err := Parse(text)
	if err != nil {
		t.Fatalf("Parse(%q): %v", text, err)
	}
	defer d.Release()
	return d.Root().Any()
}

// TestValueAPI pins each reading method on one document, case by case.
func TestValueAPI(t *testing.T) {
	const src = `{"a":1,"b":[true,null,"x\ty",-2.5e3,{}],"a":{"c":"d"},"\u0061":"last a","e":false}`
	d, err := Parse([]byte(src))
	if _, dup := err.(*DuplicateKeyError); !dup {
		t.Fatalf("Parse: %v, want a *DuplicateKeyError", err)
	}
	defer d.Release()
	root := d.Root()
	b := root.Get("b")
	tests := []struct {
		name        string
		v           Value
		kind        Kind
		len         int
		text        string
		offset      int
		str, num    string
		bool, isStr bool
	}{
		{"root", root, Object, 5, src, 0, "", "", false, false},
		{"Get of a repeated name is its last member (as Any)", root.Get("a"), String, 0, `"last a"`, 63, "last a", "", false, true},
		{"Get of a missing name", root.Get("z"), Missing, 0, "", -1, "", "", false, false},
		{"Get of the empty name", root.Get(""), Missing, 0, "", -1, "", "", false, false},
		{"Get on an array", b.Get("a"), Missing, 0, "", -1, "", "", false, false},
		{"Get on Missing", root.Get("z").Get("a"), Missing, 0, "", -1, "", "", false, false},
		{"array", b, Array, 5, `[true,null,"x\ty",-2.5e3,{}]`, 11, "", "", false, false},
		{"Index 0", b.Index(0), Bool, 0, "true", 12, "", "", true, false},
		{"Index 1", b.Index(1), Null, 0, "null", 17, "", "", false, false},
		{"Index 2, escaped string", b.Index(2), String, 0, `"x\ty"`, 22, "x\ty", "", false, true},
		{"Index 3", b.Index(3), Number, 0, "-2.5e3", 29, "", "-2.5e3", false, false},
		{"Index 4", b.Index(4), Object, 0, "{}", 36, "", "", false, false},
		{"Index past the end", b.Index(5), Missing, 0, "", -1, "", "", false, false},
		{"Index negative", b.Index(-1), Missing, 0, "", -1, "", "", false, false},
		{"Index on an object", root.Index(0), Missing, 0, "", -1, "", "", false, false},
		{"false", root.Get("e"), Bool, 0, "false", 76, "", "", false, false},
		{"zero Value", Value{}, Missing, 0, "", -1, "", "", false, false},
	}
	for _, tt := range tests {
		v := tt.v
		got := []any{v.Kind(), v.Exists(), v.Len(), string(v.Text()), v.Offset(), v.Str(), string(v.Bytes()), string(v.Number()), v.Bool(), v.Is(tt.str)}
		want := []any{tt.kind, tt.kind != Missing, tt.len, tt.text, tt.offset, tt.str, tt.str, tt.num, tt.bool, tt.isStr}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: Kind, Exists, Len, Text, Offset, Str, Bytes, Number, Bool, Is(str) (-want +got):\n%s", tt.name, diff)
		}
		if tt.kind == Missing && (v.Any() != nil || v.Text() != nil) {
			t.Errorf("%s: Missing has Any %v Text %q", tt.name, v.Any(), v.Text())
		}
	}

	// Members in document order, duplicates included; Any keeps the last.
	var names []string
	for k, v := range root.Members() {
		names = append(names, k.Str()+"="+string(v.Text()))
	}
	wantNames := []string{`a=1`, `b=[true,null,"x\ty",-2.5e3,{}]`, `a={"c":"d"}`, `a="last a"`, `e=false`}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("Members (-want +got):\n%s", diff)
	}
	if got := root.Any().(map[string]any)["a"]; got != "last a" {
		t.Errorf("Any's member a is %v, want the last one", got)
	}

	// Early breaks stop both iterators.
	n := 0
	for range b.Elems() {
		n++
		if n == 2 {
			break
		}
	}
	for range root.Members() {
		n++
		break
	}
	if n != 3 {
		t.Errorf("early breaks: %d iterations, want 3", n)
	}

	// Bytes of a string without escapes is the document's own bytes.
	d2, err := Parse([]byte(`["plain"]`))
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Release()
	if p := d2.Root().Index(0).Bytes(); &p[0] != &d2.Source()[2] {
		t.Errorf("Bytes of an unescaped string is a copy")
	}
}

// TestGetWithoutDuplicates: Get of a name takes the first match when the
// Doc repeats no name, and still finds members after nested values.
func TestGetWithoutDuplicates(t *testing.T) {
	d, err := Parse([]byte(`{"x":{"a":1,"b":2},"a":[{"a":3}],"b":"\u0062","":0}`))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	r := d.Root()
	for name, want := range map[string]string{"a": `[{"a":3}]`, "b": `"\u0062"`, "x": `{"a":1,"b":2}`, "": "0"} {
		if got := string(r.Get(name).Text()); got != want {
			t.Errorf("Get(%q) = %s, want %s", name, got, want)
		}
	}
	if got := string(r.Get("x").Get("b").Text()); got != "2" {
		t.Errorf("x.b = %s", got)
	}
}

// TestIsAllocs: Is compares without allocating, escapes or not.
func TestIsAllocs(t *testing.T) {
	d, err := Parse([]byte(`["tool_call","tool\u005fcall"]`))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	plain, escaped := d.Root().Index(0), d.Root().Index(1)
	allocs := testing.AllocsPerRun(100, func() {
		if !plain.Is("tool_call") || !escaped.Is("tool_call") || escaped.Is("tool_cal") || escaped.Is("tool_call_x") {
			t.Fatal("Is is wrong")
		}
	})
	if allocs != 0 {
		t.Errorf("Is allocates %v times", allocs)
	}
}
