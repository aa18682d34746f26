// signals.go: the server's signal handling, installed once initialize is answered.

package serve

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// onSignal returns a context that ends at the first SIGTERM or SIGINT once
// install has been called (a second signal is caught too: the server keeps
// draining, spec §2.3).
//
// os/signal starts a thread of its own for the first handler and makes a
// round trip to it for each signal: about a tenth of the engine's time to
// its initialize answer (docs/performance.md, "Start-up"). The server calls
// install after that answer, before it handles another line
// (rpc.Options.Initialized): every request that does work starts with the
// handlers in place. A signal that comes earlier ends the process as it
// ends any program without a handler; nothing has been evaluated then.
func onSignal(parent context.Context) (ctx context.Context, install func()) {
	ctx, cancel := context.WithCancel(parent)
	return ctx, func() {
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGTERM, os.Interrupt)
		go func() {
			select {
			case <-c:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
}

// ignoreSIGPIPE makes a write to a closed stdout or stderr fail with EPIPE
// instead of ending the process: the SDKs never read stderr, and an answer
// to a client that has gone must not take the session's report with it
// (os/signal, "SIGPIPE"). Ignoring costs one system call where a handler
// costs a thread; an ignored signal stays ignored in a child process, and
// the server starts none.
func ignoreSIGPIPE() { signal.Ignore(syscall.SIGPIPE) }
