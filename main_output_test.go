// main_output_test.go: every command writes its output file into directories it creates (cli.MakeParent).

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputParents: eval --output, watch --out, report --html and the
// server's --report each create the missing directories of their file.
func TestOutputParents(t *testing.T) {
	root := t.TempDir()
	state := filepath.Join(root, "state")
	tests := []struct {
		name string
		args []string
		in   string
		file string
	}{
		{"eval --output", []string{"eval", "--trace", "testdata/cli/refund.json", "--assertions", "testdata/cli/assertions.json", "--output", "$F"}, "", "a/b/report.txt"},
		{"watch --out", []string{"watch", "--suite", driftSuite, "--in", driftTraces, "--deterministic", "--state-dir", state, "--out", "$F"}, "", "c/d/results.ndjson"},
		{"report --html", []string{"report", "--state-dir", state, "--html", "$F"}, "", "e/f/history.html"},
		{"server --report", []string{"--report", "$F"}, initLine + "\n", "g/h/session.json"},
	}
	for _, tc := range tests {
		file := filepath.Join(root, tc.file)
		args := make([]string, len(tc.args))
		for i, a := range tc.args {
			args[i] = strings.ReplaceAll(a, "$F", file)
		}
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(tc.in), &out, &errb)
		if fi, err := os.Stat(file); err != nil || fi.Size() == 0 {
			t.Errorf("%s: exit %d, %v: the file is not written (%s)", tc.name, code, err, errb.String())
		}
	}
}
