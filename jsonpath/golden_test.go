// golden_test.go: selection results for a table of expressions, checked against testdata.

package jsonpath

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

const testdataDir = "../testdata/jsonpath"

const (
	refund = "refund_trace.json"      // the trace of spec §2.2
	multi  = "multi_agent_trace.json" // a tool called twice, a sub-agent, odd names
)

// selectCases are the golden selection cases; name says why each is here.
var selectCases = []struct{ name, expr, doc string }{
	// Every form the spec names (§4).
	{"spec: whole output", "output", refund},
	{"spec: output message", "output.message", refund},
	{"spec: structured output", "output.structured", refund},
	{"spec: structured field", "output.structured.refund_id", refund},
	{"spec: cost", "metadata.cost_usd", refund},
	{"spec: tokens", "metadata.total_tokens", refund},
	{"spec: latency", "metadata.latency_ms", refund},
	{"spec: step count", "steps.length", refund},
	{"spec: tool call count", "steps[?type=='tool_call'].length", refund},
	{"spec: tool args", "steps[?name=='process_refund'].args", refund},
	{"spec: tool result", "steps[?name=='lookup_order'].result", refund},
	{"spec: tool result field", "steps[?name=='lookup_order'].result.amount", refund},
	{"spec: tool result nested field", "steps[?name=='lookup_order'].result.status", refund},

	// The RFC 9535 spelling means the same.
	{"rfc: filter with @", "$.steps[?@.name=='lookup_order'].result", refund},
	{"rfc: bracketed names", "$['output']['message']", refund},
	{"rfc: double quotes and blanks", "$ [ \"output\" ] [ 'structured' ] .confidence", refund},
	{"rfc: blanks around ==", "$.steps[? @.type == 'tool_call' ].length", refund},
	{"rfc: root", "$.input", refund},
	{"short form with @ in a filter", "steps[?@.name=='lookup_order'].args.order_id", refund},
	{"double-quoted filter literal", "steps[?name==\"process_refund\"].result.refund_id", refund},
	{"bracketed name after filter", "steps[?name=='lookup_order'].result['status']", refund},

	// No match.
	{"no such tool", "steps[?name=='cancel_order'].result", refund},
	{"no such field", "output.missing", refund},
	{"field of a string", "output.message.length.x", refund},
	{"index past the end", "steps[3]", refund},
	{"negative index past the start", "steps[-4]", refund},
	{"no retrieval steps counts zero", "steps[?type=='retrieval'].length", refund},
	{"index on an object", "output[0]", refund},

	// Indexes, wildcards, lengths.
	{"first step", "steps[0].name", refund},
	{"last step", "steps[-1].name", refund},
	{"first step from the end", "steps[-3].name", refund},
	{"wildcard over steps", "steps[*].name", refund},
	{"dot wildcard", "steps.*.type", refund},
	{"wildcard over an object, sorted", "metadata.*", refund},
	{"wildcard count", "steps[*].length", refund},
	{"object wildcard count", "output.structured.*.length", refund},
	{"string length in code points", "output.greeting.length", multi},
	{"string length with an emoji", "output.message.length", multi},
	{"array length", "output.tags.length", multi},
	{"member named length wins", "steps[?name=='measure'].result.length", multi},
	{"bracketed length is the member", "steps[?name=='measure'].result['length']", multi},
	{"bracketed length on an array is nothing", "output.tags['length']", multi},
	{"length in a filter", "steps[?result.hits.length==2].args.query", multi},
	{"null value is a match", "parent_trace_id", refund},
	{"name with a space", "input['user note']", multi},
	{"member named true", "output.true", multi},

	// Filters.
	{"tool called twice", "steps[?name=='search'].args", multi},
	{"tool called twice, count", "steps[?name=='search'].length", multi},
	{"not equal", "steps[?name!='search'].name", multi},
	{"dot path in filter", "steps[?metadata.agent=='planner'].name", multi},
	{"not equal keeps absent", "steps[?metadata.agent!='planner'].name", multi},
	{"existence test", "steps[?metadata.agent].name", multi},
	{"existence with @", "steps[?@.sub_trace].name", multi},
	{"existence with wildcard", "steps[?result.hits[*]].name", multi},
	{"true literal", "steps[?result.ok==true].name", multi},
	{"false literal", "steps[?result.ok==false].name", multi},
	{"literal on the left", "steps[?true==result.ok].name", multi},
	{"null literal matches null", "$[?@==null]", refund},
	{"null literal does not match a string", "steps[?sub_trace.parent_trace_id==null].name", multi},
	{"number equal by value", "steps[?args.top_k==3].args.query", multi},
	{"number with exponent", "steps[?result.amount==8999e-2].name", refund},
	{"number with trailing zero", "steps[?args.amount==89.990].name", refund},
	{"absolute query in filter", "steps[?args.order_id==$.steps[1].args.order_id].name", refund},
	{"filter on an object's members", "output.structured[?@==1]", multi},
	{"query against query", "steps[?@.name==@.name].length", refund},

	// Sub-traces.
	{"sub-agent output", "steps[?name=='researcher'].sub_trace.output.message", multi},
	{"sub-agent tool count", "steps[?type=='agent_call'].sub_trace.steps[?type=='tool_call'].length", multi},
	{"sub-agent last step", "steps[?name=='researcher'].sub_trace.steps[-1].result", multi},
	{"sub-agent step by index", "steps[4].sub_trace.steps[0].name", multi},
	{"wildcard into sub-traces", "steps[*].sub_trace.agent_id", multi},
}

