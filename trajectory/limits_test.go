// limits_test.go: memory linear in the trace, and the deadline honoured by every kind.

package trajectory

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"attest-engine/tape"
)

// TestMemoryLinear: the bytes an evaluation allocates grow linearly with
// the trace: ten times the steps, at most twelve times the bytes, for
// every kind (a quadratic table would be a hundred times).
func TestMemoryLinear(t *testing.T) {
	small, err := tape.Parse(longTrace(1000, 50))
	if err != nil {
		t.Fatal(err)
	}
	large, err := tape.Parse(longTrace(10000, 50))
	if err != nil {
		t.Fatal(err)
	}
	alloc := func(c *Check, v tape.Value) uint64 {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		if _, err := c.Eval(context.Background(), v); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&m1)
		return m1.TotalAlloc - m0.TotalAlloc
	}
	for _, lc := range longChecks(50) {
		c := compileLong(t, lc.spec)
		alloc(c, small.Root()) // warm: one-time allocations do not count
		s, l := alloc(c, small.Root()), alloc(c, large.Root())
		t.Logf("%s: %d B at 1,000 steps, %d B at 10,000 (%.1f×)", lc.name, s, l, float64(l)/float64(s))
		if l > 12*s {
			t.Errorf("%s: %d bytes at 10,000 steps, %d at 1,000: more than linear", lc.name, l, s)
		}
	}
}

// TestDeadline: a check whose deadline has passed stops with the
// context's error, whatever its kind, rather than running on.
func TestDeadline(t *testing.T) {
	doc, err := tape.Parse(longTrace(2000, 50))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, lc := range longChecks(50) {
		if _, err := compileLong(t, lc.spec).Eval(ctx, doc.Root()); err != context.Canceled {
			t.Errorf("%s: %v, want context.Canceled", lc.name, err)
		}
	}
}

// TestConcurrentEval: one compiled check serves several batches at once
// (the engine's compile cache shares it): evaluations from 8 goroutines,
// each on its own batch's trace, give the outcome one alone gives (run
// with -race).
func TestConcurrentEval(t *testing.T) {
	text := longTrace(500, 50)
	doc, err := tape.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	for _, lc := range longChecks(50) {
		c := compileLong(t, lc.spec)
		want, err := c.Eval(context.Background(), doc.Root())
		if err != nil {
			t.Fatal(err)
		}
		errs := make(chan string, 8)
		for range 8 {
			go func() {
				own, err := tape.Parse(text) // a batch's trace is its own tape
				if err != nil {
					errs <- err.Error()
					return
				}
				o, err := c.Eval(context.Background(), own.Root())
				if err != nil || o.Explanation != want.Explanation || o.Score != want.Score {
					errs <- fmt.Sprintf("%s: %v %q, want %q", lc.name, err, o.Explanation, want.Explanation)
					return
				}
				errs <- ""
			}()
		}
		for range 8 {
			select {
			case e := <-errs:
				if e != "" {
					t.Error(e)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: an evaluation did not finish in 10 s", lc.name)
			}
		}
	}
}
