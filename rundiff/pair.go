// pair.go: pairing the results of two runs on (case key, assertion key, repeat) and counting each
// assertion key's pairs.

package rundiff

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// MaxKeys bounds the assertion keys of one run: what diff keeps per key (its counts and, for graded
// scores, the pairs' differences) is bounded by it and by the pairs.
const MaxKeys = 100_000

// entry is one result, as compact as pairing needs: 40 bytes a result while the two runs are paired.
type entry struct {
	// The id: 128 bits of SHA-256 of the case key and the assertion key, each after its length, and the
	// repeat (8 bytes big-endian each). Equal ids pair, in order of pos.
	hi, lo uint64
	score  float64
	rid    uint64 // a watch line's result_id, 64 bits of it (dedupe.go); 0 for none
	pos    int32  // the result's index in its input: pairs results that share an id in order of appearance
	key    uint32 // the assertion key's index in its run's keys, and the flags in the top bits
}

const (
	comparableFlag = 1 << 31
	passFlag       = 1 << 30
	keyMask        = passFlag - 1
)

func (e *entry) keyIndex() uint32 { return e.key & keyMask }

// sameID reports whether a and b pair: the same case key, assertion key and repeat.
func sameID(a, b *entry) bool { return a.hi == b.hi && a.lo == b.lo }

// compareIDs orders entries by id.
func compareIDs(a, b *entry) int {
	if c := cmp.Compare(a.hi, b.hi); c != 0 {
		return c
	}
	return cmp.Compare(a.lo, b.lo)
}

// keyInfo is an assertion key as a person reads it.
type keyInfo struct{ key, label, typ string }

// run is one side's results, by the top bits of their ids into buckets (in id order), each sorted by id,
// and its assertion keys. Results go to their bucket as they are read, so that the run's entries grow
// as many small slices, not as one that is copied whole each time it grows.
type run struct {
	buckets  [buckets][]entry
	n        int32 // results read
	keys     []keyInfo
	replaced int // watch result lines left out: repeated (result_id) or superseded (dedupe.go)
	// supersedes holds, by position, the result_id (64 bits) each watch line that supersedes one names.
	supersedes map[int32]uint64
	src        *source // where the run was read from, to name its results with no pair
}

