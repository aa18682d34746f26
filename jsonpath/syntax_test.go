// syntax_test.go: expressions outside the subset, with the offset each error names.

package jsonpath

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// syntaxErrorCases are expressions outside the subset, with where and why
// Parse refuses each; they seed the fuzz targets too.
var syntaxErrorCases = []struct {
	why    string
	expr   string
	offset int
	msg    string // a fragment of SyntaxError.Msg
}{
	{"nothing to select", "", 0, "empty expression"},
	{"leading whitespace", " output", 0, "unexpected whitespace"},
	{"trailing whitespace", "output ", 6, "unexpected whitespace"},
	{"a path starts with $ or a name", "@.output", 0, "unexpected '@'"},
	{"a path does not start with a dot", ".output", 0, "expected '$' or a member name"},
	{"dot without a name", "output.", 7, "expected a member name"},
	{"blank after a dot", "$. a", 2, "expected a member name"},
	{"name shorthand cannot start with a digit", "$.1", 2, "expected a member name"},
	{"name shorthand has no hyphen", "tool-calls", 4, "unexpected '-'"},
	{"descendant segment", "output..message", 6, "descendant segments"},
	{"slice", "steps[0:2]", 7, "array slices"},
	{"union of indexes", "steps[0,1]", 7, "unions"},
	{"union of names", "$['a','b']", 5, "unions"},
	{"empty brackets", "steps[]", 6, "empty brackets"},
	{"unclosed bracket", "steps[0", 7, "unexpected end"},
	{"index with leading zero", "steps[01]", 6, "leading zeros"},
	{"minus zero index", "steps[-0]", 6, "-0 is not a valid index"},
	{"index beyond 2^53-1", "steps[9007199254740992]", 6, "out of range"},
	{"index with a plus", "steps[+1]", 6, "expected a string"},
	{"minus then space", "steps[- 1]", 7, "expected a digit"},
	{"unterminated string", "steps['abc", 6, "unterminated string"},
	{"unknown escape", `steps['\q']`, 7, "invalid escape"},
	{"escaped double quote in single quotes", `$['\"']`, 3, "invalid escape"},
	{"lone high surrogate", `$['\uD800']`, 3, "high surrogate"},
	{"lone low surrogate", `$['\uDC00']`, 3, "low surrogate"},
	{"short unicode escape", `$['\u12']`, 5, "four hex digits"},
	{"raw control character", "$['a\tb']", 4, "control character U+0009"},
	{"ordering comparison", "steps[?metadata.duration_ms<100]", 27, "only == and !="},
	{"logical and", "steps[?type=='a' && name=='b']", 17, "logical operators"},
	{"logical or", "steps[?type=='a'||name=='b']", 16, "logical operators"},
	{"logical not", "steps[?!sub_trace]", 7, "logical operators"},
	{"parentheses", "steps[?(type=='a')]", 7, "parentheses"},
	{"function length()", "steps[?length(name)==3]", 7, "function extensions such as length()"},
	{"function match()", "$[?match(@.a, 'x')]", 3, "function extensions such as match()"},
	{"bare name in the RFC form", "$.steps[?name=='x']", 9, "starts with '@' or '$'"},
	{"literal alone", "steps[?'x']", 7, "must be compared"},
	{"true alone", "steps[?true]", 7, "must be compared"},
	{"capitalized True in the RFC form", "$[?@.a==True]", 8, "starts with '@' or '$'"},
	{"wildcard in a comparison", "steps[?@[*]==1]", 7, "must be singular"},
	{"wildcard on the right", "steps[?1==args.*]", 10, "must be singular"},
	{"nested filter", "steps[?a[?b]]", 9, "nested filters"},
	{"count inside a filter", "steps[?a.*.length]", 10, "counting wildcard matches"},
	{"number with plus", "$[?@.a==+1]", 8, "expected a query or a literal"},
	{"number with leading zero", "$[?@.a==01]", 8, "leading zeros"},
	{"number without fraction digits", "$[?@.a==1.]", 10, "after '.'"},
	{"number without exponent digits", "$[?@.a==1e]", 10, "in the exponent"},
	{"unclosed filter", "steps[?type=='x'", 16, "unexpected end"},
	{"closing parenthesis", "output.message)", 14, "parentheses"},
	{"invalid UTF-8", "output\xff", 6, "invalid UTF-8"},
	{"expression too long", strings.Repeat("a", maxExprLen+1), maxExprLen, "longer than 4096 bytes"},
	{"too many segments", "a" + strings.Repeat(".a", maxSegments), 1 + 2*(maxSegments-1), "more than 128 segments"},
	{"too many segments in filters", "a[?b" + strings.Repeat("[0]", maxSegments) + "]", 4 + 3*(maxSegments-3), "more than 128 segments"},
}

