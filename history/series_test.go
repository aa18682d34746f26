package history

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBoundOrderFree: which windows the MaxWindows bound keeps is a function
// of the ids alone: results added in any order, bounded after each, leave
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
				var s series
				for _, id := range ids {
					s.at(id).add(Pass, 1)
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
