//go:build unix

// planted_test.go: links planted at each file a state dir holds are refused, never followed; a dir others can write is refused; a second writer stays out when LOCK is unlinked.

package history

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"attest-engine/safedir"
)

const outsideText = "a file outside the state dir\n"

// plantedDir is a state dir written by a first store (10 results, closed)
// unless fresh, and a file outside it.
func plantedDir(t *testing.T, fresh bool) (dir, outside string) {
	t.Helper()
	base := t.TempDir()
	dir = filepath.Join(base, "state")
	outside = filepath.Join(base, "outside")
	if err := os.WriteFile(outside, []byte(outsideText), 0o644); err != nil {
		t.Fatal(err)
	}
	if fresh {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir, outside
	}
	writeN(t, dir, Options{NoAlertFile: true}, 0, 10)
	return dir, outside
}

func outsideUnchanged(t *testing.T, outside string) {
	t.Helper()
	want := outsideText
	if strings.HasSuffix(outside, "empty") {
		want = ""
	}
	b, err := os.ReadFile(outside)
	if err != nil || string(b) != want {
		t.Fatalf("the file outside the state dir changed: %d bytes %q…, %v", len(b), b[:min(len(b), 40)], err)
	}
}

// TestPlantedLinks plants a symbolic link to a file outside the dir (and,
// where it makes a difference, a hard link) at each name a state dir
// holds, then opens the dir and records past a roll. The outside file
// never changes, and each link is refused with an error naming it, or left
// alone where the name is not used (LOCK), or removed (a temporary file).
func TestPlantedLinks(t *testing.T) {
	opts := Options{SegmentBytes: 2 << 10, MaxBytes: -1} // rolls every ~20 results
	tests := []struct {
		name  string
		fresh bool   // plant in an empty dir, before the first Open
		file  string // the name planted
		hard  bool   // a hard link, not a symbolic one
		// wantOpen: the error Open gives ("" none); wantAdd: the error
		// recording 100 results gives.
		wantOpen, wantAdd string
	}{
		{"summaries.json", false, snapshotFile, false, "summaries.json: " + safedir.ErrLink.Error(), ""},
		{"summaries.json, new dir", true, snapshotFile, false, "summaries.json: " + safedir.ErrLink.Error(), ""},
		{"alerts.ndjson", false, alertFile, false, "alerts.ndjson: " + safedir.ErrLink.Error(), ""},
		{"alerts.ndjson, hard link", false, alertFile, true, "alerts.ndjson: " + safedir.ErrLink.Error() + " (2 hard links)", ""},
		{"the active segment", false, segName(1), false, "0000000000000001.log: " + safedir.ErrLink.Error(), ""},
		{"the active segment, hard link", false, segName(1), true, "0000000000000001.log is not a history log segment", ""},
		{"the first segment, new dir", true, segName(1), false, "0000000000000001.log: " + safedir.ErrLink.Error(), ""},
		{"the first segment, new dir, empty target", true, segName(1), false, "0000000000000001.log: " + safedir.ErrLink.Error(), ""},
		{"the next segment", false, segName(2), false, "", "0000000000000002.log: file exists"}, // planted after Open
		{"LOCK", false, "LOCK", false, "", ""},
		{"LOCK, new dir", true, "LOCK", false, "", ""},
		{"a summaries temporary file", false, "." + snapshotFile + ".tmp123", false, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, outside := plantedDir(t, tc.fresh)
			if strings.HasSuffix(tc.name, "empty target") {
				// an empty file: a writer that follows the link writes the
				// segment's header and every record into it
				outside += "-empty"
				if err := os.WriteFile(outside, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			link := filepath.Join(dir, tc.file)
			os.Remove(link)
			plant := func() {
				p := os.Symlink
				if tc.hard {
					p = os.Link
				}
				if err := p(outside, link); err != nil {
					t.Fatal(err)
				}
			}
			next := tc.file == segName(2) // planted while the writer runs: its roll meets it
			if !next {
				plant()
			}
			s, err := Open(dir, opts)
			if next && err == nil {
				plant()
			}
			if tc.wantOpen != "" {
				if err == nil {
					s.Close()
				}
				if err == nil || !strings.Contains(err.Error(), tc.wantOpen) {
					t.Fatalf("Open: %v, want an error with %q", err, tc.wantOpen)
				}
				outsideUnchanged(t, outside)
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			var addErr error
			for i := range 100 {
				if _, addErr = s.Add(crashResult(100 + i)); addErr != nil {
					break
				}
			}
			s.Close()
			if tc.wantAdd == "" && addErr != nil || tc.wantAdd != "" && (addErr == nil || !strings.Contains(addErr.Error(), tc.wantAdd)) {
				t.Errorf("recording: %v, want %q", addErr, tc.wantAdd)
			}
			outsideUnchanged(t, outside)
			if strings.Contains(tc.file, ".tmp") {
				if _, err := os.Lstat(link); !os.IsNotExist(err) {
					t.Errorf("the temporary file's link is still there: %v", err)
				}
			}
		})
	}
}

// TestPlantedLinksReaders: report (OpenReadOnly), merge (a source) and
// Scan refuse a link planted as the summaries or a segment, and read
// nothing through it.
func TestPlantedLinksReaders(t *testing.T) {
	readers := []struct {
		name string
		read func(dir string) error
	}{
		{"OpenReadOnly", func(dir string) error { _, err := OpenReadOnly(dir); return err }},
		{"Merge", func(dir string) error { return Merge(filepath.Join(filepath.Dir(dir), "merged"), dir) }},
		{"Scan", func(dir string) error { return Scan(dir, func(Result) error { return nil }) }},
	}
	for _, file := range []string{snapshotFile, segName(1)} {
		for _, r := range readers {
			t.Run(file+"/"+r.name, func(t *testing.T) {
				dir, outside := plantedDir(t, false)
				link := filepath.Join(dir, file)
				os.Remove(link)
				if err := os.Symlink(outside, link); err != nil {
					t.Fatal(err)
				}
				err := r.read(dir)
				if r.name == "Scan" && file == snapshotFile {
					if err != nil {
						t.Errorf("Scan reads no summaries: %v", err)
					}
					return
				}
				if !errors.Is(err, safedir.ErrLink) {
					t.Errorf("%v, want an error wrapping %v", err, safedir.ErrLink)
				}
				outsideUnchanged(t, outside)
			})
		}
	}
}

// TestStateDirNotPrivate: a writer refuses a state dir that others can
// write (any of the group or other write bits, sticky or not) or that
// another user owns (tested as root only), naming the fix; readers
// (report, merge sources) read it.
func TestStateDirNotPrivate(t *testing.T) {
	tests := []struct {
		name  string
		mode  os.FileMode
		owner int
		want  string
	}{
		{"0777", 0o777, -1, "others can write it (mode 0777); chmod go-w"},
		{"0775", 0o775, -1, "others can write it (mode 0775)"},
		{"1777", 0o777 | os.ModeSticky, -1, "others can write it"},
		{"another owner", 0o755, 4242, "owned by uid 4242"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := plantedDir(t, false)
			if tc.owner >= 0 {
				if os.Geteuid() != 0 {
					t.Skip("chown needs root")
				}
				if err := os.Chown(dir, tc.owner, tc.owner); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(dir, tc.mode); err != nil {
				t.Fatal(err)
			}
			s, err := Open(dir, Options{NoAlertFile: true})
			if err == nil {
				s.Close()
			}
			if !errors.Is(err, safedir.ErrNotPrivate) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open: %v, want %q", err, tc.want)
			}
			if err := Merge(dir, plantedDirOnly(t)); !errors.Is(err, safedir.ErrNotPrivate) {
				t.Errorf("Merge into it: %v, want a refusal", err)
			}
			if _, err := OpenReadOnly(dir); err != nil {
				t.Errorf("OpenReadOnly: %v, want it read", err)
			}
		})
	}
}

func plantedDirOnly(t *testing.T) string {
	dir, _ := plantedDir(t, false)
	return dir
}

// TestLockUnlinked: a second writer stays out while the first holds the
// dir, though LOCK (the lock file of earlier versions) is unlinked or
// replaced: the lock is on the directory itself. Two writers of one dir
// overwrite each other's frames.
func TestLockUnlinked(t *testing.T) {
	dir, _ := plantedDir(t, false)
	s, err := Open(dir, Options{NoAlertFile: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	os.Remove(filepath.Join(dir, "LOCK"))
	if err := os.WriteFile(filepath.Join(dir, "LOCK"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir, Options{NoAlertFile: true})
	if err == nil {
		s2.Close()
		t.Fatal("a second writer opened the dir after LOCK was unlinked")
	}
	if !strings.Contains(err.Error(), "in use by another process") {
		t.Errorf("second Open: %v, want in use", err)
	}
}
