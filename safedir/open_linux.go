//go:build linux

// open_linux.go: every call relative to the directory's descriptor (openat, unlinkat, renameat).

package safedir

import (
	"io/fs"
	"os"
	"syscall"
)

// oPath is Linux's O_PATH (the same on every architecture Go runs Linux
// on): a descriptor naming a file without opening it, so that fstat on it
// describes a link itself. The syscall package defines it on few of them.
const oPath = 0x200000

type sys struct{}

func (sys) init(*Dir) error { return nil }
func (sys) close()          {}

func dirfd(d *Dir) int { return int(d.f.Fd()) }

// pathError names the file by its path in the directory, and says ErrLink
// for the ELOOP that O_NOFOLLOW gives on a link, ErrNotRegular for a
// directory opened to write and a pipe or socket that cannot be opened.
func pathError(d *Dir, op, name string, err error) error {
	switch err {
	case syscall.ELOOP:
		err = ErrLink
	case syscall.EISDIR, syscall.ENXIO:
		err = ErrNotRegular
	}
	return &fs.PathError{Op: op, Path: d.Join(name), Err: err}
}

func (sys) openFile(d *Dir, name string, flag int, perm fs.FileMode) (*os.File, error) {
	var fd int
	var err error
	for {
		// O_NONBLOCK: the open of a named pipe for reading would wait for a
		// writer; it returns at once and the pipe is then refused.
		fd, err = syscall.Openat(dirfd(d), name, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, uint32(perm.Perm()))
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, pathError(d, "open", name, err)
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, pathError(d, "open", name, err)
	}
	return os.NewFile(uintptr(fd), d.Join(name)), nil
}

func (sys) lstat(d *Dir, name string) (fs.FileInfo, error) {
	fd, err := syscall.Openat(dirfd(d), name, oPath|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, pathError(d, "lstat", name, err)
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, pathError(d, "lstat", name, err)
	}
	return newInfo(name, &st), nil
}

func (sys) remove(d *Dir, name string) error {
	if err := syscall.Unlinkat(dirfd(d), name); err != nil {
		return pathError(d, "remove", name, err)
	}
	return nil
}

func (sys) rename(d *Dir, oldname, newname string) error {
	fd := dirfd(d)
	if err := syscall.Renameat(fd, oldname, fd, newname); err != nil {
		return &os.LinkError{Op: "rename", Old: d.Join(oldname), New: d.Join(newname), Err: err}
	}
	return nil
}

func (sys) names(d *Dir) ([]string, error) {
	fd, err := syscall.Openat(dirfd(d), ".", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: d.path, Err: err}
	}
	f := os.NewFile(uintptr(fd), d.path)
	defer f.Close()
	return f.Readdirnames(-1)
}
