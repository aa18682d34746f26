//go:build !linux

// open_other.go: where there is no openat in package syscall: files opened through os.Root, a link refused by Lstat and os.SameFile.

package safedir

import (
	"fmt"
	"io/fs"
	"os"
)

type sys struct{ root *os.Root }

func (s *sys) init(d *Dir) error {
	r, err := os.OpenRoot(d.path)
	if err != nil {
		return err
	}
	s.root = r
	return nil
}

func (s *sys) close() { s.root.Close() }

// openFile refuses a link by Lstat, opens through the root (which keeps
// the open inside the directory), and checks that the file opened is the
// one Lstat described: a link swapped in between is refused too.
func (s *sys) openFile(d *Dir, name string, flag int, perm fs.FileMode) (*os.File, error) {
	before, err := s.root.Lstat(name)
	switch {
	case err == nil && before.Mode()&fs.ModeSymlink != 0:
		return nil, &fs.PathError{Op: "open", Path: d.Join(name), Err: ErrLink}
	case err == nil && !before.Mode().IsRegular():
		return nil, &fs.PathError{Op: "open", Path: d.Join(name), Err: ErrNotRegular}
	case err != nil && flag&os.O_CREATE == 0:
		return nil, err
	case err != nil:
		flag |= os.O_EXCL // it did not exist: never follow what appears meanwhile
		before = nil
	}
	f, err := s.root.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	if before != nil {
		after, err := f.Stat()
		if err != nil || !os.SameFile(before, after) {
			f.Close()
			return nil, &fs.PathError{Op: "open", Path: d.Join(name), Err: fmt.Errorf("%w (replaced while opened)", ErrLink)}
		}
	}
	return f, nil
}

func (s *sys) lstat(d *Dir, name string) (fs.FileInfo, error) { return s.root.Lstat(name) }
func (s *sys) remove(d *Dir, name string) error               { return s.root.Remove(name) }
func (s *sys) rename(d *Dir, oldname, newname string) error   { return s.root.Rename(oldname, newname) }

func (s *sys) names(d *Dir) ([]string, error) {
	f, err := s.root.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}
