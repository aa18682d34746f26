// pool_test.go: results in input order, at most 2×workers items in hand, and the ways reading stops.

package pool

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"attest-engine/testseed"
)

// watchdog bounds each run: a lost hand-off fails in seconds, not at the
// test binary's timeout.
const watchdog = 10 * time.Second

// run calls InOrder on a goroutine and fails the test if it has not
// returned within watchdog.
func run(t *testing.T, ctx context.Context, workers int, next func(int) (int, error), work func(int) int, emit func(int) error) (bool, error) {
	t.Helper()
	type res struct {
		interrupted bool
		err         error
	}
	done := make(chan res, 1)
	go func() {
		i, err := InOrder(ctx, workers, next, work, emit)
		done <- res{i, err}
	}()
	select {
	case r := <-done:
		return r.interrupted, r.err
	case <-time.After(watchdog):
		t.Fatalf("InOrder did not return within %v", watchdog)
		return false, nil
	}
}

// seed is POOL_SEED, else 1: the work's random delays.
func seed(t *testing.T) uint64 { return testseed.Uint64(t, "POOL_SEED", 1) }

// TestInOrder: with work that finishes out of order, results come out in
// the items' order, every one once, and no more than 2×workers items are
// between next and emit.
func TestInOrder(t *testing.T) {
	const n, workers = 500, 4
	rng := rand.New(rand.NewPCG(seed(t), 0))
	delays := make([]time.Duration, n)
	for i := range delays {
		delays[i] = time.Duration(rng.IntN(200)) * time.Microsecond
	}
	var inHand, most atomic.Int64
	next := func(i int) (int, error) {
		if i == n {
			return 0, io.EOF
		}
		if h := inHand.Add(1); h > most.Load() {
			most.Store(h)
		}
		return i, nil
	}
	work := func(i int) int { time.Sleep(delays[i]); return i }
	var got []int
	emit := func(r int) error { got = append(got, r); inHand.Add(-1); return nil }
	interrupted, err := run(t, context.Background(), workers, next, work, emit)
	if interrupted || err != nil {
		t.Fatalf("interrupted %v, err %v", interrupted, err)
	}
	if len(got) != n {
		t.Fatalf("%d results, want %d", len(got), n)
	}
	for i, r := range got {
		if r != i {
			t.Fatalf("result %d is item %d's: out of order (POOL_SEED=%d)", i, r, seed(t))
		}
	}
	// In hand at once: the order queue (2×workers), the item emit waits
	// on, and the one just read, waiting for room in the queue.
	if m := most.Load(); m > 2*workers+2 {
		t.Errorf("%d items in hand at once, want at most %d", m, 2*workers+2)
	}
}

// TestInOrderStops: reading stops at an error from next (returned), when
// emit fails, and when ctx ends (interrupted); the items read are still
// emitted.
func TestInOrderStops(t *testing.T) {
	bad := errors.New("bad line")
	tests := []struct {
		name        string
		failAt      int // next fails here
		emitFailAt  int // emit fails here
		cancelAt    int // ctx ends when next is asked for this item
		interrupted bool
		err         error
	}{
		{"next fails", 10, -1, -1, false, bad},
		{"emit fails", -1, 10, -1, false, nil},
		{"ctx ends", -1, -1, 10, true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var read, emitted int
			next := func(i int) (int, error) {
				if i == tc.cancelAt {
					cancel()
				}
				if i == tc.failAt {
					return 0, bad
				}
				if i == 1000 {
					return 0, io.EOF
				}
				read++
				return i, nil
			}
			emit := func(r int) error {
				emitted++
				if r == tc.emitFailAt {
					return errors.New("disk full")
				}
				return nil
			}
			interrupted, err := run(t, ctx, 2, next, func(i int) int { return i }, emit)
			if interrupted != tc.interrupted || !errors.Is(err, tc.err) {
				t.Errorf("interrupted %v, err %v; want %v, %v", interrupted, err, tc.interrupted, tc.err)
			}
			if read >= 1000 || emitted != read {
				t.Errorf("read %d, emitted %d: want reading stopped early and every item read emitted", read, emitted)
			}
		})
	}
}
