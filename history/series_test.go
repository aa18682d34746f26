// series_test.go: bound and merge in one pass give what dropping and inserting one window at a time gave, in time linear in the windows.

package history

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// testSeed is the seed of the seeded tests: $HISTORY_SEED, default "1", so
// that anyone can rerun them with another.
func testSeed(t testing.TB) string {
	seed := os.Getenv("HISTORY_SEED")
	if seed == "" {
		seed = "1"
	}
	t.Logf("seed %q (HISTORY_SEED)", seed)
	return seed
}

// boundOneAtATime is bound as it was first written: drop one window at a
// time, finding the baseline span again each time. The reference.
func boundOneAtATime(s *series, max, baselineN int) {
	for len(s.Windows) > max {
		var n uint64
		k := 0
		for k < len(s.Windows)-1 {
			n += s.Windows[k].Scored()
			k++
			if n >= uint64(baselineN) {
				break
			}
		}
		if k >= len(s.Windows)-1 {
			k = 0
		}
		s.Windows = slices.Delete(s.Windows, k, k+1)
		s.Dropped++
	}
}

// mergeOneAtATime is merge by inserting o's windows one at a time.
func mergeOneAtATime(s, o *series) {
	s.Arrivals += o.Arrivals
	s.Dropped += o.Dropped
	for i := range o.Windows {
		s.at(o.Windows[i].Window).Merge(&o.Windows[i])
	}
}

// randomSeries has n windows in order, some numbers skipped, each with 0–3
// scored results (some none: a baseline span may need many windows).
func randomSeries(r *prng, n int) *series {
	s := &series{}
	w := int64(r.Intn(5))
	for range n {
		sm := Summary{Window: w, Passes: uint64(r.Intn(3)), Fails: uint64(r.Intn(2)), Errors: uint64(r.Intn(2))}
		s.Windows = append(s.Windows, sm)
		w += 1 + int64(r.Intn(3))
	}
	return s
}

// TestBoundOnePass: bound equals the one-window-at-a-time reference on
// random series, bounds and baselines (among them spans longer than the
// bound and baselines never complete).
func TestBoundOnePass(t *testing.T) {
	r := newPRNG("history/bound/" + testSeed(t))
	for i := range 2000 {
		n := 1 + r.Intn(60)
		max, baselineN := 1+r.Intn(40), r.Intn(50)
		got, want := randomSeries(r, n), (*series)(nil)
		c := *got
		c.Windows = slices.Clone(got.Windows)
		want = &c
		got.bound(max, baselineN)
		boundOneAtATime(want, max, baselineN)
		if d := cmp.Diff(want.Windows, got.Windows); d != "" || got.Dropped != want.Dropped {
			t.Fatalf("case %d (%d windows, max %d, baseline %d): -reference +bound (dropped %d, want %d):\n%s", i, n, max, baselineN, got.Dropped, want.Dropped, d)
		}
	}
}

// TestMergeOnePass: merge equals inserting one window at a time.
func TestMergeOnePass(t *testing.T) {
	r := newPRNG("history/merge-one-pass/" + testSeed(t))
	for i := range 500 {
		a, b := randomSeries(r, r.Intn(40)), randomSeries(r, r.Intn(40))
		want := &series{Windows: slices.Clone(a.Windows)}
		mergeOneAtATime(want, b)
		a.merge(b)
		if d := cmp.Diff(want.Windows, a.Windows); d != "" {
			t.Fatalf("case %d: -reference +merge:\n%s", i, d)
		}
	}
}

// TestBoundMergeLinear: bounding and merging series of 400,000 windows
// (the size of a hostile summaries file of ~50 MiB) ends within a
// watchdog of 10 s; it takes ~1 s. Dropping one window at a time takes
// 1.0 s for 20,000 windows, 4.5 s for 40,000 (quadratic): hours here.
func TestBoundMergeLinear(t *testing.T) {
	const n = 400_000
	done := make(chan string, 1)
	go func() {
		r := newPRNG("history/bound-linear")
		a, b := randomSeries(r, n), randomSeries(r, n)
		for i := range b.Windows {
			b.Windows[i].Window = 2*int64(i) + 1 // interleaved with a's
		}
		for i := range a.Windows {
			a.Windows[i].Window = 2 * int64(i)
		}
		a.merge(b)
		a.bound(DefaultMaxWindows, 1000)
		done <- fmt.Sprintf("%d windows, %d dropped", len(a.Windows), a.Dropped)
	}()
	select {
	case got := <-done:
		if want := fmt.Sprintf("%d windows, %d dropped", DefaultMaxWindows, 2*n-DefaultMaxWindows); got != want {
			t.Errorf("%s, want %s", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("merging and bounding 2 × 400,000 windows took more than 10 s: quadratic?")
	}
}

// TestLateWindow: a result for a window the key does not hold is
// summarized when the window lies among the newest lateWindows, and
// counted in Dropped (logged, not summarized) when it lies further back.
func TestLateWindow(t *testing.T) {
	s, err := Open(t.TempDir(), Options{NoAlertFile: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := func(i int, window int64) {
		t.Helper()
		r := crashResult(i)
		r.Assertion, r.Seq = "a", uint64(window*DefaultWindowTraces+1)
		if err := s.Record(r); err != nil {
			t.Fatal(err)
		}
	}
	for w := range int64(2 * lateWindows) {
		rec(int(w), 2*w+1) // odd windows 1, 3, …
	}
	rec(1000, 2*int64(lateWindows)) // an even window among the newest lateWindows: inserted
	rec(1001, 2)                    // an even window far back: late
	ser, _ := s.Series("a")
	if len(ser.Windows) != 2*lateWindows+1 || s.summarized() != 2*lateWindows+1 {
		t.Errorf("%d windows, %d results summarized, want %d of each", len(ser.Windows), s.summarized(), 2*lateWindows+1)
	}
	if sr := s.keys["a"]; sr.Dropped != 1 {
		t.Errorf("dropped %d, want the late result counted", sr.Dropped)
	}
}
