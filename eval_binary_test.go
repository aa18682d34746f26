// eval_binary_test.go: the one-shot eval mode through the real binary: dispatch, formats, exit codes.

package main

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestBinaryEval(t *testing.T) {
	bin := buildEngine(t)
	out := filepath.Join(t.TempDir(), "report.xml")
	page := filepath.Join(t.TempDir(), "report.html")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string // a piece of stdout
	}{
		{"all pass is exit 0", []string{"eval", "--trace", "testdata/cli/refund.json", "--assertions", "testdata/cli/assertions.json"}, 0, "\nPASS\n"},
		{"a hard_fail is exit 1", []string{"eval", "--trace", "testdata/cli/traces.ndjson", "--assertions", "testdata/cli/assertions.json"}, 1, "\nFAIL\n"},
		{"junit to a file", []string{"eval", "--trace", "testdata/cli/traces.ndjson", "--assertions", "testdata/cli/assertions.json", "--format", "junit", "--output", out}, 1, ""},
		{"html to a file", []string{"eval", "--trace", "testdata/cli/traces.ndjson", "--assertions", "testdata/cli/assertions.json", "--format", "html", "--deterministic", "--output", page}, 1, ""},
		{"bad input is exit 2", []string{"eval", "--trace", "testdata/cli/nope.ndjson", "--assertions", "testdata/cli/assertions.json"}, 2, ""},
		{"bad flag is exit 2", []string{"eval", "--format", "yaml"}, 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d (stderr %s)", code, tc.wantCode, stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.wantOut) {
				t.Errorf("stdout %q does not contain %q", stdout.String(), tc.wantOut)
			}
		})
	}
	html, err := os.ReadFile(page)
	if err != nil || !strings.HasPrefix(string(html), "<!DOCTYPE html>\n") || !strings.HasSuffix(string(html), "</html>\n") {
		t.Errorf("--format html --output: not one whole page (%v)", err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		XMLName xml.Name `xml:"testsuites"`
		Suites  []struct {
			Tests int `xml:"tests,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &suites); err != nil || len(suites.Suites) == 0 {
		t.Errorf("junit report is not a testsuites document with suites: %v\n%s", err, data)
	}
}
