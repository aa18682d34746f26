// value_test.go checks ValidValue against Valid on decoded values: the official suite, the golden and
// limit cases, cases aimed at the in-place readings, and a fuzz target.

package jsonschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"

	"attest-engine/tape"
)

// parseTape parses data as the engine does; a document that names a member twice is kept (ValidValue
// decodes it).
func parseTape(t testing.TB, data []byte) *tape.Doc {
	t.Helper()
	d, err := tape.Parse(data)
	var dup *tape.DuplicateKeyError
	if err != nil && !errors.As(err, &dup) {
		t.Fatalf("tape.Parse(%.80s): %v", data, err)
	}
	return d
}

// sameVerdict requires ValidValue(x) to be Valid(x.Any()) and, when the schema is read in place, the
// evaluation in place to give it without a recovered panic. It returns the verdict and whether it was
// reached in place.
func sameVerdict(t testing.TB, name string, s *Schema, x tape.Value) (valid, inPlace bool) {
	t.Helper()
	want, limited := evalDecoded(s, x.Any(), false)
	got := s.ValidValue(x)
	inPlace = s.inPlace && x.Exists() && !x.HasDuplicate()
	var inPlaceGot, inPlaceLimited bool
	if inPlace {
		inPlaceGot, inPlaceLimited = evalInPlace(s, x)
	}
	if limited || inPlaceLimited {
		// A limit was hit: the verdict may then turn on the order in which
		// an object's members were visited (Valid's map order, the tape's
		// document order), as Valid's may differ from one call to the next.
		return want, inPlace
	}
	if got != want {
		t.Errorf("%s: ValidValue = %v, Valid(Any) = %v", name, got, want)
	}
	if inPlace && inPlaceGot != want {
		t.Errorf("%s: in place = %v, Valid(Any) = %v", name, inPlaceGot, want)
	}
	return want, inPlace
}

// evalDecoded is Valid (detail false: the fast path, members in map order)
// or the detailed evaluation (members sorted), and whether it stopped on a
// limit (steps, depth, a $ref loop).
func evalDecoded(s *Schema, inst any, detail bool) (ok, limited bool) {
	v := getValidator(s, detail)
	ok = v.eval(s.root, inst, nil) && v.fatal == nil
	limited = v.fatal != nil
	putValidator(v)
	return ok, limited
}

// evalInPlace is validInPlace, and whether it stopped on a limit.
func evalInPlace(s *Schema, x tape.Value) (ok, limited bool) {
	v := getValidator(s, false)
	ok = v.evalValue(s.root, x) && v.fatal == nil
	limited = v.fatal != nil
	putValidator(v)
	return ok, limited
}

// TestValidValueSuite runs the JSON-Schema-Test-Suite (draft2020-12) through both paths: the verdicts
// must be identical on every test, and ValidValue's must be today's, Valid on the encoding/json value
// (whose agreement with the suite TestSuiteRequired and TestSuiteOptional check).
func TestValidValueSuite(t *testing.T) {
	loader, dir := suiteLoader(t)
	sets := []struct {
		glob   string
		format bool
	}{{"*.json", false}, {"optional/*.json", false}, {"optional/format/*.json", true}}
	for _, set := range sets {
		files, err := filepath.Glob(filepath.Join(dir, set.glob))
		if err != nil || len(files) == 0 {
			t.Fatalf("no suite files match %s: %v", set.glob, err)
		}
		sort.Strings(files)
		total, inPlace := 0, 0
		for _, file := range files {
			rel, _ := filepath.Rel(dir, file)
			var groups []suiteGroup
			readJSONFile(t, file, &groups)
			for _, g := range groups {
				s, err := Compile(decodeJSON(t, g.Schema), &Options{Loader: loader, AssertFormat: set.format})
				if err != nil {
					continue // TestSuite* report it
				}
				for _, tc := range g.Tests {
					name := rel + ": " + g.Description + ": " + tc.Description
					today := s.Valid(decodeJSON(t, tc.Data))
					// The test's data as written, and with every character of its strings and
					// names escaped (then read through the tape's unescaping).
					for _, data := range [][]byte{tc.Data, escapeStrings(t, tc.Data)} {
						d := parseTape(t, data)
						got, in := sameVerdict(t, name, s, d.Root())
						if got != today {
							t.Errorf("%s: ValidValue on %s = %v, Valid on encoding/json's value = %v", name, data, got, today)
						}
						if set.glob == "*.json" && got != tc.Valid {
							t.Errorf("%s: ValidValue on %s = %v, the suite expects %v", name, data, got, tc.Valid)
						}
						d.Release()
						total++
						if in {
							inPlace++
						}
					}
				}
			}
		}
		t.Logf("%s: %d tests, %d read in place", set.glob, total, inPlace)
		// Most of the suite tests keywords read in place: far fewer means the in-place path went unused.
		if inPlace*2 < total {
			t.Errorf("%s: only %d of %d tests read in place", set.glob, inPlace, total)
		}
	}
}

