// budget.go: a bound on the bytes one stage of the pipeline holds: a weighted semaphore that lets one oversized item through alone.

package watch

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"sync"

	"attest-engine/ingest"
	"attest-engine/trace"
)

// The byte bounds of the pipeline's stages past the input (README
// "Memory"): the items read and not yet taken by the source, and the traces
// between the source and the end of their evaluation.
const (
	inflightBytes = 8 << 20
	poolBytes     = 16 << 20
)

// softLimit is the Go runtime's soft memory limit (GOMEMLIMIT) watch runs
// under with the default bounds: what the bounds let it hold is about half
// of it at worst, so the collector runs before the heap doubles, and the
// process stays within its budget of 128 MiB of peak RSS (watch_budget_test.go).
const softLimit = 100 << 20

// memoryLimit is softLimit grown by what raised bounds add: a line and a
// body for a --max-line past its default, and --max-open-bytes past its.
func (o options) memoryLimit() int64 {
	return softLimit + 2*max(0, int64(o.maxLine-trace.MaxLineBytes)) + max(0, int64(o.limits.Bytes-ingest.DefaultBytes))
}

// itemCost is what an input item holds until the source takes it: its
// spans (Span.Size), or an Attest trace (traceCost).
func itemCost(it ingest.Item) int64 {
	if it.Trace != nil {
		return traceCost(*it.Trace)
	}
	n := int64(0)
	for _, sp := range it.Spans {
		n += int64(sp.Size)
	}
	return n
}

// traceCost is what a trace holds until its evaluation ends, estimated: an
// Attest trace its line and the line's tape (~3× the line); a trace
// assembled from spans the spans, then the Attest trace they map to and its
// encoded text and tape, which take about as much again; an unreadable
// line only its error.
func traceCost(t ingest.Trace) int64 {
	switch {
	case t.Err != nil:
		return 512
	case t.Format == ingest.FormatOTLP:
		return 2 * int64(t.Size)
	}
	return 3 * int64(t.Size)
}

// budget bounds the bytes held by a stage of the pipeline (items read but
// not yet assembled, traces handed to the workers, request bodies taken by
// the listener). Whatever is asked of an empty budget is granted, so that
// an item larger than the bound passes, alone; otherwise a grant must fit.
type budget struct {
	mu    sync.Mutex
	max   int64
	used  int64
	freed chan struct{} // closed and replaced when bytes are released
}

func newBudget(max int64) *budget { return &budget{max: max, freed: make(chan struct{})} }

// fits: n bytes can be granted now (mu held).
func (b *budget) fits(n int64) bool { return b.used == 0 || b.used+n <= b.max }

// tryAcquire grants n bytes if they fit now.
func (b *budget) tryAcquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.fits(n) {
		return false
	}
	b.used += n
	return true
}

// acquire waits until n bytes fit, or ctx ends (its error).
func (b *budget) acquire(ctx context.Context, n int64) error {
	for {
		b.mu.Lock()
		if b.fits(n) {
			b.used += n
			b.mu.Unlock()
			return nil
		}
		freed := b.freed
		b.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// force adds n bytes (negative: gives them back) whether they fit or not:
// for what is held already and only measured now.
func (b *budget) force(n int64) {
	if n <= 0 {
		b.release(-n)
		return
	}
	b.mu.Lock()
	b.used += n
	b.mu.Unlock()
}

// release gives back n bytes granted earlier.
func (b *budget) release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	close(b.freed)
	b.freed = make(chan struct{})
	b.mu.Unlock()
}

// held is the bytes granted and not yet released.
func (b *budget) held() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// peakRSS is the process's peak resident set (VmHWM in /proc/self/status,
// Linux), in bytes; 0 where it cannot be read. The exit log line carries
// it: the figure the memory budget is stated in, measured by the process
// itself (a parent's rusage can report the parent's own peak for a child
// it started with vfork).
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	_, rest, ok := bytes.Cut(b, []byte("VmHWM:"))
	if !ok {
		return 0
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	kb, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(line), []byte("kB")))), 10, 64)
	if err != nil {
		return 0
	}
	return kb << 10
}
