// json_test.go: table tests for Decode: values, escapes, number grammar, UTF-8, depth, duplicates, offsets.

package trace

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

type obj = map[string]any
type arr = []any
type num = json.Number

var decodeValidTests = []struct {
	name, in string
	want     any
	reason   string
}{
	{"null", `null`, nil, "literal"},
	{"true", `true`, true, "literal"},
	{"false", ` false `, false, "surrounding white space is allowed"},
	{"all white space", " \t\r\n1\n\r\t ", num("1"), "the four JSON white space bytes"},
	{"empty string", `""`, "", "no characters"},
	{"string", `"abc"`, "abc", "fast path"},
	{"empty object", `{}`, obj{}, "no members"},
	{"empty array", `[ ]`, arr{}, "white space inside"},
	{"object", `{"a":1,"b":[true,null],"c":{"d":"e"}}`, obj{"a": num("1"), "b": arr{true, nil}, "c": obj{"d": "e"}}, "nested"},
	{"array", `[1,"x",{},[]]`, arr{num("1"), "x", obj{}, arr{}}, "mixed"},
	{"keys exact", `{"a":1,"A":2}`, obj{"a": num("1"), "A": num("2")}, "no case folding: two members"},
	{"zero", `0`, num("0"), "single zero"},
	{"minus zero", `-0`, num("-0"), "kept as written"},
	{"exponent", `1e5`, num("1e5"), "exponent without sign"},
	{"exponent signs", `[1E+5,1e-5,-1.5E-0]`, arr{num("1E+5"), num("1e-5"), num("-1.5E-0")}, "upper case E and signs"},
	{"fraction", `0.25`, num("0.25"), "leading zero before point"},
	{"big", `123456789012345678901234567890`, num("123456789012345678901234567890"), "kept exactly"},
	{"simple escapes", `"\"\\\/\b\f\n\r\t"`, "\"\\/\b\f\n\r\t", "every two-byte escape"},
	{"unicode escape", `"\u00e9\u4E2D"`, "é中", "lower and upper hex"},
	{"surrogate pair", `"\ud83d\ude00"`, "😀", "a pair decodes to one rune"},
	{"lone high surrogate", `"\ud800x"`, "\ufffdx", "replaced, as encoding/json does"},
	{"lone low surrogate", `"\udc00"`, "\ufffd", "replaced"},
	{"high then high", `"\ud800\ud800"`, "\ufffd\ufffd", "the second escape decoded on its own"},
	{"high then plain escape", `"\ud800\u0041"`, "\ufffdA", "not a pair"},
	{"high at end", `"\ud800"`, "\ufffd", "nothing follows"},
	{"escaped NUL", `"a\u0000b"`, "a\x00b", "NUL allowed when escaped"},
	{"utf8", `"héllo, 世界 😀"`, "héllo, 世界 😀", "multi-byte runes pass through"},
	{"literal U+FFFD", "\"\xef\xbf\xbd\"", "\ufffd", "valid encoding of the replacement rune"},
	{"DEL", "\"\x7f\"", "\x7f", "DEL is not a control character for JSON"},
	{"interned values", `["1",1,"1",1,"tool_call","tool_call"]`, arr{"1", num("1"), "1", num("1"), "tool_call", "tool_call"}, "repeated short values: a string and a number with the same text stay apart"},
	{"duplicate-looking keys", `{"a":{"a":1}}`, obj{"a": obj{"a": num("1")}}, "same name at different levels"},
}

func TestDecodeValid(t *testing.T) {
	for _, tt := range decodeValidTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.in))
			if err != nil {
				t.Fatalf("Decode(%q) error: %v (%s)", tt.in, err, tt.reason)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decode(%q) mismatch (-want +got) (%s):\n%s", tt.in, tt.reason, diff)
			}
		})
	}
}

