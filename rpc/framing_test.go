// framing_test.go: the line writer combines queued answers but keeps their callers waiting.

package rpc

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
)

// gatedWriter blocks every Write until released, and records what it got.
type gatedWriter struct {
	gate   chan struct{}
	mu     sync.Mutex
	writes [][]byte
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	<-g.gate
	g.mu.Lock()
	g.writes = append(g.writes, bytes.Clone(p))
	g.mu.Unlock()
	return len(p), nil
}

// TestLineWriterBackPressure: while one answer is being written, answers that
// queue behind it go out together in the next single write, and their
// callers do not return before that (an SDK that stops reading must stop the
// engine, not let answers pile up in memory).
func TestLineWriterBackPressure(t *testing.T) {
	g := &gatedWriter{gate: make(chan struct{})}
	lw := &lineWriter{w: g}
	first := make(chan error)
	go func() { first <- lw.write([]byte("a\n")) }()
	waitFor(t, lw, func() bool { return lw.writing })

	queued := make(chan error, 2)
	for _, l := range []string{"b\n", "c\n"} {
		go func() { queued <- lw.write([]byte(l)) }()
	}
	waitFor(t, lw, func() bool { return len(lw.pending) == 4 })
	select {
	case <-queued:
		t.Fatal("a queued caller returned before its line was written")
	default:
	}
	close(g.gate) // the reader reads again
	for _, c := range []chan error{first, queued, queued} {
		if err := <-c; err != nil {
			t.Fatal(err)
		}
	}
	got := string(bytes.Join(g.writes, []byte("|")))
	if got != "a\n|b\nc\n" && got != "a\n|c\nb\n" {
		t.Errorf("writes %q: want the first line alone, then the queued two in one write", got)
	}
}

func waitFor(t *testing.T, lw *lineWriter, cond func() bool) {
	t.Helper()
	for {
		lw.mu.Lock()
		ok := cond()
		lw.mu.Unlock()
		if ok {
			return
		}
		runtime.Gosched()
	}
}
