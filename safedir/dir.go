// dir.go: the Dir type, its names, and what every platform shares: Create, WriteFile, RemoveTemps.

package safedir

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"attest-engine/atomicfile"
)

// Errors a Dir's methods wrap, for errors.Is.
var (
	// ErrLink: the name is a symbolic link (or has more than one hard
	// link, for a write).
	ErrLink = errors.New("is a link: refused, never followed")
	// ErrNotRegular: the name is a named pipe, a device, a directory...
	ErrNotRegular = errors.New("is not a regular file")
	// ErrLocked: another process holds the directory's lock.
	ErrLocked = errors.New("is locked by another process")
	// ErrNotPrivate: the directory is writable by others or owned by
	// another user (Private).
	ErrNotPrivate = errors.New("is not private to this user")
)

// Dir is an open directory. Its methods are safe for concurrent use.
type Dir struct {
	path string
	f    *os.File // the directory itself: its descriptor, for the *at calls, Sync and Lock
	sys           // the platform's part
}

// Path is the path the directory was opened by (for messages).
func (d *Dir) Path() string { return d.path }

// Join is the path of name in the directory, for messages: every call
// goes through the directory's descriptor, never through this path.
func (d *Dir) Join(name string) string { return filepath.Join(d.path, name) }

// Open opens the directory at path (it must exist). Links in path itself
// are followed: the caller named it.
func Open(path string) (*Dir, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.IsDir() {
		err = &fs.PathError{Op: "open", Path: path, Err: errors.New("not a directory")}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	d := &Dir{path: path, f: f}
	if err := d.sys.init(d); err != nil {
		f.Close()
		return nil, err
	}
	return d, nil
}

// Close releases the directory (and its lock).
func (d *Dir) Close() error {
	d.sys.close()
	return d.f.Close()
}

// Sync makes the directory's entries durable (a new file, a rename).
func (d *Dir) Sync() error { return d.f.Sync() }

// checkName refuses a name that is not a plain entry of the directory.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") || (os.PathSeparator != '/' && strings.ContainsRune(name, os.PathSeparator)) {
		return fmt.Errorf("safedir: %q is not a plain file name", name)
	}
	return nil
}

// writes says whether open flags ask for write access.
func writes(flag int) bool { return flag&(os.O_WRONLY|os.O_RDWR) != 0 }

// Open opens name for reading.
func (d *Dir) Open(name string) (*os.File, error) { return d.OpenFile(name, os.O_RDONLY, 0) }

// Create creates name, which must not exist (O_EXCL: a link planted there
// is an error, never followed), for reading and writing.
func (d *Dir) Create(name string, perm fs.FileMode) (*os.File, error) {
	return d.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
}

// OpenFile opens name with flag (os.O_*) and perm as os.OpenFile does,
// except that a link, a file that is not regular, or (for a write) a file
// with more than one link is refused with an error wrapping ErrLink or
// ErrNotRegular, before anything is truncated.
func (d *Dir) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	f, err := d.sys.openFile(d, name, flag&^os.O_TRUNC, perm)
	if err != nil {
		return nil, err
	}
	if err := checkOpened(d, name, f, flag); err != nil {
		f.Close()
		return nil, err
	}
	if flag&os.O_TRUNC != 0 && writes(flag) {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// checkOpened checks the file just opened: regular, and one link when it
// is to be written.
func checkOpened(d *Dir, name string, f *os.File, flag int) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &fs.PathError{Op: "open", Path: d.Join(name), Err: ErrNotRegular}
	}
	if writes(flag) {
		if n := links(fi); n > 1 {
			return &fs.PathError{Op: "open", Path: d.Join(name), Err: fmt.Errorf("%w (%d hard links)", ErrLink, n)}
		}
	}
	return nil
}

// Lstat describes name itself (a link is described, not followed).
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	return d.sys.lstat(d, name)
}

// Remove removes name (a link itself, never its target).
func (d *Dir) Remove(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	return d.sys.remove(d, name)
}

// Rename renames oldname to newname within the directory, replacing
// newname (a link there is replaced, not followed).
func (d *Dir) Rename(oldname, newname string) error {
	if err := checkName(oldname); err != nil {
		return err
	}
	if err := checkName(newname); err != nil {
		return err
	}
	return d.sys.rename(d, oldname, newname)
}

// Names lists the directory's entries, in no particular order.
func (d *Dir) Names() ([]string, error) { return d.sys.names(d) }

// tempSeq and the time make WriteFile's temporary names; a name taken (a
// crash left it, or another writer's) is skipped, as os.CreateTemp does.
var tempSeq atomic.Uint64

func tempName(name string) string {
	n := uint64(time.Now().UnixNano())*31 + tempSeq.Add(1)
	return "." + name + ".tmp" + strconv.FormatUint(n%1e12, 10)
}

// WriteFile replaces name with what write writes, whole or not at all, as
// atomicfile.Write does (perm set exactly, flushed as sync says), through a
// temporary file created in the directory with O_EXCL and renamed over
// name. On any error name is left as it was and the temporary file removed.
func (d *Dir) WriteFile(name string, perm fs.FileMode, sync atomicfile.Sync, write func(w io.Writer) error) error {
	if err := checkName(name); err != nil {
		return err
	}
	var tmp *os.File
	var tname string
	for range 1000 {
		tname = tempName(name)
		f, err := d.Create(tname, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		tmp = f
		break
	}
	if tmp == nil {
		return fmt.Errorf("safedir: no free temporary name for %s", d.Join(name))
	}
	renamed := false
	defer func() {
		if !renamed { // a failure, or a panic in write
			tmp.Close()
			d.Remove(tname)
		}
	}()
	bw := bufio.NewWriterSize(tmp, 64<<10)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if sync != atomicfile.NoSync {
		if err := tmp.Sync(); err != nil {
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := d.Rename(tname, name); err != nil {
		return err
	}
	renamed = true
	if sync == atomicfile.SyncAll {
		return d.Sync()
	}
	return nil
}

// RemoveTemps removes the temporary files that WriteFile (or
// atomicfile.Write) of name left when killed before its rename. The caller
// must know that no write of name is in flight (it holds Lock).
func (d *Dir) RemoveTemps(name string) error {
	names, err := d.Names()
	if err != nil {
		return err
	}
	for _, n := range names {
		if target, ok := atomicfile.TempTarget(n); !ok || target != name {
			continue
		}
		if err := d.Remove(n); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
