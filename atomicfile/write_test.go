// write_test.go: Write replaces a file whole or leaves it as it was, with no temporary file left, at the permissions asked.

package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWrite(t *testing.T) {
	long := strings.Repeat("a line of a long file\n", 10_000) // several buffers
	tests := []struct {
		name, reason string
		old          string // "" : no file before
		perm         fs.FileMode
		write        func(io.Writer) error
		want         string // the file's contents afterwards
		wantErr      bool
	}{
		{"replaces", "a whole write replaces the old file", "old\n", 0o600, writeString("new\n"), "new\n", false},
		{"creates", "a write creates a missing file", "", 0o644, writeString("new\n"), "new\n", false},
		{"empty", "an empty write leaves an empty file", "old\n", 0o600, writeString(""), "", false},
		{"larger than the buffer", "every piece of a long write reaches the file", "old\n", 0o644, func(w io.Writer) error {
			for line := range strings.Lines(long) {
				if _, err := io.WriteString(w, line); err != nil {
					return err
				}
			}
			return nil
		}, long, false},
		{"fails midway", "a write that fails leaves the old file as it was", "old\n", 0o644, func(w io.Writer) error {
			io.WriteString(w, long)
			return errors.New("disk full")
		}, "old\n", true},
		{"fails on a new file", "a failed write creates nothing", "", 0o644, func(w io.Writer) error {
			io.WriteString(w, "half")
			return errors.New("disk full")
		}, "", true},
	}
	for _, tc := range tests {
		for _, sync := range []Sync{NoSync, SyncData, SyncAll} {
			t.Run(fmt.Sprintf("%s/sync=%d", tc.name, sync), func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "file.json")
				if tc.old != "" {
					if err := os.WriteFile(path, []byte(tc.old), 0o640); err != nil {
						t.Fatal(err)
					}
				}
				err := Write(path, tc.perm, sync, tc.write)
				if (err != nil) != tc.wantErr {
					t.Fatalf("sync %d: %s: err %v, want an error %v", sync, tc.reason, err, tc.wantErr)
				}
				want := []string{"file.json"}
				if tc.old == "" && tc.wantErr {
					want = nil
				}
				if d := cmp.Diff(want, names(t, dir)); d != "" {
					t.Errorf("sync %d: %s: the directory holds (-want +got):\n%s", sync, tc.reason, d)
				}
				if want == nil {
					return
				}
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != tc.want {
					t.Errorf("sync %d: %s: the file holds %.40q (%d bytes), want %.40q (%d bytes)", sync, tc.reason, got, len(got), tc.want, len(tc.want))
				}
				wantPerm := tc.perm
				if tc.wantErr {
					wantPerm = 0o640 // the old file's, untouched
				}
				if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != wantPerm {
					t.Errorf("sync %d: permissions %v (%v), want %v", sync, fi.Mode().Perm(), err, wantPerm)
				}
			})
		}
	}
}

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// names lists dir's entries, sorted.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	slices.Sort(out)
	return out
}

// TestWritePanics: a write function that panics leaves the old file and
// no temporary file (the caller may recover and go on).
func TestWritePanics(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "file")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() { recover() }()
		Write(path, 0o600, SyncAll, func(w io.Writer) error {
			io.WriteString(w, "half")
			panic("boom")
		})
	}()
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("file holds %q after a panicking write, want the old %q", got, "old")
	}
	if d := cmp.Diff([]string{"file"}, names(t, dir)); d != "" {
		t.Errorf("the directory holds (-want +got):\n%s", d)
	}
}

// TestWriteFailures: a write that cannot start, or whose rename fails,
// is an error and leaves nothing behind.
func TestWriteFailures(t *testing.T) {
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "missing", "file"), 0o600, SyncAll, writeString("x")); err == nil {
		t.Error("no error for a file in a missing directory")
	}
	// A directory in the way: the rename fails after the content is written.
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(dir, "sub"), 0o600, NoSync, writeString("x")); err == nil {
		t.Error("no error for a rename over a directory that is not empty")
	}
	if d := cmp.Diff([]string{"sub"}, names(t, dir)); d != "" {
		t.Errorf("the directory holds (-want +got):\n%s", d)
	}
}