// escapeStrings rewrites a JSON text with every character of its strings and member names written as a
// \u escape (a surrogate pair beyond the BMP), its numbers as written.
func escapeStrings(t testing.TB, data []byte) []byte {
	t.Helper()
	var b []byte
	var write func(v any)
	str := func(s string) {
		b = append(b, '"')
		for _, r := range s {
			if r > 0xFFFF {
				r1, r2 := utf16.EncodeRune(r)
				b = fmt.Appendf(b, `\u%04x\u%04X`, r1, r2)
			} else {
				b = fmt.Appendf(b, `\u%04x`, r)
			}
		}
		b = append(b, '"')
	}
	write = func(v any) {
		switch x := v.(type) {
		case string:
			str(x)
		case []any:
			b = append(b, '[')
			for i, e := range x {
				if i > 0 {
					b = append(b, ',')
				}
				write(e)
			}
			b = append(b, ']')
		case map[string]any:
			b = append(b, '{')
			for i, k := range sortedKeys(x) {
				if i > 0 {
					b = append(b, ',')
				}
				str(k)
				b = append(b, ':')
				write(x[k])
			}
			b = append(b, '}')
		default:
			enc, err := json.Marshal(x) // null, booleans, json.Number as written
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, enc...)
		}
	}
	write(decodeJSON(t, data))
	return b
}

