//go:build unix

// fileid_unix.go: a file's device and inode, and the flag that opens a state-dir file without following a link.

package watch

import (
	"io/fs"
	"syscall"
)

const noFollow = syscall.O_NOFOLLOW

func fileID(fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}