// TestRemoveTemps: only the temporary files of the one path go.
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"summaries.json", ".summaries.json.tmp123", ".summaries.json.tmp9", ".other.json.tmp1", "summaries.json.tmp5", "x",
		".summaries.json.tmp.tmp7", ".summaries.json.tmp"} { // a temporary file of summaries.json.tmp; not one of Write's names
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemoveTemps(filepath.Join(dir, "summaries.json")); err != nil {
		t.Fatal(err)
	}
	want := []string{".other.json.tmp1", ".summaries.json.tmp", ".summaries.json.tmp.tmp7", "summaries.json", "summaries.json.tmp5", "x"}
	if d := cmp.Diff(want, names(t, dir)); d != "" {
		t.Errorf("after RemoveTemps the directory holds (-want +got):\n%s", d)
	}
}

// TestTempTarget: Write's temporary file names, and only they, give the
// name of the file they were to replace.
func TestTempTarget(t *testing.T) {
	tests := []struct {
		name, target string
		ok           bool
	}{
		{".summaries.json.tmp123", "summaries.json", true},
		{".r.tmp.tmp1", "r.tmp", true},
		{".a.tmp0", "a", true},
		{".summaries.json.tmp", "", false}, // no random digits
		{"summaries.json.tmp5", "", false}, // not hidden
		{".summaries.json.tmpx1", "", false},
		{"..tmp1", "", false}, // no target
		{".tmp-789", "", false},
		{".", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		target, ok := TempTarget(tt.name)
		if target != tt.target || ok != tt.ok {
			t.Errorf("TempTarget(%q) = %q, %v; want %q, %v", tt.name, target, ok, tt.target, tt.ok)
		}
	}
}

// TestRemoveStaleTemps: only the temporary files of the one path unchanged
// for longer than the age go; a recent one may be a write in flight.
func TestRemoveStaleTemps(t *testing.T) {
	old := time.Now().Add(-2 * time.Hour)
	tests := []struct {
		name  string
		mod   time.Time
		stays bool
	}{
		{".report.html.tmp123", old, false},
		{".report.html.tmp456", time.Now(), true},
		{"report.html", old, true},
		{".other.html.tmp1", old, true},
		{".report.html.tmp.tmp9", old, true}, // report.html.tmp's
	}
	dir := t.TempDir()
	var want []string
	for _, tt := range tests {
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, []byte("<html"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, tt.mod, tt.mod); err != nil {
			t.Fatal(err)
		}
		if tt.stays {
			want = append(want, tt.name)
		}
	}
	if err := RemoveStaleTemps(filepath.Join(dir, "report.html"), time.Hour); err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	if d := cmp.Diff(want, names(t, dir)); d != "" {
		t.Errorf("after RemoveStaleTemps the directory holds (-want +got):\n%s", d)
	}
}

// BenchmarkWrite: a 6,000-byte file (a cached vector of 1,536 dimensions) and a
// 1,024,000-byte one, written in 100-byte pieces, per policy.
func BenchmarkWrite(b *testing.B) {
	piece := []byte(strings.Repeat("x", 99) + "\n")
	for _, pieces := range []int{60, 10 << 10} {
		for _, sync := range []Sync{NoSync, SyncData, SyncAll} {
			b.Run(fmt.Sprintf("%dB/%s", pieces*len(piece), []string{"none", "data", "all"}[sync]), func(b *testing.B) {
				path := filepath.Join(b.TempDir(), "file")
				b.SetBytes(int64(pieces * len(piece)))
				for b.Loop() {
					err := Write(path, 0o600, sync, func(w io.Writer) error {
						for range pieces {
							if _, err := w.Write(piece); err != nil {
								return err
							}
						}
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
