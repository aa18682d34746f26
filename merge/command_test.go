// command_test.go: the merge command's arguments, output and exit status.

package merge

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"attest-engine/history"
)

// stateDir records n passing results of one assertion in a new state dir.
func stateDir(t *testing.T, dir string, n int) {
	t.Helper()
	s, err := history.Open(dir, history.Options{Sync: history.SyncNever, NoAlertFile: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		r, err := history.ParseLine(fmt.Sprintf("t%06d", i), "a", "schema", "pass", 1, "", uint64(i+1), "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddAll([]history.Result{r}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestRun(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "a")
	stateDir(t, a, 10)
	tests := []struct {
		name   string
		args   []string
		status int
		out    string
	}{
		{"merged", []string{filepath.Join(root, "d"), a}, 0, "merged 1 state dirs into " + filepath.Join(root, "d") + "\n"},
		{"no source", []string{filepath.Join(root, "d")}, 2, ""},
		{"unknown flag", []string{"--bogus"}, 2, ""},
		{"help", []string{"-h"}, 0, ""},
		{"missing source", []string{filepath.Join(root, "e"), filepath.Join(root, "missing")}, 1, ""},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		if got := Run(context.Background(), tc.args, nil, &out, &errb); got != tc.status || out.String() != tc.out {
			t.Errorf("%s: Run(%q) = %d, %q (stderr %q), want %d, %q", tc.name, tc.args, got, out.String(), errb.String(), tc.status, tc.out)
		}
	}
}
