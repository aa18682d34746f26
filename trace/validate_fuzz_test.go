// validate_fuzz_test.go: FuzzValidate, seeded from the golden inputs.

package trace

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzValidate decodes any input and validates it in both modes: Validate
// never panics, every error carries a message and a detail, the outcome does
// not depend on map order nor on Options.SourceBytes, and encodedSize agrees
// with encoding/json.
func FuzzValidate(f *testing.F) {
	addGoldenInputs(f)
	f.Add([]byte(`{"schema_version":1,"trace_id":"t","output":{"a":1},"steps":[{"type":"agent_call","name":"a","sub_trace":{}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(data)
		if v == nil && err != nil {
			return
		}
		for _, strict := range []bool{false, true} {
			w1, e1 := Validate(v, Options{Strict: strict})
			w2, e2 := Validate(v, Options{Strict: strict})
			if e1 != nil && (e1.Message == "" || e1.Detail == "") {
				t.Fatalf("error without message or detail: %+v", e1)
			}
			if !reflect.DeepEqual(w1, w2) || !reflect.DeepEqual(e1, e2) {
				t.Fatalf("Validate is not deterministic: %v %v, then %v %v", w1, e1, w2, e2)
			}
			w3, e3 := Validate(v, Options{Strict: strict, SourceBytes: len(data)})
			if !reflect.DeepEqual(w1, w3) || !reflect.DeepEqual(e1, e3) {
				t.Fatalf("Validate with SourceBytes %d: %v %v; without: %v %v", len(data), w3, e3, w1, e1)
			}
		}
		if got, want := encodedSize(v, math.MaxInt), jsonSize(t, v); got != want {
			t.Fatalf("encodedSize = %d, encoding/json writes %d bytes", got, want)
		}
		// Options.SourceBytes rests on this: re-encoding at most doubles a text.
		if n := encodedSize(v, math.MaxInt); n > 2*len(data) {
			t.Fatalf("encodedSize %d is more than twice the %d-byte source", n, len(data))
		}
	})
}

// TestSourceBytesBound: the bound Options.SourceBytes relies on, at its
// worst case (U+2028 and U+2029, 3 bytes raw and 6 encoded).
func TestSourceBytesBound(t *testing.T) {
	for _, src := range []string{
		"\"\u2028\u2029\u2028\"",
		`{"a":"` + "\u2029" + `"}`,
		`"\u0041\n\/"`,
	} {
		v, err := Decode([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if n := encodedSize(v, math.MaxInt); n > 2*len(src) {
			t.Errorf("%q: encoded %d bytes from %d", src, n, len(src))
		}
	}
}

// addGoldenInputs seeds a fuzz target with the validation golden inputs.
func addGoldenInputs(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}
