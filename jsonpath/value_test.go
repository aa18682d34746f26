// value_test.go: SelectValue against Select on the same documents, its allocations, and FuzzSelectValue.

package jsonpath

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"attest-engine/tape"
)

// valueDocs are documents for the differential test besides the golden
// traces: escaped and odd member names, numbers equal by value but not by
// text, equal objects with members in another order, objects large enough
// for equalObject's map, strings with escapes and surrogates.
var valueDocs = []string{
	`{"a":[1,{"b":"x","length":2}],"c":"héllo"}`,
	`[0,[1],{"k":null}]`,
	`"s"`,
	`null`,
	`{"steps":[{"n":1,"m":-0,"o":{"x":[1,2],"y":{"z":true}}},{"n":1.0,"m":0,"o":{"y":{"z":true},"x":[1,2.0]}},{"n":10e-1,"m":0.0e5,"o":{"x":[1,2,3]}},{"n":"1","m":null,"o":[]}],"n":1,"m":0}`,
	`{"\u0061":1,"b\"q":2,"t\tab":[3],"e\u00e9":"\ud83d\ude00\u00e9","length":{"length":"xy"},"true":false,"":0,"x y":{"":[]}}`,
	`{"s":"a\u0000b","u":"\ud800","v":"\u00e9","w":"é","list":["\u00e9","é","a\\b","a\/b"]}`,
	`{"big":` + bigObjectText(20, 0) + `,"same":` + bigObjectText(20, 0) + `,"other":` + bigObjectText(20, 1) + `,"rows":[` + bigObjectText(20, 0) + `,` + bigObjectText(20, 1) + `]}`,
	`[[],{},"",0,false,true,null,[[]],{"a":{}},1e400,-1e400,123456789012345678901234567890,1.5e-400]`,
}

// bigObjectText is an object of n members, with member off+i as value i,
// written in the reverse order of names.
func bigObjectText(n, off int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := n - 1; i >= 0; i-- {
		fmt.Fprintf(&b, `"m%02d":%d`, i, i+off)
		if i > 0 {
			b.WriteByte(',')
		}
	}
	b.WriteByte('}')
	return b.String()
}

// valueExprs are paths for the documents above, beside the seeds.
var valueExprs = []string{
	"steps[?n==1].m", "steps[?n==$.n].length", "steps[?m==$.m].n", "steps[?o==$.steps[1].o].n",
	"steps[?o.x==$.steps[0].o.x].length", "steps[?@.n=='1'].length", "steps[?m==0].length",
	"steps[*].o.*.length", "steps[?o.*].n", "steps[?o.x[*]].length", "$.*", "*.length", "$[*][*]",
	"$['\"b\\\"q\"']", "$[\"t\\tab\"][0]", "length", "length.length", "length['length'].length",
	"$[?@==$.big]", "rows[?@==$.big].length", "rows[?@==$.other].m00", "$[?@==$.same].m19",
	"big.*", "big[?@>=1]", "big[?@==3]", "$[?@.m00==0]", "list[?@=='é'].length", "list[*].length",
	"s.length", "u.length", "v.length", "[?@==1e400]", "[?@==123456789012345678901234567890]",
	"[?@==0]", "[?@==false]", "[?@==null]", "[?@=={}]", "[?@.length==0]", "[-1]", "[-13]", "[12]", "$",
	"steps[?m==$.steps[3].o.length].n", "steps[?$.steps[1].o.x.length==n].m", "steps[?o.x.length==2].n",
	"steps[?o.y.z==true].length", "steps[?o.y==$.steps[0].o.y].n", "eé.length", "[?@.length==1].length",
}

// selectBoth runs Select on root.Any() and SelectValue on root, and
// reports any difference in values, locations and steps.
func selectBoth(t *testing.T, p *Path, root tape.Value) {
	t.Helper()
	want := p.Select(root.Any())
	got := p.SelectValue(root)
	if len(got) != len(want) {
		t.Fatalf("%q: SelectValue found %d matches, Select %d", p, len(got), len(want))
	}
	for i, m := range got {
		have := Match{Value: m.Any(), Location: m.Location(), Step: m.Step}
		// reflect.DeepEqual first: cmp's slice diffing is exponential in
		// the nesting depth, so it only explains a difference found.
		if reflect.DeepEqual(have, want[i]) {
			continue
		}
		t.Fatalf("%q: match %d differs (-Select +SelectValue):\n%s", p, i, cmp.Diff(want[i], have))
	}
}

