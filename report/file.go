// file.go: writing a report file: renamed whole over a regular file or nothing, written through anything else as a shell's redirection.

package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"attest-engine/atomicfile"
)

// writeReportFile writes a report file (WriteFile, WriteHistoryFile,
// Spool.WriteFile) in one of two ways, chosen by what path names when it
// starts (os.Lstat, which does not follow a symlink):
//
//	nothing, or a regular file    written to a temporary file beside it and
//	                              renamed over it (package atomicfile): the
//	                              report appears whole or not at all,
//	                              readable by all (0644)
//	anything else                 opened for writing, created and truncated
//	                              as a shell's "> path" does, and written
//	                              through: a device (/dev/null) takes the
//	                              bytes, a FIFO gets them once a reader opens
//	                              it (the open waits for one, as a shell's
//	                              does), and a symlink (/dev/stdout is one)
//	                              is followed to its target, created if
//	                              missing, by the kernel: the permissions and
//	                              fs.protected_symlinks that guard a shell's
//	                              redirection guard this write too
//
// So a rename never replaces anything but a regular file: not /dev/null
// (which a rename, run as root, would turn into a regular file for the
// whole machine), not a FIFO, not a symlink, which stays a link. A
// directory is an error. Written through, a report is not atomic: a write
// that fails midway leaves the target holding what was written, as a
// redirection would.
func writeReportFile(path string, write func(io.Writer) error) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist), err == nil && fi.Mode().IsRegular():
		// The temporary files that writers of path killed in a write left
		// beside it (a server SIGKILLed while it writes its --report at
		// shutdown) are removed first, once unchanged for staleTemp:
		// another process may be writing path meanwhile. Not synced: a
		// report is an artefact a rerun writes again, and a power loss
		// that empties one loses nothing the engine reads back.
		_ = atomicfile.RemoveStaleTemps(path, staleTemp) // best effort: the write says what matters
		return atomicfile.Write(path, 0o644, atomicfile.NoSync, write)
	case err != nil:
		return err
	case fi.IsDir():
		return &os.PathError{Op: "write report", Path: path, Err: errors.New("is a directory")}
	}
	return writeThrough(path, write)
}

// writeThrough opens path as a shell's "> path" does (following a symlink,
// creating a missing target with 0644 less the umask) and writes the report
// through a buffer.
func writeThrough(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing through %s: %w", path, err)
	}
	return nil
}

// staleTemp is the age past which a report's temporary file is a leftover.
const staleTemp = time.Hour

// ScratchDir is where a Spool for a report at path keeps its scratch
// files: the report's own directory when the report will be renamed into
// it (path names nothing yet, or a regular file), else the system's
// temporary directory, so that a report to /dev/stdout, a device or a
// FIFO puts no scratch file in /dev or beside the pipe.
func ScratchDir(path string) string {
	if fi, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) || err == nil && fi.Mode().IsRegular() {
		return filepath.Dir(path)
	}
	return os.TempDir()
}
