// sort_test.go: the radix sort of entries against a comparison sort.

package rundiff

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortEntries: sortEntries (and sortBucket, on entries of one bucket) orders as a comparison sort by id, then position, on runs of random ids,
// of ids that share their top bits (every level of the radix sort, and the comparison sort after it),
// of one id repeated, and of a few ids repeated many times.
func TestSortEntries(t *testing.T) {
	rng := rand.New(rand.NewPCG(simSeed(t), 5))
	cases := map[string]func(i int) (hi, lo uint64){
		"random":         func(int) (uint64, uint64) { return rng.Uint64(), rng.Uint64() },
		"top 8 shared":   func(int) (uint64, uint64) { return 0xab<<56 | rng.Uint64()>>8, rng.Uint64() },
		"top 24 shared":  func(int) (uint64, uint64) { return 0xabcdef<<40 | rng.Uint64()>>24, rng.Uint64() },
		"top 64 shared":  func(int) (uint64, uint64) { return 42, rng.Uint64() },
		"one id":         func(int) (uint64, uint64) { return 7, 7 },
		"few ids":        func(int) (uint64, uint64) { h := rng.Uint64N(5); return h << 60, h },
		"ascending":      func(i int) (uint64, uint64) { return uint64(i) << 40, 0 },
		"descending ids": func(i int) (uint64, uint64) { return ^(uint64(i) << 40), 0 },
	}
	for name, id := range cases {
		for _, n := range []int{0, 1, 31, 33, 1000, 100_000} {
			es := make([]entry, n)
			for i := range es {
				es[i].hi, es[i].lo = id(i)
				es[i].pos = int32(rng.IntN(n)) // positions out of order: the sort must order them
			}
			want := slices.Clone(es)
			slices.SortFunc(want, compareEntries)
			bucket := slices.Clone(es)
			sortEntries(es)
			if !slices.Equal(es, want) {
				t.Errorf("%s, %d entries: not in order of id, then position", name, n)
			}
			// A run's bucket: its ids share their top radixBits.
			if same := !slices.ContainsFunc(bucket, func(e entry) bool { return bucketOf(&e) != bucketOf(&bucket[0]) }); n > 0 && same {
				sortBucket(bucket)
				if !slices.Equal(bucket, want) {
					t.Errorf("%s, %d entries as one bucket: not in order of id, then position", name, n)
				}
			}
		}
	}
}
