// file_test.go: WriteFile and WriteHistoryFile replace a file whole or not at all.

package report

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWriteFileAtomic(t *testing.T) {
	tests := []struct {
		name, reason string
		write        func(io.Writer) error
		want         string // the file's contents afterwards
		wantErr      bool
	}{
		{"written", "a whole write replaces the old file", func(w io.Writer) error {
			_, err := io.WriteString(w, "new report\n")
			return err
		}, "new report\n", false},
		{"larger than the buffer", "every piece of a long report reaches the file", func(w io.Writer) error {
			for range 10_000 {
				if _, err := io.WriteString(w, "a trace of the report\n"); err != nil {
					return err
				}
			}
			return nil
		}, strings.Repeat("a trace of the report\n", 10_000), false},
		{"failed midway", "a write that fails leaves the old file as it was", func(w io.Writer) error {
			io.WriteString(w, "half a rep")
			return errors.New("disk full")
		}, "old report\n", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "report.json")
			if err := os.WriteFile(path, []byte("old report\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			err := writeReportFile(path, tc.write)
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s: err %v, want error %v", tc.reason, err, tc.wantErr)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("%s: file holds %q, want %q", tc.reason, got, tc.want)
			}
			// A report is readable by all (0644, whatever the old file had);
			// a failed write leaves the old file's permissions.
			wantPerm := os.FileMode(0o644)
			if tc.wantErr {
				wantPerm = 0o600
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != wantPerm {
				t.Errorf("%s: permissions %v (%v), want %v", tc.reason, fi.Mode().Perm(), err, wantPerm)
			}
			// No temporary file is left beside it, either way.
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("%s: the directory holds %q, want only report.json", tc.reason, names)
			}
		})
	}
}

// TestWriteFileMissingDir: a report path in a directory that does not exist
// is an error, and nothing is created.
func TestWriteFileMissingDir(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nope", "report.html")
	if err := writeFile(path, nil); err == nil {
		t.Fatal("no error for a report in a missing directory")
	}
	if err := WriteHistoryFile(path, nil, time.Time{}); err == nil {
		t.Fatal("no error for a history page in a missing directory")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the parent directory holds %d entries, want none", len(entries))
	}
}

// TestWriteFileRemovesStaleTemps: the temporary files that writers killed
// in a write left beside the report go at the next write once stale; a
// recent one may be another process's write in flight and stays. (Every
// SIGKILL of a server writing its --report at shutdown used to leave one
// for good.)
func TestWriteFileRemovesStaleTemps(t *testing.T) {
	tests := []struct {
		name  string
		write func(path string) error
	}{
		{"writeFile", func(path string) error { return writeFile(path, nil) }},
		{"WriteHistoryFile", func(path string) error { return WriteHistoryFile(path, nil, time.Time{}) }},
		{"Spool.WriteFile", func(path string) error {
			sp := NewSpool(filepath.Dir(path), SpoolMemory)
			defer sp.Close()
			_, err := sp.WriteFile(path)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "report.html")
			killed, inFlight := filepath.Join(dir, ".report.html.tmp123"), filepath.Join(dir, ".report.html.tmp456")
			for _, p := range []string{killed, inFlight} {
				if err := os.WriteFile(p, []byte("<html>a report cut short"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			old := time.Now().Add(-2 * staleTemp)
			if err := os.Chtimes(killed, old, old); err != nil {
				t.Fatal(err)
			}
			if err := tt.write(path); err != nil {
				t.Fatal(err)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range entries {
				got = append(got, e.Name())
			}
			if want := []string{".report.html.tmp456", "report.html"}; strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("the directory holds %q, want %q", got, want)
			}
		})
	}
}

// BenchmarkWriteFile: a session's report of 20,000 traces written to a file
// in each streaming format.
func BenchmarkWriteFile(b *testing.B) {
	traces := passingTraces(20_000)
	dir := b.TempDir()
	for _, ext := range []string{"txt", "xml", "json", "html"} {
		b.Run(ext, func(b *testing.B) {
			for b.Loop() {
				if err := writeFile(filepath.Join(dir, "report."+ext), traces); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
