// sink.go: Writer, the bounded queue of log lines, and the goroutine that copies it to stderr.

package logsink

import (
	"io"
	"strconv"
	"sync"
	"time"
)

// Limit is how many bytes of log lines may wait for stderr.
const Limit = 1 << 20

// Writer queues whole log lines for an underlying writer; Write never
// blocks on it. It is safe for concurrent use; each Write should carry
// whole lines (log/slog's handlers write one line per call).
type Writer struct {
	out   io.Writer
	limit int

	mu      sync.Mutex
	idle    sync.Cond // broadcast when busy turns false (and by Flush's timer)
	pending []byte    // whole lines waiting, at most limit bytes
	dropped int64     // lines dropped since the last notice
	total   int64     // lines dropped since New
	busy    bool      // lines are pending or being written
	started bool      // the writing goroutine runs (from the first line on)
	wake    chan struct{}

	spare []byte // the writing goroutine's: the buffer it last wrote, reused
}

// New returns a Writer copying to out. Its goroutine starts with the first
// line (a process that logs nothing starts none) and lives as long as the
// process (the engine makes one Writer).
func New(out io.Writer) *Writer { return newWriter(out, Limit) }

func newWriter(out io.Writer, limit int) *Writer {
	w := &Writer{out: out, limit: limit, wake: make(chan struct{}, 1)}
	w.idle.L = &w.mu
	return w
}

// Write queues p, or drops it when the queue has no room for it. It never
// fails and never waits for the underlying writer.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(w.pending) + len(p)
	if n > w.limit {
		w.dropped++
		w.total++
		w.wakeLocked() // even an idle writer reports the drop
		return len(p), nil
	}
	if n > cap(w.pending) {
		// Grow by doubling, but never past the limit.
		grown := make([]byte, len(w.pending), min(max(2*cap(w.pending), n, 4096), w.limit))
		copy(grown, w.pending)
		w.pending = grown
	}
	w.pending = append(w.pending, p...)
	w.wakeLocked()
	return len(p), nil
}

// wakeLocked starts the writing goroutine if it is idle; w.mu is held.
func (w *Writer) wakeLocked() {
	if !w.busy {
		w.busy = true
		if !w.started {
			w.started = true
			go w.run()
		}
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// Dropped is the number of lines dropped since New.
func (w *Writer) Dropped() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.total
}

// Flush waits until every queued line has been written, or for d at most
// (stderr may never be read); it reports whether everything was written.
func (w *Writer) Flush(d time.Duration) bool {
	deadline := time.Now().Add(d)
	t := time.AfterFunc(d, func() {
		w.mu.Lock()
		w.idle.Broadcast()
		w.mu.Unlock()
	})
	defer t.Stop()
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.busy {
		if !time.Now().Before(deadline) {
			return false
		}
		w.idle.Wait()
	}
	return true
}

// run copies the queue to the underlying writer, a whole queue per write.
func (w *Writer) run() {
	for range w.wake {
		for {
			w.mu.Lock()
			if len(w.pending) == 0 && w.dropped == 0 {
				w.busy = false
				w.idle.Broadcast()
				w.mu.Unlock()
				break
			}
			buf := w.pending
			w.pending = w.spare[:0]
			if w.dropped > 0 {
				// Lines are dropped only while the queue is full, so the
				// notice lands right after the lines that filled it.
				buf = appendNotice(buf, w.dropped, time.Now())
				w.dropped = 0
			}
			w.mu.Unlock()
			// The only call that may block on stderr; an error (stderr
			// closed) loses these lines, which nobody could read anyway.
			_, _ = w.out.Write(buf)
			w.spare = buf[:0]
			if cap(w.spare) > w.limit {
				w.spare = nil // grown by a notice: keep the bound
			}
		}
	}
}

// appendNotice appends the spec §1.3 log line that reports n dropped lines.
func appendNotice(b []byte, n int64, now time.Time) []byte {
	b = append(b, `{"level":"warn","ts":"`...)
	b = now.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
	b = append(b, `","logger":"engine","msg":"log lines dropped: stderr was not read fast enough","dropped":`...)
	b = strconv.AppendInt(b, n, 10)
	return append(b, "}\n"...)
}
