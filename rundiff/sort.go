// sort.go: a run's entries in order of id, then position, by a radix sort in place on the ids' top bits.

package rundiff

import (
	"cmp"
	"slices"
)

// radixBits is how many bits of an id pick an entry's bucket at each level of the sort: 256 buckets, whose
// next free slots stay in cache while entries are swapped into them; levels is how deep the buckets go
// before a comparison sort takes over (24 bits: ids that share more are rare, or the same id repeated).
const (
	radixBits  = 8
	levels     = 3
	smallSort  = 32 // a bucket this small is sorted by insertion
	buckets    = 1 << radixBits
	bucketMask = buckets - 1
)

// compareEntries orders entries by id, then position.
func compareEntries(a, b entry) int {
	if c := compareIDs(&a, &b); c != 0 {
		return c
	}
	return cmp.Compare(a.pos, b.pos)
}

// bucketOf is e's bucket in a run: the top radixBits of its id.
func bucketOf(e *entry) int { return int(e.hi >> (64 - radixBits)) }

// sortBucket sorts the entries of one bucket of a run, which share their ids' top radixBits, as
// sortEntries does.
func sortBucket(es []entry) { flagSort(es, 64-2*radixBits, levels-1) }

// sortEntries sorts es by id, then position: a most-significant-digit radix sort in place (American flag
// sort) on the ids' top 24 bits, 8 at a time, each entry swapped straight to the next free slot of its
// bucket; buckets of at most smallSort entries by insertion, and what is left after 24 bits by
// comparisons. Ids are SHA-256 bits, so a run's n ids spread evenly, n/2²⁴ to a bucket at the last level,
// whatever the keys; only the same id repeated (results that share case, assertion and repeat) fills a
// bucket, and the comparison sort takes that in O(k log k).
func sortEntries(es []entry) { flagSort(es, 64-radixBits, levels) }

func flagSort(es []entry, shift, level int) {
	switch {
	case len(es) <= smallSort:
		insertionSort(es)
		return
	case level == 0:
		slices.SortFunc(es, compareEntries)
		return
	}
	var ends, next [buckets]int
	for i := range es {
		ends[es[i].hi>>shift&bucketMask]++
	}
	sum := 0
	for b, n := range ends {
		next[b] = sum
		sum += n
		ends[b] = sum
	}
	for b := range buckets {
		for i := next[b]; i < ends[b]; i = next[b] {
			// es[i] is the first entry of bucket b not yet known to be in place.
			if t := int(es[i].hi >> shift & bucketMask); t != b {
				es[i], es[next[t]] = es[next[t]], es[i]
				next[t]++
				continue
			}
			next[b]++
		}
	}
	start := 0
	for _, end := range ends {
		flagSort(es[start:end], shift-radixBits, level-1)
		start = end
	}
}

// insertionSort sorts a few entries, each moved once into the place the ones before it leave.
func insertionSort(es []entry) {
	for i := 1; i < len(es); i++ {
		if !before(&es[i], &es[i-1]) {
			continue
		}
		e := es[i]
		j := i
		for ; j > 0 && before(&e, &es[j-1]); j-- {
			es[j] = es[j-1]
		}
		es[j] = e
	}
}

// before reports whether a sorts before b: by id, then position.
func before(a, b *entry) bool {
	if a.hi != b.hi {
		return a.hi < b.hi
	}
	if a.lo != b.lo {
		return a.lo < b.lo
	}
	return a.pos < b.pos
}
