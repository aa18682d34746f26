// write.go: Write (temporary file, buffered writes, flush, rename), RemoveTemps and RemoveStaleTemps.

package atomicfile

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Sync says what Write flushes to stable storage with fsync: what a power
// loss can leave (doc.go). A process crash leaves the old or the new
// content whatever the policy.
type Sync uint8

const (
	// NoSync flushes nothing.
	NoSync Sync = 0
	// SyncData flushes the new content before the rename.
	SyncData Sync = 1
	// SyncAll flushes the new content before the rename and the directory
	// after it.
	SyncAll Sync = 2
)

// bufferSize is Write's buffer: writers that write a line or a trace at a
// time would otherwise make a system call each.
const bufferSize = 64 << 10

// tempSuffix follows the file's name in its temporary files' names.
const tempSuffix = ".tmp"

// tempPrefix is the start of the names of path's temporary files: hidden,
// so that a listing or a glob of the directory (*.html) leaves them out.
func tempPrefix(path string) string { return "." + filepath.Base(path) + tempSuffix }

// Write replaces the file at path with what write writes, with permission
// bits perm (set exactly: the umask does not apply), flushed as sync says.
// On any error, write's included, the file at path is left as it was and
// the temporary file is removed; except that an error syncing the
// directory (SyncAll) comes after the rename: the file is replaced, maybe
// not durably. The directory must exist.
func Write(path string, perm fs.FileMode, sync Sync, write func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, tempPrefix(path)+"*")
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed { // a failure, or a panic in write
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, bufferSize)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := tmp.Chmod(perm); err != nil { // CreateTemp's 0600, less the umask
		return err
	}
	if sync != NoSync {
		if err := tmp.Sync(); err != nil {
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	renamed = true
	if sync == SyncAll {
		return SyncDir(dir)
	}
	return nil
}

// SyncDir makes a change of a directory's entries (a rename, a new file)
// durable: history's new segment files take it too.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// RemoveTemps removes the temporary files that writes to path, killed
// between creating them and renaming them, left beside it: each is as large
// as a version of the file, and every crash would add one. The caller must
// know that no write to path is in flight (it holds a lock on the
// directory): that write's rename would fail.
func RemoveTemps(path string) error { return removeTemps(path, 0) }

// RemoveStaleTemps is RemoveTemps for a path that another process may be
// writing: it removes only the temporary files last modified more than age
// ago. A write in flight modifies its file at least once a buffer
// (bufferSize); one unchanged for age was left by a writer killed in it.
func RemoveStaleTemps(path string, age time.Duration) error { return removeTemps(path, age) }

// TempTarget returns the name of the file that a temporary file of Write
// named name was to replace, and whether name is one (tempPrefix and
// CreateTemp's random digits, nothing else: ".r.tmp.tmp1" is a temporary
// file of r.tmp, not of r). For callers that clear the temporary files of
// a whole directory, as the provider cache does.
func TempTarget(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, ".")
	digits := strings.TrimRight(rest, "0123456789")
	if !ok || len(digits) == len(rest) {
		return "", false
	}
	target, ok := strings.CutSuffix(digits, tempSuffix)
	if !ok || target == "" {
		return "", false
	}
	return target, true
}

// removeTemps removes path's temporary files (TempTarget) unchanged for
// more than age; every one when age is 0.
func removeTemps(path string, age time.Duration) error {
	dir := filepath.Dir(path)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	base := filepath.Base(path)
	now := time.Now()
	for _, e := range ents {
		if target, ok := TempTarget(e.Name()); !ok || target != base {
			continue
		}
		if age > 0 {
			fi, err := e.Info()
			if err != nil || now.Sub(fi.ModTime()) <= age {
				continue // gone meanwhile, or maybe in flight
			}
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
