// follow.go: the input file, opened so that a signal ends a wait on a FIFO (cli.OpenFile, as the result file); with --follow a reader that waits at the input's end for more.

package watch

import (
	"context"
	"io"
	"os"
	"time"

	"attest-engine/cli"
)

// openIn opens the input; the file is nil for stdin.
func (c *command) openIn(stop context.Context, stdin io.Reader) (io.Reader, *os.File, func(), error) {
	if c.o.in == "-" {
		return stdin, nil, func() {}, nil
	}
	f, err := cli.OpenFile(stop, c.o.in, os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, nil, err
	}
	if c.o.follow {
		return &follower{f: f, stop: stop}, f, func() { f.Close() }, nil
	}
	return f, f, func() { f.Close() }, nil
}

// follower reads a growing file: at its end it polls until more is
// written or the command stops. A file truncated in place (copytruncate
// rotation) is read again from its start, as tail -F does; a file renamed
// away is still read through the handle opened.
type follower struct {
	f    *os.File
	stop context.Context
}

const followPoll = 200 * time.Millisecond

func (r *follower) Read(p []byte) (int, error) {
	for {
		n, err := r.f.Read(p)
		if n > 0 || err != io.EOF {
			return n, err
		}
		if r.truncated() {
			if _, err := r.f.Seek(0, io.SeekStart); err != nil {
				return 0, err
			}
			continue
		}
		select {
		case <-r.stop.Done():
			return 0, io.EOF
		case <-time.After(followPoll):
		}
	}
}

// truncated: the file is now shorter than the offset read to.
func (r *follower) truncated() bool {
	off, err := r.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return false
	}
	fi, err := r.f.Stat()
	return err == nil && fi.Size() < off
}
