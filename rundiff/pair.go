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

// entry is one result, as compact as pairing needs: 48 bytes a result while the two runs are paired.
type entry struct {
	id    [16]byte // SHA-256 of case key, assertion key and repeat: equal ids pair, in order of pos
	score float64
	rid   uint64 // a watch line's result_id, 64 bits of it (dedupe.go); 0 for none
	key   int32  // the assertion key's index in its run's keys
	pos   int32  // the result's index in its input: pairs results that share an id in order of appearance
	flags uint8  // 1 comparable, 2 pass
}

const (
	comparableFlag = 1
	passFlag       = 2
)

// keyInfo is an assertion key as a person reads it.
type keyInfo struct{ key, label, typ string }

// run is one side's results, sorted by id, and its assertion keys.
type run struct {
	entries  []entry
	keys     []keyInfo
	replaced int // watch result lines left out: repeated (result_id) or superseded (dedupe.go)
	// supersedes holds, by position, the result_id (64 bits) each watch line that supersedes one names.
	supersedes map[int32]uint64
}

// load reads a run: each result's id is its case key, assertion key and repeat (the run's own when the
// result names one, else -1); results that share an id pair with their counterparts in the other run in
// order of appearance (the entries are sorted by id, then position), once watch's result lines are
// de-duplicated (dedupe).
func load(path string) (*run, error) {
	r := &run{}
	index := map[string]int32{}
	watchIDs := false
	var buf []byte
	err := readResults(path, func(res *result) error {
		k, ok := index[res.assertion]
		if !ok {
			if len(r.keys) >= MaxKeys {
				return fmt.Errorf("more than %d assertion keys", MaxKeys)
			}
			k = int32(len(r.keys))
			index[res.assertion] = k
			r.keys = append(r.keys, keyInfo{res.assertion, res.label, res.typ})
		}
		buf = buf[:0]
		for _, s := range []string{res.caseKey, res.assertion} {
			buf = binary.BigEndian.AppendUint64(buf, uint64(len(s)))
			buf = append(buf, s...)
		}
		buf = binary.BigEndian.AppendUint64(buf, uint64(res.repeat))
		h := sha256.Sum256(buf)
		if len(r.entries) == math.MaxInt32 {
			return fmt.Errorf("more than %d results", math.MaxInt32)
		}
		e := entry{score: res.score, key: k, pos: int32(len(r.entries)), rid: resultIDHash(res.resultID)}
		copy(e.id[:], h[:16])
		watchIDs = watchIDs || e.rid != 0
		if res.supersedes != "" {
			if r.supersedes == nil {
				r.supersedes = map[int32]uint64{}
			}
			r.supersedes[e.pos] = resultIDHash(res.supersedes)
		}
		if res.comparable() {
			e.flags |= comparableFlag
			if res.status == "pass" {
				e.flags |= passFlag
			}
		}
		r.entries = append(r.entries, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(r.entries, func(a, b entry) int {
		if c := compareIDs(&a.id, &b.id); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	})
	if watchIDs {
		r.dedupe()
	}
	return r, nil
}

// compareIDs orders ids as two big-endian words: bytes.Compare's order, without its call.
func compareIDs(a, b *[16]byte) int {
	if c := cmp.Compare(binary.BigEndian.Uint64(a[:8]), binary.BigEndian.Uint64(b[:8])); c != 0 {
		return c
	}
	return cmp.Compare(binary.BigEndian.Uint64(a[8:]), binary.BigEndian.Uint64(b[8:]))
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
	counts := func(info keyInfo) *keyCounts {
		k := byKey[info.key]
		if k == nil {
			k = &keyCounts{info: info}
			byKey[info.key] = k
			p.keys = append(p.keys, k)
		}
		return k
	}
	for _, info := range base.keys {
		counts(info)
	}
	for _, info := range head.keys {
		counts(info)
	}
	i, j := 0, 0
	for i < len(base.entries) || j < len(head.entries) {
		c := 0
		switch {
		case i == len(base.entries):
			c = 1
		case j == len(head.entries):
			c = -1
		default:
			c = compareIDs(&base.entries[i].id, &head.entries[j].id)
		}
		switch {
		case c < 0:
			b := &base.entries[i]
			counts(base.keys[b.key]).onlyBase++
			p.onlyBase = append(p.onlyBase, b.pos)
			i++
		case c > 0:
			h := &head.entries[j]
			counts(head.keys[h.key]).onlyHead++
			p.onlyHead = append(p.onlyHead, h.pos)
			j++
		default:
			b, h := &base.entries[i], &head.entries[j]
			counts(base.keys[b.key]).add(b, h)
			i++
			j++
		}
	}
	slices.Sort(p.onlyBase)
	slices.Sort(p.onlyHead)
	return p
}

func (k *keyCounts) add(b, h *entry) {
	if b.flags&comparableFlag == 0 || h.flags&comparableFlag == 0 {
		k.notComparable++
		return
	}
	switch bp, hp := b.flags&passFlag != 0, h.flags&passFlag != 0; {
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
