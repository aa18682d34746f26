// fuzz_test.go holds the fuzz targets: compiling and validating arbitrary JSON must never panic or hang.

package jsonschema

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// addSeeds seeds a fuzz target with the golden cases, the official suite's schemas and instances (when
// the suite is there) and limitSeeds, so that fuzzing starts from every keyword and every limit.
func addSeeds(f *testing.F, withInstance bool) {
	var seeds [][2]string
	for _, c := range loadErrorCases(f) {
		inst := string(c.Instance)
		if inst == "" {
			inst = "null"
		}
		seeds = append(seeds, [2]string{string(c.Schema), inst})
	}
	suite := filepath.Join(conformanceDir, "JSON-Schema-Test-Suite", "tests", "draft2020-12")
	for _, glob := range []string{"*.json", "optional/*.json", "optional/format/*.json"} {
		files, _ := filepath.Glob(filepath.Join(suite, glob))
		for _, file := range files {
			var groups []suiteGroup
			readJSONFile(f, file, &groups)
			for _, g := range groups {
				for _, tc := range g.Tests {
					seeds = append(seeds, [2]string{string(g.Schema), string(tc.Data)})
				}
			}
		}
	}
	for _, sd := range limitSeeds() {
		seeds = append(seeds, [2]string{sd.schema, sd.instance})
	}
	added := map[string]bool{}
	for _, sd := range seeds {
		switch {
		case withInstance:
			f.Add([]byte(sd[0]), []byte(sd[1]))
		case !added[sd[0]]:
			f.Add([]byte(sd[0]))
			added[sd[0]] = true
		}
	}
}

// limitSeed is a schema and an instance that reach a limit or a less common path, and what the error says.
type limitSeed struct{ schema, instance, want string }

// limitSeeds are small enough to run on every go test; TestLimitSeeds checks that each gets where it should.
func limitSeeds() []limitSeed {
	nest := func(n int, open, inner, close string) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	var fanOut, resources, refs []string
	for i := range 30 {
		fanOut = append(fanOut, fmt.Sprintf(`"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i+1, i+1))
	}
	for i := range 50 {
		resources = append(resources, fmt.Sprintf(`"r%d":{"$id":"r%d","$defs":{"x":{"type":"string"}}}`, i, i))
		refs = append(refs, fmt.Sprintf(`{"$ref":"r%d#/$defs/x"}`, i))
	}
	wide := make([]string, 40)
	for i := range wide {
		wide[i] = fmt.Sprintf(`"<k%d&>":"\u2028%d"`, 39-i, i)
	}
	long := strings.Repeat("n", 10000)
	return []limitSeed{
		{nest(1002, `{"not":`, `true`, `}`), `0`, "schema nesting deeper than 1000"},
		{`{"$defs":{` + strings.Join(fanOut, ",") + `,"d30":true},"$ref":"#/$defs/d0"}`, `0`, "more than 10000000 steps"},
		{`{"$defs":{"a":{"items":{"$ref":"#/$defs/a"}}},"$ref":"#/$defs/a"}`, nest(1100, `[`, ``, `]`), "deeper than 1000 schemas"},
		{`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, `0`, "$ref loops"},
		{`{"anyOf":[` + strings.TrimSuffix(strings.Repeat(`{"pattern":"^x"},`, 1000), ",") + `]}`,
			`"` + strings.Repeat("y", 100000) + `"`, "more than 10000000 steps"},
		{`{"properties":{"` + long + `":{"items":{"type":"string"}}}}`,
			`{"` + long + `":[` + strings.TrimSuffix(strings.Repeat(`1,`, 200), ",") + `]}`, "(and 52 more errors)"},
		{`{"$defs":{` + strings.Join(resources, ",") + `},"anyOf":[` + strings.Join(refs, ",") + `]}`, `1`, "got number, want string"},
		{`{"enum":[{"a":1},[1,2]],"const":"` + strings.Repeat("é", 100) + `"}`, `{` + strings.Join(wide, ",") + `}`,
			`{"\u003ck0\u0026\u003e":"\u202839","\u003ck1\u0026\u003e":"\u202838","\u003ck10\…`},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","items":[{"type":"integer"}],"additionalItems":false}`,
			`[1,2]`, "array has 2 items, want at most 1"},
		{`{"patternProperties":{"^\\p{Lu}\\s[\\u{1F600}-\\u{1F64F}]$":false},"propertyNames":{"format":"regex"}}`,
			`{"A 😀":0,"(?<=x)":1}`, `property "A 😀" is not allowed`},
		{`{"type":["integer","integer"],"multipleOf":1e-400,"maximum":1e400}`, `1e-401`, "1e-401 is not a multiple of 1e-400"},
		{`{"pattern":"(\\p{L}{1000}){1000}"}`, `""`, "pattern too large"},
		{`{"format":"regex"}`, `"` + strings.Repeat(`[\\p{L}]`, 50000) + `"`, ""},
	}
}

