//go:build linux

// info_linux.go: file information from a stat buffer (Lstat through an O_PATH descriptor).

package safedir

import (
	"io/fs"
	"syscall"
	"time"
)

// info is an fs.FileInfo from a stat buffer.
type info struct {
	name string
	st   syscall.Stat_t
}

func newInfo(name string, st *syscall.Stat_t) *info { return &info{name: name, st: *st} }

func (i *info) Name() string       { return i.name }
func (i *info) Size() int64        { return i.st.Size }
func (i *info) ModTime() time.Time { return time.Unix(int64(i.st.Mtim.Sec), int64(i.st.Mtim.Nsec)) }
func (i *info) IsDir() bool        { return i.Mode().IsDir() }
func (i *info) Sys() any           { return &i.st }

func (i *info) Mode() fs.FileMode {
	m := fs.FileMode(i.st.Mode & 0o777)
	switch i.st.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	}
	if i.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if i.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if i.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
