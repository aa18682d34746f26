//go:build unix

// owner_unix.go: a file's links, the directory's owner and mode, and its lock.

package safedir

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// links is a file's number of hard links (1 when unknown).
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// Private checks that the directory is owned by this process's user (or
// root) and writable by no one else, as ssh checks its key files: anyone
// else who can write it can plant files (links, pipes, forged segments)
// for the writer to trust.
func (d *Dir) Private() error {
	fi, err := d.f.Stat()
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := int(st.Uid); uid != os.Geteuid() && uid != 0 {
		return fmt.Errorf("%s %w: it is owned by uid %d, not by this user (uid %d) or root", d.path, ErrNotPrivate, uid, os.Geteuid())
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%s %w: others can write it (mode %04o); chmod go-w %s", d.path, ErrNotPrivate, perm, d.path)
	}
	return nil
}

// Lock takes an exclusive advisory lock (flock) on the directory itself,
// held until Close or the process ends (SIGKILL included). A second Lock,
// from any process, fails with ErrLocked. Nothing inside the directory
// takes part: unlinking or replacing a file there does not release it.
func (d *Dir) Lock() error {
	if err := syscall.Flock(int(d.f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if err == syscall.EWOULDBLOCK {
			return fmt.Errorf("%s %w", d.path, ErrLocked)
		}
		return &fs.PathError{Op: "flock", Path: d.path, Err: err}
	}
	return nil
}
