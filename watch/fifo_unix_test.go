//go:build unix

package watch

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFOWaitEnds: a FIFO given as --out with no reader, or as --in with
// no writer, makes the open wait; a signal (the context) still ends the
// command, with an error naming the flag, instead of hanging.
func TestFIFOWaitEnds(t *testing.T) {
	for _, flag := range []string{"--out", "--in"} {
		t.Run(flag, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip("no FIFOs here:", err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			done := make(chan int, 1)
			var out, errb bytes.Buffer
			go func() {
				done <- RunEnv(ctx, []string{"--suite", "../testdata/watch/suite.json", "--deterministic", flag, fifo},
					strings.NewReader(""), &out, &errb, testEnv(nil))
			}()
			select {
			case code := <-done:
				if want := "attest-engine watch: " + flag + ": open " + fifo + ": stopped while waiting"; code != 2 || !strings.Contains(errb.String(), want) {
					t.Errorf("exit %d, stderr %q; want 2 and %q", code, errb.String(), want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("still waiting at the open after the context ended")
			}
		})
	}
}