// load reads a run: each result's id is its case key, assertion key and repeat (the run's own when the
// result names one, else -1); results that share an id pair with their counterparts in the other run in
// order of appearance (the entries are sorted by id, then position), once watch's result lines are
// de-duplicated (dedupe).
func load(path string) (*run, error) {
	r := &run{}
	index := map[string]uint32{}
	watchIDs := false
	var last []byte // the assertion key of the result before, and its index
	var lastKey uint32
	var buf []byte
	src, err := readResults(path, func(res *result) error {
		k := lastKey
		if last == nil || string(res.assertion) != string(last) {
			var ok bool
			if k, ok = index[string(res.assertion)]; !ok {
				if len(r.keys) >= MaxKeys {
					return fmt.Errorf("more than %d assertion keys", MaxKeys)
				}
				k = uint32(len(r.keys))
				info := keyInfo{string(res.assertion), string(res.label.text()), string(res.typ.text())}
				index[info.key] = k
				r.keys = append(r.keys, info)
			}
			last, lastKey = append(last[:0], res.assertion...), k
		}
		buf = buf[:0]
		for _, s := range [][]byte{res.caseKey, res.assertion} {
			buf = binary.BigEndian.AppendUint64(buf, uint64(len(s)))
			buf = append(buf, s...)
		}
		buf = binary.BigEndian.AppendUint64(buf, uint64(res.repeat))
		h := sha256.Sum256(buf)
		if r.n == math.MaxInt32 {
			return fmt.Errorf("more than %d results", math.MaxInt32)
		}
		e := entry{hi: binary.BigEndian.Uint64(h[:8]), lo: binary.BigEndian.Uint64(h[8:16]), score: res.score,
			key: k, pos: r.n, rid: resultIDHash(res.resultID)}
		watchIDs = watchIDs || e.rid != 0
		if len(res.supersedes) > 0 {
			if r.supersedes == nil {
				r.supersedes = map[int32]uint64{}
			}
			r.supersedes[e.pos] = resultIDHash(res.supersedes)
		}
		if res.comparable() {
			e.key |= comparableFlag
			if res.status == statusPass {
				e.key |= passFlag
			}
		}
		b := bucketOf(&e)
		r.buckets[b] = append(r.buckets[b], e)
		r.n++
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.src = src
	for _, es := range r.buckets {
		sortBucket(es)
	}
	if watchIDs {
		r.dedupe()
	}
	return r, nil
}

// keyCounts is what diff knows of one assertion key once the runs are paired.
type keyCounts struct {
	info                   keyInfo
	bothPass, regressions  int // pass in both; pass in base, fail in head
	improvements, bothFail int // fail in base, pass in head; fail in both
	notComparable          int // pairs where a side has no verdict (skipped, error)
	// The pairs' score differences (head − base): while every score seen is 0 or 1 only their counts
	// (unit, of −1, 0 and +1), from the first graded score on each difference (diffs).
	unit               [3]int
	diffs              []float64
	graded             bool // a score of the key is neither 0 nor 1
	onlyBase, onlyHead int
}

func (k *keyCounts) pairs() int { return k.bothPass + k.regressions + k.improvements + k.bothFail }

// paired is the outcome of pairing two runs.
type paired struct {
	keys               []*keyCounts // in order of first appearance, base's keys first
	onlyBase, onlyHead []int32      // positions of results with no pair, in input order
}

// pairRuns walks both runs' sorted ids together.
func pairRuns(base, head *run) *paired {
	p := &paired{}
	byKey := map[string]*keyCounts{}
	counts := func(keys []keyInfo) []*keyCounts {
		out := make([]*keyCounts, len(keys))
		for i, info := range keys {
			k := byKey[info.key]
			if k == nil {
				k = &keyCounts{info: info}
				byKey[info.key] = k
				p.keys = append(p.keys, k)
			}
			out[i] = k
		}
		return out
	}
	baseKeys, headKeys := counts(base.keys), counts(head.keys)
	for bucket := range buckets {
		be, he := base.buckets[bucket], head.buckets[bucket]
		i, j := 0, 0
		for i < len(be) || j < len(he) {
			c := 0
			switch {
			case i == len(be):
				c = 1
			case j == len(he):
				c = -1
			default:
				c = compareIDs(&be[i], &he[j])
			}
			switch {
			case c < 0:
				b := &be[i]
				baseKeys[b.keyIndex()].onlyBase++
				p.onlyBase = append(p.onlyBase, b.pos)
				i++
			case c > 0:
				h := &he[j]
				headKeys[h.keyIndex()].onlyHead++
				p.onlyHead = append(p.onlyHead, h.pos)
				j++
			default:
				b, h := &be[i], &he[j]
				baseKeys[b.keyIndex()].add(b, h)
				i++
				j++
			}
		}
	}
	slices.Sort(p.onlyBase)
	slices.Sort(p.onlyHead)
	return p
}

func (k *keyCounts) add(b, h *entry) {
	if b.key&comparableFlag == 0 || h.key&comparableFlag == 0 {
		k.notComparable++
		return
	}
	switch bp, hp := b.key&passFlag != 0, h.key&passFlag != 0; {
	case bp && hp:
		k.bothPass++
	case bp:
		k.regressions++
	case hp:
		k.improvements++
	default:
		k.bothFail++
	}
	if !k.graded && (!unitScore(b.score) || !unitScore(h.score)) {
		k.graded = true
		k.diffs = make([]float64, 0, k.unit[0]+k.unit[1]+k.unit[2]+1)
		for i, n := range k.unit {
			for range n {
				k.diffs = append(k.diffs, float64(i-1))
			}
		}
	}
	d := h.score - b.score
	if k.graded {
		k.diffs = append(k.diffs, d)
	} else {
		k.unit[int(d)+1]++
	}
}

func unitScore(s float64) bool { return s == 0 || s == 1 }

// scoreDiffs is every pair's score difference, head − base.
func (k *keyCounts) scoreDiffs() []float64 {
	if k.graded {
		return k.diffs
	}
	out := make([]float64, 0, k.unit[0]+k.unit[1]+k.unit[2])
	for i, n := range k.unit {
		for range n {
			out = append(out, float64(i-1))
		}
	}
	return out
}
