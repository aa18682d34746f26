//go:build unix

// dir_test.go: links, pipes and hard links planted in a directory are refused, never followed; the directory's lock and its owner and mode checks.

package safedir

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"attest-engine/atomicfile"
)

// outside is a file outside the directory that no call may change.
const outsideText = "outside the dir\n"

func setup(t *testing.T) (*Dir, string, string) {
	t.Helper()
	base := t.TempDir()
	dirPath := filepath.Join(base, "dir")
	if err := os.Mkdir(dirPath, 0o700); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(base, "outside")
	if err := os.WriteFile(outside, []byte(outsideText), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Open(dirPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, dirPath, outside
}

func checkOutside(t *testing.T, outside string) {
	t.Helper()
	b, err := os.ReadFile(outside)
	if err != nil || string(b) != outsideText {
		t.Fatalf("the file outside the dir changed: %q, %v", b, err)
	}
}

// TestPlanted plants a symbolic link (to a file outside the dir, and to
// one inside), a hard link, a named pipe and a directory at a name, and
// opens that name every way: each is refused with the right error, and
// neither target changes. A watchdog fails the test if an open waits (a
// pipe's reader would wait for a writer).
func TestPlanted(t *testing.T) {
	plants := []struct {
		name, why string
		plant     func(t *testing.T, dirPath, outside, name string)
		want      error // for reads; writes of a hard link want ErrLink too
		readOK    bool  // a hard link may be read
	}{
		{"symlink out", "a link to a file outside the dir", func(t *testing.T, dirPath, outside, name string) {
			must(t, os.Symlink(outside, filepath.Join(dirPath, name)))
		}, ErrLink, false},
		{"symlink in", "a link to another file of the dir", func(t *testing.T, dirPath, outside, name string) {
			must(t, os.WriteFile(filepath.Join(dirPath, "other"), []byte(outsideText), 0o644))
			must(t, os.Symlink("other", filepath.Join(dirPath, name)))
		}, ErrLink, false},
		{"dangling symlink", "a link to a name that does not exist yet (O_CREATE would create it)", func(t *testing.T, dirPath, outside, name string) {
			must(t, os.Symlink(filepath.Join(filepath.Dir(outside), "created"), filepath.Join(dirPath, name)))
		}, ErrLink, false},
		{"hard link", "a second name of a file outside the dir", func(t *testing.T, dirPath, outside, name string) {
			must(t, os.Link(outside, filepath.Join(dirPath, name)))
		}, ErrLink, true},
		{"fifo", "a named pipe: opening it to read would wait for a writer", func(t *testing.T, dirPath, outside, name string) {
			must(t, syscall.Mkfifo(filepath.Join(dirPath, name), 0o644))
		}, ErrNotRegular, false},
		{"directory", "a directory", func(t *testing.T, dirPath, outside, name string) {
			must(t, os.Mkdir(filepath.Join(dirPath, name), 0o755))
		}, ErrNotRegular, false},
	}
	opens := []struct {
		name  string
		write bool
		open  func(d *Dir, name string) error
	}{
		{"Open", false, func(d *Dir, name string) error { return closed(d.Open(name)) }},
		{"OpenFile append", true, func(d *Dir, name string) error {
			return closed(d.OpenFile(name, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644))
		}},
		{"OpenFile trunc", true, func(d *Dir, name string) error {
			return closed(d.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644))
		}},
		{"Create", true, func(d *Dir, name string) error { return closed(d.Create(name, 0o644)) }},
	}
	for _, p := range plants {
		for _, o := range opens {
			t.Run(p.name+"/"+o.name, func(t *testing.T) {
				d, dirPath, outside := setup(t)
				p.plant(t, dirPath, outside, "f")
				done := make(chan error, 1)
				go func() { done <- o.open(d, "f") }()
				var err error
				select {
				case err = <-done:
				case <-time.After(10 * time.Second):
					t.Fatalf("%s of %s (%s) did not return in 10 s", o.name, p.name, p.why)
				}
				switch {
				case o.name == "Create":
					if !errors.Is(err, fs.ErrExist) {
						t.Errorf("Create over %s: %v, want an error wrapping fs.ErrExist", p.why, err)
					}
				case p.readOK && !o.write:
					if err != nil {
						t.Errorf("reading %s: %v, want it read", p.why, err)
					}
				case !errors.Is(err, p.want):
					t.Errorf("%s of %s: %v, want an error wrapping %v", o.name, p.why, err, p.want)
				}
				checkOutside(t, outside)
				if _, err := os.Lstat(filepath.Join(filepath.Dir(outside), "created")); err == nil {
					t.Errorf("%s of %s created the link's target", o.name, p.why)
				}
				if b, err := os.ReadFile(filepath.Join(dirPath, "other")); err == nil && string(b) != outsideText {
					t.Errorf("%s of %s changed the file of the dir it points to: %q", o.name, p.why, b)
				}
			})
		}
	}
}

func closed(f *os.File, err error) error {
	if f != nil {
		f.Close()
	}
	return err
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestWriteFile: WriteFile over a link replaces the link, never writes
// its target; a failed write leaves the file and no temporary file.
func TestWriteFile(t *testing.T) {
	d, dirPath, outside := setup(t)
	must(t, os.Symlink(outside, filepath.Join(dirPath, "f")))
	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	must(t, d.WriteFile("f", 0o600, atomicfile.SyncAll, write("new\n")))
	checkOutside(t, outside)
	fi, err := os.Lstat(filepath.Join(dirPath, "f"))
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Fatalf("after WriteFile: %v, %v; want a regular file 0600", fi, err)
	}
	boom := errors.New("boom")
	if err := d.WriteFile("f", 0o600, atomicfile.NoSync, func(w io.Writer) error { w.Write([]byte("half")); return boom }); !errors.Is(err, boom) {
		t.Fatalf("a failed write: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dirPath, "f")); string(b) != "new\n" {
		t.Errorf("after a failed write the file holds %q", b)
	}
	names, _ := d.Names()
	if len(names) != 1 {
		t.Errorf("the dir holds %q, want only f", names)
	}
}

// TestRemoveTemps: temporary files (links among them) are removed, links
// themselves, never their targets; other names stay.
func TestRemoveTemps(t *testing.T) {
	d, dirPath, outside := setup(t)
	must(t, os.Symlink(outside, filepath.Join(dirPath, ".f.tmp123")))
	must(t, os.WriteFile(filepath.Join(dirPath, ".f.tmp9"), nil, 0o600))
	must(t, os.WriteFile(filepath.Join(dirPath, ".g.tmp9"), nil, 0o600))
	must(t, d.RemoveTemps("f"))
	checkOutside(t, outside)
	names, _ := d.Names()
	if strings.Join(names, ",") != ".g.tmp9" {
		t.Errorf("after RemoveTemps the dir holds %q, want .g.tmp9", names)
	}
}

// TestNames: names with a separator or dot-dot are refused.
func TestNames(t *testing.T) {
	d, _, _ := setup(t)
	for _, name := range []string{"", ".", "..", "../outside", "a/b", "a\x00"} {
		if _, err := d.Open(name); err == nil || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%q): %v, want a refusal of the name", name, err)
		}
	}
}

