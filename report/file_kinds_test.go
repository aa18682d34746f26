//go:build linux

// file_kinds_test.go: a report written where a device, a FIFO, a symlink or a directory stands: written through or refused, never replaced.

package report

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fileWriters are the three ways a report file is written.
var fileWriters = []struct {
	name  string
	write func(path string) error
	want  string // what the written bytes start with
}{
	{"writeFile", func(path string) error { return writeFile(path, passingTraces(3)) }, `{"format_version":1`},
	{"WriteHistoryFile", func(path string) error {
		return WriteHistoryFile(path, []HistoryKey{{Name: "k", Bins: make([]int, 10)}}, time.Time{})
	}, "<!DOCTYPE html>"},
	{"Spool.WriteFile", func(path string) error {
		sp := NewSpool(ScratchDir(path), SpoolMemory)
		defer sp.Close()
		for _, tr := range passingTraces(3) {
			for _, r := range tr.Results {
				sp.Add(r)
			}
		}
		_, err := sp.WriteFile(path)
		return err
	}, `{"format_version":1`},
}

// MknodNull makes a character device like /dev/null (1, 3) at path, or
// skips the test: mknod needs root (CAP_MKNOD).
func mknodNull(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("cannot make a character device (mknod needs root, CAP_MKNOD): %v", err)
	}
}

func mkfifoAt(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
}

// kindOf is what path names, not following a symlink.
func kindOf(t *testing.T, path string) (os.FileMode, uint64) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return fi.Mode().Type(), fi.Sys().(*syscall.Stat_t).Ino
}

// TestWriteFileKinds: a report written where a character device, a FIFO, a
// symlink or a directory stands, by each writer. The device takes the bytes
// and stays a device (a rename would have replaced it, /dev/null for the
// whole machine, with a regular file); the FIFO's reader gets the whole
// report and it stays a FIFO; a symlink is followed to its target, which
// holds the report (written in place, as "> link" would), and stays a link;
// a dangling one gets its target created; a directory is an error and is
// left as it was.
func TestWriteFileKinds(t *testing.T) {
	for _, w := range fileWriters {
		ext := ".json"
		if w.name == "WriteHistoryFile" {
			ext = ".html"
		}
		t.Run(w.name+"/char device", func(t *testing.T) {
			dev := filepath.Join(t.TempDir(), "null"+ext)
			mknodNull(t, dev)
			_, ino := kindOf(t, dev)
			if err := w.write(dev); err != nil {
				t.Fatalf("writing to a character device: %v", err)
			}
			if typ, after := kindOf(t, dev); typ != os.ModeDevice|os.ModeCharDevice || after != ino {
				t.Errorf("the device was replaced: now %v (inode %d, was %d)", typ, after, ino)
			}
			if entries, _ := os.ReadDir(filepath.Dir(dev)); len(entries) != 1 {
				t.Errorf("the directory holds %d entries, want the device alone", len(entries))
			}
		})
		t.Run(w.name+"/FIFO", func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "pipe"+ext)
			mkfifoAt(t, fifo)
			got := make(chan string, 1)
			go func() {
				f, err := os.Open(fifo)
				if err != nil {
					got <- err.Error()
					return
				}
				defer f.Close()
				b, _ := io.ReadAll(f)
				got <- string(b)
			}()
			done := make(chan error, 1)
			go func() { done <- w.write(fifo) }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("writing to a FIFO: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("writing to a FIFO with a reader did not end in 10 s")
			}
			if typ, _ := kindOf(t, fifo); typ != os.ModeNamedPipe {
				t.Fatalf("the FIFO was replaced: now %v", typ)
			}
			select {
			case s := <-got:
				if !strings.HasPrefix(s, w.want) {
					t.Errorf("the FIFO's reader got %.60q, want the report", s)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the FIFO's reader got nothing in 10 s")
			}
		})
		t.Run(w.name+"/symlink", func(t *testing.T) {
			dir := t.TempDir()
			target, link := filepath.Join(dir, "target"+ext), filepath.Join(dir, "link"+ext)
			if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			_, ino := kindOf(t, target)
			if err := w.write(link); err != nil {
				t.Fatal(err)
			}
			if typ, _ := kindOf(t, link); typ != os.ModeSymlink {
				t.Errorf("the link was replaced: now %v", typ)
			}
			b, _ := os.ReadFile(target)
			if _, after := kindOf(t, target); !strings.HasPrefix(string(b), w.want) || after != ino {
				t.Errorf("the target holds %.60q (inode %d, was %d): want the report, written in place", b, after, ino)
			}
		})
		t.Run(w.name+"/dangling symlink", func(t *testing.T) {
			dir := t.TempDir()
			target, link := filepath.Join(dir, "target"+ext), filepath.Join(dir, "link"+ext)
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			if err := w.write(link); err != nil {
				t.Fatal(err)
			}
			if typ, _ := kindOf(t, link); typ != os.ModeSymlink {
				t.Errorf("the link was replaced: now %v", typ)
			}
			if b, _ := os.ReadFile(target); !strings.HasPrefix(string(b), w.want) {
				t.Errorf("the target holds %.60q, want the report", b)
			}
		})
		t.Run(w.name+"/directory", func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "dir"+ext)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			err := w.write(dir)
			if err == nil || !strings.Contains(err.Error(), "is a directory") {
				t.Errorf("writing over a directory: %v, want an error saying it is a directory", err)
			}
			if typ, _ := kindOf(t, dir); typ != os.ModeDir {
				t.Errorf("the directory was replaced: now %v", typ)
			}
		})
	}
}

// TestScratchDir: a spool's scratch files go beside a report that is
// renamed into place, elsewhere for one written through.
func TestScratchDir(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "r.json")
	os.WriteFile(regular, nil, 0o644)
	for path, want := range map[string]string{
		regular:                        dir,
		filepath.Join(dir, "new.json"): dir,
		"/dev/stdout":                  os.TempDir(),
		"/dev/null":                    os.TempDir(),
	} {
		if got := ScratchDir(path); got != want {
			t.Errorf("ScratchDir(%s) = %s, want %s", path, got, want)
		}
	}
}
