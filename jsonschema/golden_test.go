// golden_test.go checks error output (units, Summary, compile errors) against golden files under
// testdata/jsonschema; run with -update to rewrite them, then review the diff like code.

package jsonschema

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

const (
	casesFile  = "../testdata/jsonschema/error_cases.json"
	goldenFile = "../testdata/jsonschema/error_output.golden.json"
)

// errorCase is one input of the golden table: every case carries why it is there.
type errorCase struct {
	Name         string          `json:"name"`
	Reason       string          `json:"reason"`
	AssertFormat bool            `json:"assertFormat,omitempty"`
	Schema       json.RawMessage `json:"schema"`
	Instance     json.RawMessage `json:"instance,omitempty"`
}

// errorOutput is what the golden file records for a case.
type errorOutput struct {
	Name         string `json:"name"`
	CompileError string `json:"compileError,omitempty"`
	Valid        bool   `json:"valid"`
	Summary      string `json:"summary,omitempty"`
	Error        string `json:"error,omitempty"`
	Units        []Unit `json:"units,omitempty"`
}

func loadErrorCases(t testing.TB) []errorCase {
	t.Helper()
	var cases []errorCase
	readJSONFile(t, casesFile, &cases)
	return cases
}

func runErrorCase(t testing.TB, c errorCase) errorOutput {
	out := errorOutput{Name: c.Name}
	s, err := Compile(decodeJSON(t, c.Schema), &Options{AssertFormat: c.AssertFormat})
	if err != nil {
		out.CompileError = err.Error()
		return out
	}
	inst := decodeJSON(t, c.Instance)
	verr := s.Validate(inst)
	out.Valid = verr == nil
	if s.Valid(inst) != out.Valid {
		t.Errorf("%s: Valid and Validate disagree", c.Name)
	}
	if verr != nil {
		out.Summary = verr.Summary()
		out.Error = verr.Error()
		out.Units = verr.Units
	}
	return out
}

func TestGoldenErrors(t *testing.T) {
	cases := loadErrorCases(t)
	var got []errorOutput
	for _, c := range cases {
		if c.Reason == "" {
			t.Errorf("case %q has no reason", c.Name)
		}
		got = append(got, runErrorCase(t, c))
	}
	if *update {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(got); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.FromSlash(goldenFile), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	var want []errorOutput
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("error output differs from %s (-want +got):\n%s", goldenFile, diff)
	}
}