func TestSelectValueDifferential(t *testing.T) {
	docs := valueDocs
	for _, name := range []string{refund, multi} {
		b, err := os.ReadFile(filepath.Join(testdataDir, name))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	exprs := append(seedExpressions(), valueExprs...)
	var parsed []*Path
	for _, e := range exprs {
		if p, err := Parse(e); err == nil {
			parsed = append(parsed, p)
		}
	}
	for _, doc := range docs {
		d, err := tape.Parse([]byte(doc))
		if err != nil {
			t.Fatalf("%.40s: %v", doc, err)
		}
		for _, p := range parsed {
			selectBoth(t, p, d.Root())
		}
		d.Release()
	}
	// A root inside a document, as the engine selects in a request line.
	for _, p := range parsed {
		selectBoth(t, p, specTrace(t))
	}
}

func TestConcurrentSelectValue(t *testing.T) {
	root := specTrace(t)
	root.Share() // read by several goroutines at once (tape.Value.Share)
	p := MustParse("steps[?@.type=='tool_call'].args.*")
	want := p.SelectValue(root)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				got := p.SelectValue(root)
				if !slices.Equal(want, got) {
					t.Error("concurrent SelectValue differs")
					return
				}
				for i := range got {
					if got[i].Location() != want[i].Location() {
						t.Errorf("concurrent Location %q, want %q", got[i].Location(), want[i].Location())
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestSelectValueMissingRoot(t *testing.T) {
	for _, expr := range []string{"$", "a", "[0]", "[*]", "length", "$[?@==null]"} {
		selectBoth(t, MustParse(expr), tape.Value{})
	}
}

// TestSelectValueDuplicateNames pins what SelectValue's comment says of a
// document outside its contract.
func TestSelectValueDuplicateNames(t *testing.T) {
	d, err := tape.Parse([]byte(`{"a":1,"a":2}`))
	if d == nil {
		t.Fatal(err)
	}
	defer d.Release()
	var got []string
	for _, expr := range []string{"a", "*"} {
		for _, m := range MustParse(expr).SelectValue(d.Root()) {
			got = append(got, expr+"="+string(m.Value.Text()))
		}
	}
	if diff := cmp.Diff([]string{"a=2", "*=1", "*=2"}, got); diff != "" {
		t.Errorf("matches (-want +got):\n%s", diff)
	}
}

// TestSelectValueGolden: the golden cases through SelectValue, each
// location selecting its match again.
func TestSelectValueGolden(t *testing.T) {
	for _, tc := range selectCases {
		b, err := os.ReadFile(filepath.Join(testdataDir, tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		d, err := tape.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		p := MustParse(tc.expr)
		selectBoth(t, p, d.Root())
		for _, m := range p.SelectValue(d.Root()) {
			again := MustParse(m.Location()).SelectValue(d.Root())
			if len(again) != 1 || !reflect.DeepEqual(again[0].Any(), m.Any()) || again[0].Value != m.Value {
				t.Errorf("%s: location %q selects %d matches, not this one", tc.name, m.Location(), len(again))
			}
		}
		d.Release()
	}
}

// TestSelectValueAllocs: the spec batch's paths allocate their result only.
func TestSelectValueAllocs(t *testing.T) {
	if raceDetector {
		t.Skip("allocation counts differ under -race")
	}
	root := specTrace(t)
	for _, expr := range []string{"steps[?name=='lookup_order'].result", "metadata.cost_usd", "output.message"} {
		p := MustParse(expr)
		var ms []ValueMatch
		allocs := testing.AllocsPerRun(100, func() { ms = p.SelectValue(root) })
		if len(ms) != 1 {
			t.Fatalf("%q: %d matches, want 1", expr, len(ms))
		}
		if allocs > 1 {
			t.Errorf("%q: %.0f allocations, want at most 1 (the result)", expr, allocs)
		}
	}
}

// TestAfter: tape's After steps through an array, and gives Missing
// elsewhere.
func TestAfter(t *testing.T) {
	d, err := tape.Parse([]byte(`{"a":[1,[2,3],{"b":4}],"e":[],"s":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	a := d.Root().Get("a")
	var texts []string
	for e := a.After(tape.Value{}); e.Exists(); e = a.After(e) {
		texts = append(texts, string(e.Text()))
	}
	if diff := cmp.Diff([]string{"1", "[2,3]", `{"b":4}`}, texts); diff != "" {
		t.Errorf("elements (-want +got):\n%s", diff)
	}
	for name, v := range map[string]tape.Value{
		"empty array":          d.Root().Get("e").After(tape.Value{}),
		"object":               d.Root().After(tape.Value{}),
		"string":               d.Root().Get("s").After(tape.Value{}),
		"element of another":   d.Root().Get("e").After(a.Index(0)),
		"after the last":       a.After(a.Index(2)),
		"after the array":      a.After(d.Root().Get("e")),
		"the array itself":     a.After(a),
		"missing array":        tape.Value{}.After(tape.Value{}),
		"nested, not an elem.": a.After(a.Index(1).Index(1)),
	} {
		if name == "nested, not an elem." {
			continue // some value of a's subtree: documented as unspecified
		}
		if v.Exists() {
			t.Errorf("%s: After = %s, want Missing", name, v.Text())
		}
	}
}

// FuzzSelectValue: for any path and any JSON text both parse, SelectValue
// finds what Select finds on the same document decoded, with the same
// locations and steps.
func FuzzSelectValue(f *testing.F) {
	docs := append([]string{strings.Repeat(`[{"a":`, 256) + "1" + strings.Repeat("}]", 256)}, valueDocs...)
	for _, name := range []string{refund, multi} {
		if b, err := os.ReadFile(filepath.Join(testdataDir, name)); err == nil {
			docs = append(docs, string(b))
		}
	}
	for i, s := range append(seedExpressions(), valueExprs...) {
		f.Add(s, docs[i%len(docs)])
	}
	f.Fuzz(func(t *testing.T, expr, doc string) {
		p, err := Parse(expr)
		if err != nil {
			return
		}
		d, err := tape.Parse([]byte(doc))
		if err != nil {
			if d != nil {
				d.Release() // a duplicate member name: outside SelectValue's contract
			}
			return
		}
		defer d.Release()
		selectBoth(t, p, d.Root())
	})
}