func TestSyntaxErrors(t *testing.T) {
	for _, tc := range syntaxErrorCases {
		t.Run(tc.why, func(t *testing.T) {
			p, err := Parse(tc.expr)
			if err == nil {
				t.Fatalf("Parse(%q) = %q, want a syntax error", tc.expr, p)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error %T, want *SyntaxError", tc.expr, err)
			}
			if se.Offset != tc.offset || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("Parse(%q) = %v, want offset %d and a message containing %q", tc.expr, err, tc.offset, tc.msg)
			}
			if !strings.Contains(err.Error(), "offset") {
				t.Errorf("Error() = %q does not name the offset", err)
			}
		})
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustParse(\"..\") did not panic")
		}
	}()
	MustParse("..")
}

// TestCanonical checks String on spellings of the same path, and that
// printing and parsing again gives an equal Path.
func TestCanonical(t *testing.T) {
	tests := []struct{ why, expr, want string }{
		{"root", "$", "$"},
		{"dot path", "$.output.message", "output.message"},
		{"bracketed names", `$["output"]['message']`, "output.message"},
		{"name needing brackets", "$['a b'].c", "['a b'].c"},
		{"bracketed length stays bracketed", "$.x['length']", "x['length']"},
		{"dot length", "$.x.length", "x.length"},
		{"head index", "$[0]", "[0]"},
		{"head wildcard", "$.*", "[*]"},
		{"short head wildcard", "*.a", "[*].a"},
		{"filter with @", "$.steps[?@.name == 'x'].result", "steps[?name=='x'].result"},
		{"filter on a literal-named member", "$[?@.true==true]", "[?@.true==true]"},
		{"filter on the element itself", "$[?@==1]", "[?@==1]"},
		{"filter on a bracketed member", "$[?@['a b']!=null]", "[?@['a b']!=null]"},
		{"absolute query", "$[?@.a==$.b[0]]", "[?a==$.b[0]]"},
		{"double-quoted literal", `x[?a=="it's"]`, `x[?a=='it\'s']`},
		{"escapes", `x[?a=="\u0001\n\"\/"]`, `x[?a=='\u0001\n"/']`},
		{"surrogate pair", `x["\uD83D\uDE00"]`, "x.😀"},
		{"unicode shorthand", "$.☺", "☺"},
		{"numbers kept as written", "x[?a==-1.50e+3]", "x[?a==-1.50e+3]"},
		{"count", "$.steps[*] .length", "steps[*].length"},
		{"exists with wildcard", "$[?@.*]", "[?@[*]]"},
		{"bare length in a filter", "x[?length==2]", "x[?length==2]"},
	}
	opt := cmp.AllowUnexported(Path{}, segment{}, filter{}, operand{})
	for _, tc := range tests {
		p, err := Parse(tc.expr)
		if err != nil {
			t.Errorf("%s: Parse(%q): %v", tc.why, tc.expr, err)
			continue
		}
		if got := p.String(); got != tc.want {
			t.Errorf("%s: Parse(%q).String() = %q, want %q", tc.why, tc.expr, got, tc.want)
		}
		q, err := Parse(p.String())
		if err != nil {
			t.Errorf("%s: canonical %q does not parse: %v", tc.why, p, err)
			continue
		}
		if diff := cmp.Diff(p, q, opt); diff != "" {
			t.Errorf("%s: Parse(%q) differs from Parse(%q):\n%s", tc.why, p, tc.expr, diff)
		}
	}
}

// TestDocSpellings checks the pairs in the package documentation: the
// short form and the RFC 9535 form parse to the same Path.
func TestDocSpellings(t *testing.T) {
	pairs := [][2]string{
		{"output.message", "$.output.message"},
		{"output.structured.refund_id", "$['output']['structured']['refund_id']"},
		{"metadata.cost_usd", "$.metadata.cost_usd"},
		{"steps.length", "$.steps.length"},
		{"steps[-1].name", "$.steps[-1].name"},
		{"steps[?type=='tool_call'].length", "$.steps[?@.type=='tool_call'].length"},
		{"steps[?name=='lookup_order'].result", `$.steps[?@.name == "lookup_order"].result`},
		{"steps[?metadata.agent!=null].name", "$.steps[?@.metadata.agent != null].name"},
		{"steps[?name=='researcher'].sub_trace.output.message", "$.steps[?@.name=='researcher'].sub_trace.output.message"},
		{"input['user message']", `$.input["user message"]`},
		{"steps[*].name", "$.steps.*.name"},
	}
	for _, p := range pairs {
		a, b := MustParse(p[0]), MustParse(p[1])
		if a.String() != b.String() {
			t.Errorf("%q prints %q but %q prints %q", p[0], a, p[1], b)
		}
	}
}
