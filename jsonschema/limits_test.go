// limits_test.go checks that hostile schemas and instances end in bounded time with an error.

package jsonschema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestExponentialFanOutIsBounded builds $defs where each level references the next one twice, so naive
// evaluation would take 2^40 steps.
func TestExponentialFanOutIsBounded(t *testing.T) {
	var defs []string
	const levels = 40
	for i := range levels {
		defs = append(defs, fmt.Sprintf(`"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"d%d":{"type":"integer"}`, levels))
	schema := `{"$ref":"#/$defs/d0","$defs":{` + strings.Join(defs, ",") + `}}`
	s, err := Compile(decodeJSON(t, []byte(schema)), nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	verr := s.Validate(decodeJSON(t, []byte(`1`)))
	if verr == nil || !strings.Contains(verr.Error(), "steps") {
		t.Fatalf("want a step-limit error, got %v", verr)
	}
	t.Logf("stopped after %v: %s", time.Since(start), verr.Summary())
}

// TestDeepInstanceIsBounded nests arrays far deeper than the evaluation depth limit.
func TestDeepInstanceIsBounded(t *testing.T) {
	s, err := Compile(decodeJSON(t, []byte(`{"$defs":{"a":{"items":{"$ref":"#/$defs/a"}}},"$ref":"#/$defs/a"}`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	const depth = 5000
	inst := decodeJSON(t, []byte(strings.Repeat("[", depth)+strings.Repeat("]", depth)))
	verr := s.Validate(inst)
	if verr == nil || !strings.Contains(verr.Summary(), "deeper than") {
		t.Fatalf("want a depth-limit error, got %v", verr)
	}
	if s.Valid(inst) {
		t.Fatal("Valid must report the depth limit as invalid")
	}
}

// TestUniqueItemsLarge keeps uniqueItems linear on a large array.
func TestUniqueItemsLarge(t *testing.T) {
	s, err := Compile(decodeJSON(t, []byte(`{"uniqueItems":true}`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("[")
	for i := range 50000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"n":%d}`, i)
	}
	b.WriteString(`,{"n":5.0}]`)
	inst := decodeJSON(t, []byte(b.String()))
	start := time.Now()
	verr := s.Validate(inst)
	if verr == nil {
		t.Fatal("duplicate not found")
	}
	if d := time.Since(start); d > 10*time.Second { // generous: -race slows hashing a lot
		t.Fatalf("uniqueItems took %v", d)
	}
}

// TestRepeatedLinearWorkIsBounded repeats keywords that read the whole instance, which the count of
// schema evaluations alone does not bound: each case ran for minutes before keywords counted their reading.
func TestRepeatedLinearWorkIsBounded(t *testing.T) {
	var big strings.Builder // an array of 100,000 distinct strings
	big.WriteByte('[')
	for i := range 100000 {
		if i > 0 {
			big.WriteByte(',')
		}
		fmt.Fprintf(&big, `"item-%d"`, i)
	}
	big.WriteByte(']')
	bigJSON := big.String()
	branches := func(n int, branch string) string {
		return `{"anyOf":[` + strings.TrimSuffix(strings.Repeat(branch+",", n), ",") + `]}`
	}
	wide := map[string]any{}
	for i := range 200000 {
		wide[fmt.Sprint("k", i)] = nil
	}
	cases := []struct {
		name, schema string
		inst         any
	}{
		{"patterns over a long string", branches(20000, `{"pattern":"x$"}`), strings.Repeat("é", 1<<20)},
		{"lengths of a long string", branches(20000, `{"minLength":2000000}`), strings.Repeat("é", 1<<20)},
		{"true subschemas over a wide object", branches(20000, `{"propertyNames":true,"type":"array"}`), wide},
		{"names over a small object", `{"$defs":{"p":{"required":["` + strings.Repeat(`a","`, 100000) + `z"]}},` +
			`"anyOf":[` + strings.TrimSuffix(strings.Repeat(`{"$ref":"#/$defs/p"},`, 20000), ",") + `]}`, map[string]any{}},
		// Equality and uniqueness read whole values: a large const or enum met
		// by an equal instance, or a large array checked for duplicates.
		{"a large const matched again and again", `{"$defs":{"c":{"const":` + bigJSON + `,"type":"string"}},` +
			`"anyOf":[` + strings.TrimSuffix(strings.Repeat(`{"$ref":"#/$defs/c"},`, 20000), ",") + `]}`, decodeJSON(t, []byte(bigJSON))},
		{"a large enum member matched again and again", `{"$defs":{"e":{"enum":[1,` + bigJSON + `],"type":"string"}},` +
			`"anyOf":[` + strings.TrimSuffix(strings.Repeat(`{"$ref":"#/$defs/e"},`, 20000), ",") + `]}`, decodeJSON(t, []byte(bigJSON))},
		{"uniqueness of a large array again and again", branches(20000, `{"uniqueItems":true,"type":"string"}`), decodeJSON(t, []byte(bigJSON))},
	}
	for _, c := range cases {
		s, err := Compile(decodeJSON(t, []byte(c.schema)), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		start := time.Now()
		verr := s.Validate(c.inst)
		if verr == nil || !strings.Contains(verr.Units[len(verr.Units)-1].Message, "steps") {
			t.Errorf("%s: want a step-limit error, got %v", c.name, verr)
		}
		// The step-limit error above is the bound; the time is only logged:
		// on a loaded machine a case took 11.6 s of a 10 s limit with the
		// bound intact, and a missing bound shows as the error's absence.
		t.Logf("%s: stopped after %v", c.name, time.Since(start))
	}
}

// TestUnitsAreBoundedInBytes fails a thousand items under a long property name: every unit repeats the
// name in both locations, so the units are capped by their size as well as their number.
func TestUnitsAreBoundedInBytes(t *testing.T) {
	name := strings.Repeat("n", 10000)
	s, err := Compile(decodeJSON(t, []byte(`{"properties":{"`+name+`":{"items":{"type":"string"}}}}`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	items := make([]any, 1000)
	for i := range items {
		items[i] = json.Number("1")
	}
	verr := s.Validate(map[string]any{name: items})
	if verr == nil {
		t.Fatal("want errors")
	}
	size := 0
	for _, u := range verr.Units {
		size += len(u.KeywordLocation) + len(u.AbsoluteKeywordLocation) + len(u.InstanceLocation) + len(u.Message)
	}
	if size > maxUnitBytes+30000 || len(verr.Units) < 10 {
		t.Errorf("%d units of %d bytes in all, want about %d bytes", len(verr.Units), size, maxUnitBytes)
	}
}

// TestManyResourcesCompile refers to many locations of a schema with many resources ($id): finding the
// resource around each location must not scan them all.
func TestManyResourcesCompile(t *testing.T) {
	const n = 20000
	var defs, refs []string
	for i := range n {
		defs = append(defs, fmt.Sprintf(`"r%d":{"$id":"r%d"}`, i, i), fmt.Sprintf(`"a%d":{"type":"null"}`, i))
		refs = append(refs, fmt.Sprintf(`{"$ref":"#/$defs/a%d"}`, i))
	}
	schema := `{"$defs":{` + strings.Join(defs, ",") + `},"anyOf":[` + strings.Join(refs, ",") + `]}`
	start := time.Now()
	s, err := Compile(decodeJSON(t, []byte(schema)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second { // it took 30s when every resource was scanned
		t.Fatalf("Compile took %v", d)
	}
	if !s.Valid(nil) || s.Valid(1) {
		t.Fatal("wrong verdict")
	}
}

// TestRepeatedTypesAreNamedOnce: a type list repeating a name (which the specification forbids) must not
// lengthen the message of every failure.
func TestRepeatedTypesAreNamedOnce(t *testing.T) {
	s, err := Compile(decodeJSON(t, []byte(`{"type":["string","null","string","null"]}`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Validate(json.Number("1")).Units[0].Message, "got number, want string or null"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestPatternSizeIsBounded: compiling a regular expression costs the size of its program, which a short
// pattern can make large (a Unicode class holds hundreds of ranges, a repeat copies its atom); one pattern
// of 100 KB took 3 s and 500 MB before the size was estimated and bounded.
func TestPatternSizeIsBounded(t *testing.T) {
	var distinct []string
	for i := range 40 {
		distinct = append(distinct, fmt.Sprintf(`"%s%d":true`, strings.Repeat(`\\p{L}`, 50), i))
	}
	cases := []struct{ name, schema, want string }{
		{"classes", `{"pattern":"` + strings.Repeat(`\\p{L}`, 20000) + `"}`, "pattern too large"},
		{"dots", `{"pattern":"` + strings.Repeat(`.`, 500000) + `"}`, "pattern too large"},
		{"repeats", `{"pattern":"((a{1000}){1000}){1000}"}`, "pattern too large"},
		{"in all", `{"patternProperties":{` + strings.Join(distinct, ",") + `}}`, "patterns larger than 1048576 in all"},
		{"fits", `{"pattern":"^(?:.{0,1000}\\s\\p{Lu}[\\p{L}\\p{N}]{1,64})+$"}`, ""},
	}
	for _, c := range cases {
		start := time.Now()
		_, err := Compile(decodeJSON(t, []byte(c.schema)), nil)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %.300v, want %q", c.name, err, c.want)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: took %v", c.name, d)
		}
	}
	start := time.Now()
	if !isECMARegex(strings.Repeat(".", 1<<20)) {
		t.Error(`format "regex" refused a long valid pattern`)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf(`format "regex" took %v on a long pattern`, d)
	}
}

// chainLoader serves https://chain.test/d<i> as a schema whose $ref names
// d<i+1>, up to d<last>, which is empty.
type chainLoader struct{ last int }

func (l chainLoader) Load(uri string) (any, error) {
	var i int
	if _, err := fmt.Sscanf(uri, "https://chain.test/d%d", &i); err != nil {
		return nil, err
	}
	if i >= l.last {
		return map[string]any{}, nil
	}
	return map[string]any{"$ref": fmt.Sprint("d", i+1)}, nil
}

// TestCompileBounds: docs/security.md "compile: ≤ 2²⁰ subschemas, ≤ 1,000 loaded
// documents". One past each bound is refused with an error naming it; the
// document chain ends at 5,000 so that an engine without the bound
// compiles it instead of looping.
func TestCompileBounds(t *testing.T) {
	root := map[string]any{"$ref": "https://chain.test/d0"}
	if _, err := Compile(root, &Options{Loader: chainLoader{last: maxDocuments - 2}}); err != nil {
		t.Errorf("a chain of %d documents besides the root: %v", maxDocuments-1, err)
	}
	_, err := Compile(root, &Options{Loader: chainLoader{last: 5000}})
	if err == nil || !strings.Contains(err.Error(), "more than 1000 schema documents") {
		t.Errorf("a chain of 5,000 documents: got %v, want the 1,000-document bound", err)
	}

	var b strings.Builder
	b.WriteString(`{"allOf":[`)
	for i := range maxNodes {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("true") // a boolean schema is a subschema too, and decodes to no allocation
	}
	b.WriteString(`]}`)
	_, err = Compile(decodeJSON(t, []byte(b.String())), nil)
	if err == nil || !strings.Contains(err.Error(), "schema has more than 1048576 subschemas") {
		t.Errorf("2²⁰ subschemas besides the root: got %.300v, want the 2²⁰-subschema bound", err)
	}
}

// TestUnitsAreBoundedInCount: docs/security.md "error units ≤ 1,000": 5,000 failing
// items with short locations, far within the byte bound, give 1,000 units.
func TestUnitsAreBoundedInCount(t *testing.T) {
	s, err := Compile(decodeJSON(t, []byte(`{"items":{"type":"string"}}`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	items := make([]any, 5000)
	for i := range items {
		items[i] = json.Number("1")
	}
	verr := s.Validate(items)
	if verr == nil {
		t.Fatal("5,000 failing items: valid")
	}
	if len(verr.Units) != maxUnits {
		t.Errorf("5,000 failing items: %d units, want %d", len(verr.Units), maxUnits)
	}
}
