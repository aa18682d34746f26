// follow.go: the input file, and with --follow a reader that waits at its end for more.

package watch

import (
	"context"
	"io"
	"os"
	"time"
)

func (c *command) openIn(stop context.Context, stdin io.Reader) (io.Reader, func(), error) {
	if c.o.in == "-" {
		return stdin, func() {}, nil
	}
	f, err := os.Open(c.o.in)
	if err != nil {
		return nil, nil, err
	}
	if c.o.follow {
		return &follower{f: f, stop: stop}, func() { f.Close() }, nil
	}
	return f, func() { f.Close() }, nil
}

// follower reads a growing file: at its end it polls until more is
// written or the command stops.
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
		select {
		case <-r.stop.Done():
			return 0, io.EOF
		case <-time.After(followPoll):
		}
	}
}