func TestLimitSeeds(t *testing.T) {
	for _, sd := range limitSeeds() {
		var got string
		s, err := Compile(decodeJSON(t, []byte(sd.schema)), &Options{AssertFormat: true})
		if err != nil {
			got = err.Error()
		} else if verr := s.Validate(decodeJSON(t, []byte(sd.instance))); verr != nil {
			got = verr.Summary() + "\n" + verr.Error()
		}
		if !strings.Contains(got, sd.want) {
			t.Errorf("schema %.60s…: want %q in\n%.2000s", sd.schema, sd.want, got)
		}
	}
}

// FuzzCompile: any JSON document either compiles or yields a CompileError, never a recovered panic.
func FuzzCompile(f *testing.F) {
	addSeeds(f, false)
	f.Fuzz(func(t *testing.T, data []byte) {
		schema, err := decode(data)
		if err != nil {
			return
		}
		_, err = Compile(schema, nil)
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("Compile panicked: %v", err)
		}
	})
}

// FuzzValidate: for any schema that compiles and any instance, Valid and Validate agree (unless a
// limit was hit, see below) and neither panics.
func FuzzValidate(f *testing.F) {
	addSeeds(f, true)
	f.Fuzz(func(t *testing.T, schemaData, instData []byte) {
		schema, err := decode(schemaData)
		if err != nil {
			return
		}
		inst, err := decode(instData)
		if err != nil {
			return
		}
		s, err := Compile(schema, &Options{AssertFormat: true})
		if err != nil {
			return
		}
		verr := s.Validate(inst)
		if verr != nil {
			for _, u := range verr.Units {
				if strings.Contains(u.Message, "internal error") {
					t.Fatalf("Validate panicked: %v", u.Message)
				}
			}
			_ = verr.Summary()
		}
		// Compared only where neither stopped on a limit: then the verdict
		// may turn on the order members were visited in (the fast path's
		// map order, the detailed one's sorted order), and Valid's may
		// differ from one call to the next.
		fast, limitedFast := evalDecoded(s, inst, false)
		_, limitedDetail := evalDecoded(s, inst, true)
		if !limitedFast && !limitedDetail && !reportsLimit(verr) && fast != (verr == nil) {
			t.Fatalf("Valid and Validate disagree: %v", verr)
		}
	})
}

// FuzzRegex: a pattern either translates to RE2 or is refused, and wherever the bit-parallel matcher
// applies it agrees with the regexp package.
func FuzzRegex(f *testing.F) {
	for _, p := range []string{`^RFD-\d+$`, `^(ab|cd)+$`, `\p{Letter}\s\S.`, `[^]|[]`, `\u{1F600}\ud83d\ude00`, `(?<n>x)\k<n>`, `a{2,3}?`, `[\b\cJ\x41-\u0042]`} {
		f.Add(p, "RFD-12 ab")
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		_ = isECMARegex(pattern)
		re, _, err := compileECMA(pattern)
		if err != nil {
			return
		}
		if g := buildGlushkov(re.String()); g != nil && g.match(s) != re.MatchString(s) {
			t.Fatalf("pattern %q (RE2 %q) on %q: fast matcher says %v, regexp says %v", pattern, re, s, g.match(s), re.MatchString(s))
		}
		m := newMatcher(re)
		if got, want := m.matchBytes([]byte(s)), m.MatchString(s); got != want {
			t.Fatalf("pattern %q on %q: matchBytes says %v, MatchString %v", pattern, s, got, want)
		}
	})
}

// reportsLimit reports whether verr names a limit that stopped the evaluation (setFatal's messages).
func reportsLimit(verr *ValidationError) bool {
	if verr == nil {
		return false
	}
	for _, u := range verr.Units {
		for _, m := range []string{" loops: ", "evaluation deeper than", "evaluation took more than"} {
			if strings.Contains(u.Message, m) {
				return true
			}
		}
	}
	return false
}
