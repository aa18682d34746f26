// suite_test.go runs the official JSON-Schema-Test-Suite (draft2020-12) against the package.

package jsonschema

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// conformanceDir is where the shared conformance material sits beside the repository.
var conformanceDir = filepath.Join("..", "..", "shared", "conformance")

// knownFailuresFile lists optional and format tests that are expected to fail, each with its reason.
const knownFailuresFile = "../testdata/jsonschema/suite_known_failures.json"

type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

type knownFailure struct {
	Test   string `json:"test"`
	Reason string `json:"reason"`
}

// decode decodes a JSON value into the engine's value model (numbers as json.Number).
func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

func decodeJSON(t testing.TB, data []byte) any {
	t.Helper()
	v, err := decode(data)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return v
}

// readJSONFile decodes the JSON file at path into v (with encoding/json's own types).
func readJSONFile(t testing.TB, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func suiteLoader(t testing.TB) (Loader, string) {
	t.Helper()
	suite := filepath.Join(conformanceDir, "JSON-Schema-Test-Suite")
	if _, err := os.Stat(suite); err != nil {
		t.Skipf("conformance suite not found at %s (it lives in /work/shared beside the repository): %v", suite, err)
	}
	return DirLoader(map[string]string{
		"http://localhost:1234/":                 filepath.Join(suite, "remotes"),
		"https://json-schema.org/draft/2020-12/": filepath.Join(conformanceDir, "json-schema-2020-12-metaschemas"),
	}), filepath.Join(suite, "tests", "draft2020-12")
}

// suiteResult counts one set and lists its failing tests by "file: group: test".
type suiteResult struct {
	passed, total int
	failures      []string
}

func runSuiteFiles(t *testing.T, dir, glob string, opts *Options) suiteResult {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, glob))
	if err != nil || len(files) == 0 {
		t.Fatalf("no suite files match %s: %v", glob, err)
	}
	sort.Strings(files)
	var res suiteResult
	for _, file := range files {
		rel, _ := filepath.Rel(dir, file)
		var groups []suiteGroup
		readJSONFile(t, file, &groups)
		for _, g := range groups {
			s, cerr := Compile(decodeJSON(t, g.Schema), opts)
			for _, tc := range g.Tests {
				res.total++
				name := rel + ": " + g.Description + ": " + tc.Description
				if cerr != nil {
					res.failures = append(res.failures, name+" (compile: "+cerr.Error()+")")
					continue
				}
				inst := decodeJSON(t, tc.Data)
				valid := s.Valid(inst)
				verr := s.Validate(inst)
				if valid != (verr == nil) {
					t.Errorf("%s: Valid=%v but Validate=%v", name, valid, verr)
				}
				if valid != tc.Valid {
					res.failures = append(res.failures, name)
					continue
				}
				res.passed++
			}
		}
	}
	if res.total == 0 {
		t.Fatalf("the suite files matching %s hold no test", glob)
	}
	return res
}

func TestSuiteRequired(t *testing.T) {
	loader, dir := suiteLoader(t)
	res := runSuiteFiles(t, dir, "*.json", &Options{Loader: loader})
	t.Logf("required draft2020-12: %d/%d passed", res.passed, res.total)
	for _, f := range res.failures {
		t.Errorf("required test failed: %s", f)
	}
}

func TestSuiteOptional(t *testing.T) {
	loader, dir := suiteLoader(t)
	known := loadKnownFailures(t)
	opt := runSuiteFiles(t, dir, "optional/*.json", &Options{Loader: loader})
	t.Logf("optional draft2020-12: %d/%d passed", opt.passed, opt.total)
	checkKnown(t, "optional", opt, known)
	format := runSuiteFiles(t, dir, "optional/format/*.json", &Options{Loader: loader, AssertFormat: true})
	t.Logf("optional/format draft2020-12 (AssertFormat): %d/%d passed", format.passed, format.total)
	checkKnown(t, "optional/format", format, known)
}

func loadKnownFailures(t *testing.T) map[string]string {
	t.Helper()
	var list []knownFailure
	readJSONFile(t, knownFailuresFile, &list)
	known := map[string]string{}
	for _, k := range list {
		if k.Reason == "" {
			t.Errorf("%s: %q has no reason", knownFailuresFile, k.Test)
		}
		known[k.Test] = k.Reason
	}
	return known
}

// checkKnown fails on a failure not in the list, and on a listed failure of this set that now passes, so
// the list stays exact.
func checkKnown(t *testing.T, set string, res suiteResult, known map[string]string) {
	t.Helper()
	failed := map[string]bool{}
	for _, f := range res.failures {
		failed[f] = true
		if _, ok := known[f]; !ok {
			t.Errorf("%s test failed and is not a known failure: %s", set, f)
		}
	}
	for name := range known {
		inSet := strings.HasPrefix(name, "optional/format/") == (set == "optional/format")
		if inSet && !failed[name] {
			t.Errorf("known failure now passes, remove it from %s: %s", knownFailuresFile, name)
		}
	}
}
