// fuzz_test.go holds the fuzz targets: compiling and validating arbitrary JSON must never panic or hang.
package jsonschema

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func decodeFuzz(data []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

func addGoldenSeeds(f *testing.F, withInstance bool) {
	for _, c := range loadErrorCases(f) {
		inst := []byte(c.Instance)
		if len(inst) == 0 {
			inst = []byte("null")
		}
		if withInstance {
			f.Add([]byte(c.Schema), inst)
		} else {
			f.Add([]byte(c.Schema))
		}
	}
}

// FuzzCompile: any JSON document either compiles or yields a CompileError, never a recovered panic.
func FuzzCompile(f *testing.F) {
	addGoldenSeeds(f, false)
	f.Fuzz(func(t *testing.T, data []byte) {
		schema, ok := decodeFuzz(data)
		if !ok {
			return
		}
		_, err := Compile(schema, nil)
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("Compile panicked: %v", err)
		}
	})
}

// FuzzValidate: for any schema that compiles and any instance, Valid and Validate agree and neither
// panics.
func FuzzValidate(f *testing.F) {
	addGoldenSeeds(f, true)
	f.Fuzz(func(t *testing.T, schemaData, instData []byte) {
		schema, ok := decodeFuzz(schemaData)
		if !ok {
			return
		}
		inst, ok := decodeFuzz(instData)
		if !ok {
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
		if s.Valid(inst) != (verr == nil) {
			t.Fatalf("Valid and Validate disagree: %v", verr)
		}
	})
}