var decodeInvalidTests = []struct {
	name, in string
	offset   int
	reason   string
}{
	{"empty", ``, 0, "no value"},
	{"only space", `   `, 3, "no value after white space"},
	{"leading zero", `01`, 1, "RFC 8259: no leading zeros; the 1 is trailing data"},
	{"leading zero in array", `[01]`, 2, "same inside an array"},
	{"point without digits", `1.`, 2, "a fraction needs digits"},
	{"point first", `.5`, 0, "an integer part is required"},
	{"minus alone", `-`, 1, "a sign needs digits"},
	{"minus space", `- 1`, 1, "no space after the sign"},
	{"plus", `+1`, 0, "no leading plus"},
	{"exponent without digits", `1e`, 2, "an exponent needs digits"},
	{"exponent sign only", `1e+`, 3, "an exponent needs digits after its sign"},
	{"hex", `0x10`, 1, "no hex"},
	{"NaN", `NaN`, 0, "not JSON"},
	{"Infinity", `-Infinity`, 1, "not JSON"},
	{"positive Infinity", `[Infinity]`, 1, "not JSON"},
	{"NaN member", `{"a":NaN}`, 5, "not JSON"},
	{"Nan", `Nan`, 0, "not JSON, not the non-finite token either"},
	{"trailing data", `{} {}`, 3, "one value only"},
	{"trailing comma array", `[1,]`, 3, "no trailing comma"},
	{"trailing comma object", `{"a":1,}`, 7, "no trailing comma"},
	{"missing colon", `{"a" 1}`, 5, "colon required"},
	{"unquoted key", `{a:1}`, 1, "keys are strings"},
	{"single quotes", `'a'`, 0, "JSON strings use double quotes"},
	{"unterminated string", `"abc`, 4, "no closing quote"},
	{"unterminated array", `[1`, 2, "no closing bracket"},
	{"unterminated object", `{"a":1`, 6, "no closing brace"},
	{"bad literal", `tru`, 0, "truncated literal"},
	{"capital literal", `True`, 0, "literals are lower case"},
	{"raw newline", "\"a\nb\"", 2, "control characters must be escaped"},
	{"raw tab", "\"a\tb\"", 2, "even tab"},
	{"raw NUL in string", "\"a\x00b\"", 2, "NUL must be escaped"},
	{"NUL outside string", "[1,\x00]", 3, "NUL is not white space"},
	{"NUL after value", "1\x00", 1, "NUL is trailing data"},
	{"invalid UTF-8", "\"a\xffb\"", 2, "a byte that starts no rune"},
	{"truncated UTF-8", "\"\xe4\xb8\"", 1, "a rune cut short"},
	{"overlong UTF-8", "\"\xc0\xaf\"", 1, "overlong encoding of '/'"},
	{"UTF-8 surrogate", "\"\xed\xa0\x80\"", 1, "surrogates are not valid UTF-8"},
	{"invalid UTF-8 in key", "{\"\xff\":1}", 2, "keys are strings too"},
	{"bad escape", `"\x"`, 2, "unknown escape"},
	{"short unicode escape", `"\u12"`, 3, "four hex digits"},
	{"bad hex", `"\u12G4"`, 3, "hex digits only"},
	{"bad second escape", `"\ud800\u12G4"`, 9, "the second escape is checked"},
	{"BOM", "\xef\xbb\xbf1", 0, "no byte order mark"},
	{"comment", `[1 /* c */]`, 3, "no comments"},
}

func TestDecodeInvalid(t *testing.T) {
	for _, tt := range decodeInvalidTests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Decode([]byte(tt.in))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Decode(%q) = %v, %v; want *SyntaxError (%s)", tt.in, v, err, tt.reason)
			}
			if v != nil {
				t.Errorf("Decode(%q) value = %v, want nil with a syntax error", tt.in, v)
			}
			if se.Offset != tt.offset {
				t.Errorf("Decode(%q) offset = %d, want %d (%s); error: %v", tt.in, se.Offset, tt.offset, tt.reason, err)
			}
			if json.Valid([]byte(tt.in)) && utf8.ValidString(tt.in) {
				t.Errorf("encoding/json accepts %q, valid UTF-8; the case is wrong", tt.in)
			}
		})
	}
}

func nested(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}

