//go:build unix

// fifo_test.go: a run that is not a regular file is refused before it is opened.

package rundiff

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDiffRefusesAFIFO: a FIFO (or a pipe, as bash's <(…) gives) is refused with exit 2 at once: diff
// reads a run twice to name its unpaired results, and opening a FIFO a second time waited for a writer
// for good (the first read found the writer; the watchdog is 10 s).
func TestDiffRefusesAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "base.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan int, 1)
	var errb bytes.Buffer
	go func() {
		var out bytes.Buffer
		done <- Run(context.Background(), []string{"--base", fifo, "--head", filepath.Join(dir, "head.jsonl")}, nil, &out, &errb)
	}()
	select {
	case code := <-done:
		if code != 2 || !strings.Contains(errb.String(), "not a regular file") {
			t.Errorf("exit %d, stderr %q; want 2 and \"not a regular file\"", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("diff of a FIFO with no writer did not end within 10 s")
	}
}