// TestSwappedPath: once opened, the directory is the one used even when
// its path is renamed and replaced by a link elsewhere.
func TestSwappedPath(t *testing.T) {
	d, dirPath, outside := setup(t)
	moved := dirPath + ".moved"
	must(t, os.Rename(dirPath, moved))
	must(t, os.Symlink(filepath.Dir(outside), dirPath))
	f, err := d.Create("new", 0o644)
	must(t, err)
	f.Close()
	if _, err := os.Stat(filepath.Join(moved, "new")); err != nil {
		t.Errorf("the file was not created in the directory opened: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(filepath.Dir(outside), "new")); err == nil {
		t.Error("the file was created where the path now points")
	}
}

// TestLock: a second Lock of the directory fails, from another
// descriptor, even after a file named LOCK inside it is unlinked; Close
// releases it.
func TestLock(t *testing.T) {
	d, dirPath, _ := setup(t)
	must(t, d.Lock())
	os.Remove(filepath.Join(dirPath, "LOCK"))
	d2, err := Open(dirPath)
	must(t, err)
	defer d2.Close()
	if err := d2.Lock(); !errors.Is(err, ErrLocked) {
		t.Fatalf("a second Lock: %v, want ErrLocked", err)
	}
	d.Close()
	if err := d2.Lock(); err != nil {
		t.Fatalf("Lock after the first was closed: %v", err)
	}
}

// TestPrivate: a directory others can write, or another user owns, is
// refused; a 0700 and a 0755 one owned by this user are not.
func TestPrivate(t *testing.T) {
	cases := []struct {
		mode  fs.FileMode
		owner int // -1: this user
		want  error
	}{
		{0o700, -1, nil},
		{0o755, -1, nil},
		{0o775, -1, ErrNotPrivate},
		{0o777, -1, ErrNotPrivate},
		{0o1777, -1, ErrNotPrivate},
		{0o700, 4242, ErrNotPrivate},
	}
	for _, c := range cases {
		dirPath := t.TempDir()
		must(t, os.Chmod(dirPath, c.mode))
		if c.owner >= 0 {
			if os.Geteuid() != 0 {
				t.Logf("owner %d: not root, cannot chown: skipped", c.owner)
				continue
			}
			must(t, os.Chown(dirPath, c.owner, c.owner))
		}
		d, err := Open(dirPath)
		must(t, err)
		err = d.Private()
		d.Close()
		if (c.want == nil) != (err == nil) || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("mode %v owner %d: %v, want %v", c.mode, c.owner, err, c.want)
		}
	}
}
