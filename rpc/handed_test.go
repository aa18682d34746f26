// handed_test.go: the line writer under every kind of caller at once: held, waiting and handed answers against a slow and a failing stdout.

package rpc

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// jitterWriter records whole writes, sleeping now and then (a slow
// reader), and fails every write from the failAt-th on (0: never).
type jitterWriter struct {
	mu     sync.Mutex
	n      int
	failAt int
	b      strings.Builder
}

func (w *jitterWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.n++
	n := w.n
	w.mu.Unlock()
	if n%7 == 0 {
		time.Sleep(50 * time.Microsecond)
	}
	if w.failAt > 0 && n >= w.failAt {
		// Slow to fail, so that answers queue behind the failing write.
		time.Sleep(2 * time.Millisecond)
		return 0, errors.New("write |1: broken pipe")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	return len(p), nil
}

// TestLineWriterMixedCallers: writers that wait (held or not) and groups
// that hand their answers on, all at once against a slow stdout, and one
// that breaks: every caller returns, every line is written once and whole,
// and every handed slot is freed exactly once, whether written or not.
func TestLineWriterMixedCallers(t *testing.T) {
	for _, failAt := range []int{0, 1, 30} {
		w := &jitterWriter{failAt: failAt}
		var inFlight, freed atomic.Int64
		lw := &lineWriter{w: w, inFlight: func() int { return int(inFlight.Load()) }, freed: func(n int) { freed.Add(int64(n)) }, holdFor: 100 * time.Microsecond}
		const callers, each = 8, 200
		var handed, lines atomic.Int64
		var wg sync.WaitGroup
		for c := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					line := fmt.Sprintf("c%d-%d\n", c, i)
					lines.Add(1)
					switch i % 3 {
					case 0:
						lw.write([]byte(line), false)
					case 1:
						inFlight.Add(1)
						lw.write([]byte(line), true)
						inFlight.Add(-1)
					default:
						// A group of two answers and a notification.
						handed.Add(3)
						lines.Add(1)
						lw.hand([]byte(line+fmt.Sprintf("c%d-%db\n", c, i)), 3)
					}
				}
			}()
		}
		finished := make(chan struct{})
		go func() { wg.Wait(); close(finished) }()
		select {
		case <-finished:
		case <-time.After(watchdog):
			t.Fatalf("fail at %d: callers still waiting on the writer", failAt)
		}
		waitFor(t, lw, func() bool { return !lw.writing })
		if freed.Load() != handed.Load() {
			t.Errorf("fail at %d: %d handed slots freed, want %d", failAt, freed.Load(), handed.Load())
		}
		w.mu.Lock()
		got := w.b.String()
		w.mu.Unlock()
		seen := map[string]int{}
		for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if l != "" {
				seen[l]++
			}
		}
		for l, n := range seen {
			if n != 1 {
				t.Errorf("fail at %d: line %q written %d times", failAt, l, n)
			}
		}
		if want := int(lines.Load()); failAt == 0 && len(seen) != want {
			t.Errorf("%d lines written, want %d", len(seen), want)
		}
	}
}