// TestValidValueCases: the golden error cases, the limit seeds (work, depth and $ref loop limits are met
// in place at the same point) and cases aimed at the in-place readings, with the verdict expected.
func TestValidValueCases(t *testing.T) {
	type valueCase struct {
		schema, instance string
		want             bool
	}
	var cases []valueCase
	for _, c := range loadErrorCases(t) {
		inst := string(c.Instance)
		if inst == "" {
			inst = "null"
		}
		s, err := Compile(decodeJSON(t, c.Schema), &Options{AssertFormat: true}) // as below
		if err != nil {
			continue
		}
		cases = append(cases, valueCase{string(c.Schema), inst, s.Valid(decodeJSON(t, []byte(inst)))})
	}
	for _, sd := range limitSeeds() {
		if strings.Count(sd.instance, "[") > tape.MaxDepth {
			continue // deeper than a tape holds: see the case below
		}
		if _, err := Compile(decodeJSON(t, []byte(sd.schema)), &Options{AssertFormat: true}); err != nil {
			continue // a compile limit
		}
		cases = append(cases, valueCase{sd.schema, sd.instance, sd.want == ""})
	}
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	bigSchema, bigObject, bigMissing := manyProperties(40)
	cases = append(cases, []valueCase{
		// Two schemas a level, 510 levels: past the 1000-schema depth limit; 400 levels are not.
		{`{"$defs":{"a":{"items":{"$ref":"#/$defs/a"}}},"$ref":"#/$defs/a"}`, nest(510), false},
		{`{"$defs":{"a":{"items":{"$ref":"#/$defs/a"}}},"$ref":"#/$defs/a"}`, nest(400), true},
		// Strings with escapes: lengths in code points of the decoded text, patterns and enums on it.
		{`{"minLength":3,"maxLength":3}`, `"\u00e9\ud83d\ude00\n"`, true},
		{`{"maxLength":2}`, `"\u00e9\ud83d\ude00\n"`, false},
		{`{"minLength":2}`, `"\ud800"`, false}, // a lone surrogate decodes to one U+FFFD
		{`{"pattern":"^a\\nb$"}`, `"a\nb"`, true},
		{`{"pattern":"^a/b$"}`, `"a\/b"`, true},
		{`{"enum":["a","b","c","d","e","f","g","h","i\"j"]}`, `"i\"j"`, true},
		{`{"enum":["a","b","c","d","e","f","g","h","i\"j"]}`, `"i\\j"`, false},
		{`{"const":{"a\"":[1,"\u00e9",null]}}`, `{"a\u0022":[1.0,"é",null]}`, true},
		{`{"const":{"a":[1,2]}}`, `{"a":[1,2],"b":1}`, false},
		{`{"const":"é"}`, `"\u00e9"`, true},
		{`{"propertyNames":{"maxLength":1}}`, `{"\u00e9":1}`, true},
		{`{"propertyNames":{"maxLength":1}}`, `{"\u00e9\u00e9":1}`, false},
		{`{"properties":{"é":{"type":"string"}},"required":["é"]}`, `{"\u00e9":1}`, false},
		// A raw name equal to the name looked up, but with an escape: it stands for a\b, not a\\b.
		{`{"required":["a\\b"]}`, `{"a\\b":1}`, true},
		{`{"required":["a\\\\b"]}`, `{"a\\b":1}`, false},
		{`{"required":["a\\\\b"]}`, `{"a\\\\b":1}`, true},
		{`{"additionalProperties":false,"properties":{"é":true}}`, `{"\u00e9":1}`, true},
		{`{"additionalProperties":false,"patternProperties":{"^\\n":true}}`, `{"\nx":1}`, true},
		// Numbers: exact, however written.
		{`{"const":1}`, `1.0e0`, true},
		{`{"enum":[9007199254740993]}`, `9007199254740992`, false},
		{`{"type":"integer"}`, `1.0000000000000000001`, false},
		{`{"type":"integer"}`, `12e-1`, false},
		{`{"type":"integer"}`, `1.2e1`, true},
		{`{"minimum":9007199254740993}`, `9007199254740992`, false},
		{`{"exclusiveMaximum":1e400}`, `1e399`, true},
		{`{"multipleOf":0.01}`, `1234567890123456789012.37`, true},
		{`{"multipleOf":0.01}`, `0.075`, false},
		{`{"maximum":1}`, `"2"`, true},
		// Arrays.
		{`{"prefixItems":[{"type":"integer"}],"items":false}`, `[1]`, true},
		{`{"prefixItems":[{"type":"integer"}],"items":false}`, `[1,2]`, false},
		{`{"contains":{"type":"string"},"minContains":2,"maxContains":3}`, `[1,"a",2,"b"]`, true},
		{`{"contains":{"type":"string"},"minContains":0,"maxContains":1}`, `["a","b"]`, false},
		{`{"uniqueItems":true}`, `[1,{"a":[1]},{"a":[1.0]}]`, false},
		{`{"uniqueItems":true}`, `[` + strings.TrimSuffix(strings.Repeat(`"x",`, 20), ",") + `]`, false},
		// Many properties over a large object: looked up through a map of its members.
		{bigSchema, bigObject, true},
		{bigSchema, bigMissing, false},
		// A document naming a member twice is decoded: the last member counts, as in Any.
		{`{"properties":{"a":{"type":"string"}}}`, `{"a":1,"a":"x"}`, true},
		{`{"properties":{"a":{"type":"string"}}}`, `{"a":"x","a":1}`, false},
		{`{"maxProperties":1}`, `{"a":1,"a":2}`, true},
		// Schemas that need annotations or the dynamic scope are decoded.
		{`{"properties":{"a":true},"unevaluatedProperties":false}`, `{"a":1,"b":2}`, false},
		{`{"$dynamicAnchor":"x","items":{"$dynamicRef":"#x"},"type":"array"}`, `[[1]]`, false},
	}...)
	for i, c := range cases {
		name := fmt.Sprintf("case %d %.60s on %.40s", i, c.schema, c.instance)
		s, err := Compile(decodeJSON(t, []byte(c.schema)), &Options{AssertFormat: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d := parseTape(t, []byte(c.instance))
		if got, _ := sameVerdict(t, name, s, d.Root()); got != c.want {
			t.Errorf("%s: valid = %v, want %v", name, got, c.want)
		}
		d.Release()
	}
}

// manyProperties returns a schema requiring and typing n properties, an object of 2n members that meets
// it and one that lacks its last required property.
func manyProperties(n int) (schema, ok, missing string) {
	var props, req, members []string
	for i := range n {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"integer"}`, i))
		req = append(req, fmt.Sprintf(`"p%d"`, i))
		members = append(members, fmt.Sprintf(`"p%d":%d`, i, i), fmt.Sprintf(`"q%d":"x"`, i))
	}
	schema = `{"properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") + `]}`
	ok = `{` + strings.Join(members, ",") + `}`
	missing = `{` + strings.Join(members[:len(members)-2], ",") + `}`
	return schema, ok, missing
}

// TestValidValueInPlace: which schemas are read in place.
func TestValidValueInPlace(t *testing.T) {
	for _, tc := range []struct {
		schema string
		want   bool
	}{
		{refundSchema, true},
		{ordersSchema, true},
		{`true`, true},
		{`{"$defs":{"a":{"anyOf":[{"type":"null"},{"items":{"$ref":"#/$defs/a"}}]}},"$ref":"#/$defs/a"}`, true},
		{`{"uniqueItems":true,"not":{"const":1},"if":{"minimum":1},"then":{"multipleOf":2}}`, true},
		{`{"dependentRequired":{"a":["b"]},"dependentSchemas":{"b":{"minProperties":2}},"propertyNames":{"pattern":"^[a-z]"}}`, true},
		{`{"$dynamicRef":"#/$defs/a","$defs":{"a":true}}`, true}, // not a $dynamicAnchor: resolved statically
		{`{"allOf":[{"unevaluatedProperties":false}]}`, false},
		{`{"unevaluatedItems":false}`, false},
		{`{"$dynamicAnchor":"x","items":{"$dynamicRef":"#x"}}`, false},
	} {
		s, err := Compile(decodeJSON(t, []byte(tc.schema)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if s.inPlace != tc.want {
			t.Errorf("%.80s: in place = %v, want %v", tc.schema, s.inPlace, tc.want)
		}
	}
}

// TestValidValueDoesNotAllocate: a schema of checks on members, read in place, allocates nothing.
func TestValidValueDoesNotAllocate(t *testing.T) {
	if raceDetector {
		t.Skip("counts allocations, which vary under the race detector")
	}
	for _, tc := range []struct{ schema, instance string }{
		{refundSchema, refundInstance},
		{`{"type":"object","required":["status","amount"],"properties":{"status":{"type":"string"},"amount":{"type":"number","minimum":0}}}`,
			`{"status":"delivered","amount":89.99,"eligible_for_refund":true}`},
		{`{"type":"array","items":{"enum":[1,"a",{"b":null}]},"maxItems":4}`, `[1,"a",{"b":null}]`},
	} {
		s, err := Compile(decodeJSON(t, []byte(tc.schema)), nil)
		if err != nil {
			t.Fatal(err)
		}
		d := parseTape(t, []byte(tc.instance))
		x := d.Root()
		if !s.ValidValue(x) {
			t.Fatalf("%s: %s should be valid", tc.schema, tc.instance)
		}
		if n := testing.AllocsPerRun(100, func() { s.ValidValue(x) }); n != 0 {
			t.Errorf("%.60s: ValidValue made %.0f allocations, want 0", tc.schema, n)
		}
		d.Release()
	}
}

// TestValidValueReadsOnce: what costs more to read in place than decoded is read once per call, however
// often the schema reads it: the text of a string with escapes, and the members of a large object by
// name. Counted in allocations (both make some), so that a per-evaluation read would show as 50 times
// as many (growing the decoded text takes about ten).
func TestValidValueReadsOnce(t *testing.T) {
	if raceDetector {
		t.Skip("counts allocations, which vary under the race detector")
	}
	fifty := func(branch string) string {
		return `{"anyOf":[` + strings.Repeat(branch+",", 50) + `true]}`
	}
	var members []string
	for i := range 100 {
		members = append(members, fmt.Sprintf(`"m%d":%d`, i, i))
	}
	for _, tc := range []struct {
		schema, instance string
		most             float64
	}{
		{fifty(`{"maxLength":1000000,"minLength":1000000}`), `"` + strings.Repeat(`\n`, 1000) + `"`, 20},
		{fifty(`{"pattern":"^x"}`), `"` + strings.Repeat(`\n`, 1000) + `"`, 20},
		{fifty(`{"const":"` + strings.Repeat(`\n`, 999) + `"}`), `"` + strings.Repeat(`\n`, 1000) + `"`, 20},
		{fifty(`{"required":["zz"]}`), `{` + strings.Join(members, ",") + `}`, 120},
		{fifty(`{"properties":{"m1":false}}`), `{` + strings.Join(members, ",") + `}`, 120},
	} {
		s, err := Compile(decodeJSON(t, []byte(tc.schema)), nil)
		if err != nil {
			t.Fatal(err)
		}
		d := parseTape(t, []byte(tc.instance))
		x := d.Root()
		if !s.inPlace || !s.ValidValue(x) {
			t.Fatalf("%.60s: should be read in place, and valid", tc.schema)
		}
		if n := testing.AllocsPerRun(20, func() { s.ValidValue(x) }); n > tc.most {
			t.Errorf("%.60s: ValidValue made %.0f allocations, want at most %.0f", tc.schema, n, tc.most)
		}
		d.Release()
	}
}

// FuzzValidValue: for any schema that compiles and any instance the tape reads, ValidValue is Valid on
// the decoded instance, and the evaluation in place does not panic.
func FuzzValidValue(f *testing.F) {
	addSeeds(f, true)
	for _, sd := range [][2]string{
		{`{"minLength":2,"pattern":"é$","enum":["\u00e9\u00e9","x"]}`, `"\u00e9\u00e9"`},
		{`{"properties":{"a\"b":{"const":[1.0]}},"additionalProperties":{"type":"integer"}}`, `{"a\u0022b":[1e0],"c":2.0}`},
		{`{"oneOf":[{"multipleOf":3},{"multipleOf":5}],"not":{"maximum":-1}}`, `15`},
		{`{"contains":{"const":{"a":1}},"maxContains":1,"uniqueItems":true}`, `[{"a":1},{"a":1.0}]`},
	} {
		f.Add([]byte(sd[0]), []byte(sd[1]))
	}
	f.Fuzz(func(t *testing.T, schemaData, instData []byte) {
		schema, err := decode(schemaData)
		if err != nil {
			return
		}
		s, err := Compile(schema, &Options{AssertFormat: true})
		if err != nil {
			return
		}
		d, err := tape.Parse(instData)
		var dup *tape.DuplicateKeyError
		if err != nil && !errors.As(err, &dup) {
			return
		}
		sameVerdict(t, "fuzz", s, d.Root())
		d.Release()
		if err == nil { // and with its strings escaped
			d = parseTape(t, escapeStrings(t, instData))
			sameVerdict(t, "fuzz, escaped", s, d.Root())
			d.Release()
		}
	})
}

func TestEscapeStrings(t *testing.T) {
	got := string(escapeStrings(t, []byte(`{"é":["a😀",1.50,null]}`)))
	if want := `{"\u00e9":["\u0061\ud83d\uDE00",1.50,null]}`; got != want {
		t.Errorf("escapeStrings = %s, want %s", got, want)
	}
}