type goldenCase struct {
	Name      string        `json:"name"`
	Expr      string        `json:"expr"`
	Doc       string        `json:"doc"`
	Canonical string        `json:"canonical"`
	Singular  bool          `json:"singular"`
	Matches   []goldenMatch `json:"matches"`
}

type goldenMatch struct {
	Value    any    `json:"value"`
	Location string `json:"location"`
	Step     int    `json:"step"`
}

func loadDoc(t testing.TB, name string) any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdataDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, b)
}

func decode(t testing.TB, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func marshal(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSelectGolden(t *testing.T) {
	docs := map[string]any{}
	var got []goldenCase
	for _, tc := range selectCases {
		if docs[tc.doc] == nil {
			docs[tc.doc] = loadDoc(t, tc.doc)
		}
		doc := docs[tc.doc]
		p, err := Parse(tc.expr)
		if err != nil {
			t.Errorf("%s: Parse(%q): %v", tc.name, tc.expr, err)
			continue
		}
		g := goldenCase{Name: tc.name, Expr: tc.expr, Doc: tc.doc, Canonical: p.String(), Singular: p.IsSingular(), Matches: []goldenMatch{}}
		ms := p.Select(doc)
		for _, m := range ms {
			g.Matches = append(g.Matches, goldenMatch(m))
		}
		if p.IsSingular() && len(ms) > 1 {
			t.Errorf("%s: singular path %q selected %d values", tc.name, tc.expr, len(ms))
		}
		checkLocations(t, tc.expr, doc, ms)
		got = append(got, g)
	}

	file := filepath.Join(testdataDir, "select.golden.json")
	out := marshal(t, got)
	if *update {
		if err := os.WriteFile(file, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./jsonpath/ -update to create it)", err)
	}
	// Compare through JSON, as stored, with numbers compared by their text.
	var want, have []goldenCase
	for _, x := range []struct {
		b []byte
		v *[]goldenCase
	}{{b, &want}, {out, &have}} {
		d := json.NewDecoder(bytes.NewReader(x.b))
		d.UseNumber()
		if err := d.Decode(x.v); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(want, have); diff != "" {
		t.Errorf("selection differs from %s (-want +got); if intended, rerun with -update:\n%s", file, diff)
	}
}

// checkLocations asserts the documented property of Match.Location: it is a
// path that selects exactly that match again.
func checkLocations(t *testing.T, expr string, doc any, ms []Match) {
	t.Helper()
	for _, m := range ms {
		p, err := Parse(m.Location)
		if err != nil {
			t.Errorf("%q: location %q does not parse: %v", expr, m.Location, err)
			continue
		}
		again := p.Select(doc)
		if len(again) != 1 {
			t.Errorf("%q: location %q selects %d values, want 1", expr, m.Location, len(again))
			continue
		}
		// reflect.DeepEqual first: cmp's slice diffing is exponential in the
		// nesting depth, so it only explains a difference already found.
		if reflect.DeepEqual(m, again[0]) {
			continue
		}
		if diff := cmp.Diff(m, again[0]); diff != "" {
			t.Errorf("%q: location %q selects another match (-first +again):\n%s", expr, m.Location, diff)
		}
	}
}
