// series_test.go: the MaxWindows bound keeps windows by id alone, and merge in one pass gives what inserting one window at a time gave, in time linear in the windows.

package history

import (
	"fmt"
	"math"
	"math/big"
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

// TestBoundOrderFree: which windows the MaxWindows bound keeps is a function
// of the ids alone: results added in any order (that lateWindows admits),
// bounded after each, leave
// the windows of the whole set filtered by its least and greatest id — what
// makes merged shards equal one process (TestMergedPastMaxWindows) — and
// Dropped counts every other result. The want side is computed by brute
// force from the rule as doc.go states it.
func TestBoundOrderFree(t *testing.T) {
	r := newPRNG("history/bound-order/v1")
	type tc struct {
		max  int
		base int64 // ids from base
		span int64 // over this many ids
	}
	cases := []tc{{1, 0, 10}, {2, 0, 10}, {3, 0, 30}, {4, 0, 40}, {16, 0, 100}, {100, 0, 1000}, {100, -500, 1000},
		{8192, 0, 20_000}, {50, math.MinInt64, 400}, {50, math.MaxInt64 - 400, 400}}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.max, "/", c.base), func(t *testing.T) {
			for trial := range 5 {
				n := 1 + r.Intn(int(min(c.span, 3000))*2)
				ids := make([]int64, n)
				for i := range ids {
					ids[i] = c.base + int64(r.Intn(int(c.span)))
				}
				if c.max > lateWindows {
					// A key takes a window it does not hold only among its
					// newest lateWindows: here the order is free within
					// runs of 64 results of a sorted input.
					slices.Sort(ids)
					for k := 0; k < len(ids); k += 64 {
						chunk := ids[k:min(k+64, len(ids))]
						for i := len(chunk) - 1; i > 0; i-- {
							j := r.Intn(i + 1)
							chunk[i], chunk[j] = chunk[j], chunk[i]
						}
					}
				}
				var s series
				for _, id := range ids {
					sum := s.at(id)
					if sum == nil {
						t.Fatalf("trial %d: window %d late", trial, id)
					}
					sum.add(Pass, 1)
					s.bound(c.max)
					if len(s.Windows) > c.max {
						t.Fatalf("trial %d: %d windows, max %d", trial, len(s.Windows), c.max)
					}
				}
				// brute force: count per id, then the rule
				lo, hi := slices.Min(ids), slices.Max(ids)
				lead, step := int64(c.max/8), int64(max(c.max/16, 1))
				if lead == 0 && c.max > 1 {
					lead = 1
				}
				recent := int64(c.max) - lead - step
				if recent < 1 {
					lead, step, recent = 0, 1, int64(c.max)
				}
				// in big integers, so that no id overflows: kept iff
				// id − lo < lead or id > ⌊hi/step⌋·step − recent
				bi := func(v int64) *big.Int { return big.NewInt(v) }
				q := new(big.Int).Div(bi(hi), bi(step)) // Euclidean: the floor, step > 0
				start := new(big.Int).Sub(new(big.Int).Mul(q, bi(step)), bi(recent))
				var want []Summary
				dropped := uint64(0)
				count := map[int64]uint64{}
				for _, id := range ids {
					count[id]++
				}
				keys := make([]int64, 0, len(count))
				for id := range count {
					keys = append(keys, id)
				}
				slices.Sort(keys)
				for _, id := range keys {
					keep := new(big.Int).Sub(bi(id), bi(lo)).Cmp(bi(lead)) < 0 || bi(id).Cmp(start) > 0
					if keep {
						w := Summary{Window: id}
						for range count[id] {
							w.add(Pass, 1)
						}
						want = append(want, w)
					} else {
						dropped += count[id]
					}
				}
				if d := cmp.Diff(want, s.Windows); d != "" {
					t.Fatalf("trial %d (%d results): windows (-want +got):\n%.2000s", trial, n, d)
				}
				if s.Dropped != dropped {
					t.Errorf("trial %d: Dropped %d, want %d", trial, s.Dropped, dropped)
				}
			}
		})
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
// 1.0 s for 20,000 windows, 4.5 s for 40,000 (quadratic): hours here. The
// windows kept are the bound's, and every result is kept or counted in
// Dropped.
func TestBoundMergeLinear(t *testing.T) {
	const n = 400_000
	type outcome struct {
		Windows, LastLead, FirstRecent int64
		Kept, Dropped, Total           uint64
	}
	// The series are made before the watchdog starts: drawing them is
	// most of the time under -race, and it is not what is timed.
	r := newPRNG("history/bound-linear")
	a, b := randomSeries(r, n), randomSeries(r, n)
	for i := range b.Windows {
		b.Windows[i].Window = 2*int64(i) + 1 // interleaved with a's
	}
	for i := range a.Windows {
		a.Windows[i].Window = 2 * int64(i)
	}
	var total uint64
	for _, s := range [2]*series{a, b} {
		for i := range s.Windows {
			total += s.Windows[i].N()
		}
	}
	done := make(chan outcome, 1)
	go func() {
		o := outcome{Total: total}
		a.merge(b)
		a.bound(DefaultMaxWindows)
		for i := range a.Windows {
			o.Kept += a.Windows[i].N()
		}
		o.Windows, o.Dropped = int64(len(a.Windows)), a.Dropped
		o.LastLead, o.FirstRecent = a.Windows[1023].Window, a.Windows[1024].Window
		done <- o
	}()
	select {
	case got := <-done:
		// ids 0–799,999: the first 1,024, and those past ⌊799,999/512⌋·512 − 6,656 = 793,088
		want := outcome{Windows: 1024 + 799_999 - 793_088, LastLead: 1023, FirstRecent: 793_089, Kept: got.Kept, Dropped: got.Total - got.Kept, Total: got.Total}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("(-want +got):\n%s", d)
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