func TestDecodeDepth(t *testing.T) {
	if _, err := Decode([]byte(nested(MaxDepth))); err != nil {
		t.Errorf("MaxDepth arrays: %v, want success", err)
	}
	obj := strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth)
	if _, err := Decode([]byte(obj)); err != nil {
		t.Errorf("MaxDepth objects: %v, want success", err)
	}
	tests := []struct {
		name, in string
		offset   int // of the first bracket or brace too deep
		reason   string
	}{
		{"MaxDepth+1 arrays", nested(MaxDepth + 1), MaxDepth, "one level too deep"},
		{"MaxDepth+1 objects", strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1), 5 * MaxDepth, "objects count too"},
		{"100000 deep", nested(100000), MaxDepth, "rejected early, without exhausting the stack"},
		{"100000 open", strings.Repeat("[", 100000), MaxDepth, "unterminated, rejected at MaxDepth+1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.in))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want *SyntaxError (%s)", err, tt.reason)
			}
			if se.Offset != tt.offset || !strings.Contains(se.Msg, "depth") {
				t.Errorf("got %v, want a depth error at offset %d (%s)", err, tt.offset, tt.reason)
			}
		})
	}
}

func TestDecodeDuplicateKey(t *testing.T) {
	tests := []struct {
		name, in string
		want     any
		key      string
		offset   int
		reason   string
	}{
		{"top level", `{"a":1,"a":2}`, obj{"a": num("2")}, "a", 7, "the later member wins"},
		{"nested", `[{"x":{"k":1,"k":null}}]`, arr{obj{"x": obj{"k": nil}}}, "k", 13, "found at any depth"},
		{"escaped spelling", `{"a":1,"\u0061":2}`, obj{"a": num("2")}, "a", 7, "names compare after unescaping"},
		{"first reported", `{"a":1,"a":2,"b":3,"b":4}`, obj{"a": num("2"), "b": num("4")}, "a", 7, "the first duplicate is the one reported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.in))
			var de *DuplicateKeyError
			if !errors.As(err, &de) {
				t.Fatalf("Decode(%q) error = %v, want *DuplicateKeyError (%s)", tt.in, err, tt.reason)
			}
			if de.Key != tt.key || de.Offset != tt.offset {
				t.Errorf("got key %q offset %d, want %q at %d (%s)", de.Key, de.Offset, tt.key, tt.offset, tt.reason)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("value mismatch (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
	// A syntax error after a duplicate wins: there is no document to return.
	if v, err := Decode([]byte(`{"a":1,"a":2`)); v != nil || !errors.As(err, new(*SyntaxError)) {
		t.Errorf("duplicate then syntax error: got %v, %v; want nil, *SyntaxError", v, err)
	}
}

func TestSyntaxErrorMessage(t *testing.T) {
	_, err := Decode([]byte(`[1,2,x]`))
	if got, want := err.Error(), "invalid character 'x' looking for beginning of value at offset 5"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	_, err = Decode([]byte(`{"a":1,"a":2}`))
	if got, want := err.Error(), `duplicate object key "a" at offset 7`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestDecodeNonFinite: NaN, Infinity and -Infinity (Python's json.dumps
// writes them by default) are marked, so that an answer can say where they
// come from; other bad tokens are not.
func TestDecodeNonFinite(t *testing.T) {
	tests := []struct {
		in, token string // token "" when the error is not a non-finite one
		reason    string
	}{
		{`{"score":NaN}`, "NaN", "json.dumps(float('nan'))"},
		{`[Infinity]`, "Infinity", "json.dumps(float('inf'))"},
		{`{"a":-Infinity}`, "-Infinity", "json.dumps(float('-inf'))"},
		{`Nan`, "", "not the token"},
		{`Inf`, "", "not the token"},
		{`-Inf`, "", "not the token"},
		{`nan`, "", "a bad literal"},
	}
	for _, tt := range tests {
		_, err := Decode([]byte(tt.in))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("Decode(%q) = %v, want a *SyntaxError", tt.in, err)
		}
		if se.NonFinite != (tt.token != "") || (tt.token != "" && !strings.HasPrefix(se.Msg, tt.token+" is not a JSON value")) {
			t.Errorf("Decode(%q): %v (NonFinite %v), want token %q (%s)", tt.in, err, se.NonFinite, tt.token, tt.reason)
		}
	}
}
