// open.go: OpenFile, os.OpenFile that a signal ends while it waits for the other end of a FIFO, for every file a command names.

package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrStopped is OpenFile's error (in an *os.PathError) when ctx ended
// before the file opened.
var ErrStopped = errors.New("stopped while waiting for the other end of the pipe")

// OpenFile is os.OpenFile that gives up when ctx ends: opening a FIFO waits
// for its other end (a writer for an input, a reader for an output), and a
// signal must still end the command. The abandoned open, if it ever
// completes, is closed. Anything but a FIFO is opened at once, ctx ended or
// not, so that an interrupted run still opens its files and closes its
// report, whichever of the open and the signal came first.
func OpenFile(ctx context.Context, path string, flag int, perm os.FileMode) (*os.File, error) {
	if fi, err := os.Stat(path); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		return os.OpenFile(path, flag, perm)
	}
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.OpenFile(path, flag, perm)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		return o.f, o.err
	case <-ctx.Done():
		select {
		case o := <-done: // opened all the same
			return o.f, o.err
		default:
		}
		go func() {
			if o := <-done; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, &os.PathError{Op: "open", Path: path, Err: ErrStopped}
	}
}

// Named names the flag in an open that a signal ended (the commands exit
// with status 2 then); other errors are left as they were.
func Named(flag string, err error) error {
	if errors.Is(err, ErrStopped) {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return err
}

// MakeParent creates the directory an output file (eval --output, watch
// --out, report --html, the server's --report) goes into, with its
// parents, as `go build -o` does: a run that was told where to write does
// not fail for want of a directory. "-" (stdout) and a path in the working
// directory need none.
func MakeParent(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	return os.MkdirAll(filepath.Dir(path), 0o755)
}
