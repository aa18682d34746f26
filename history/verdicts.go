// verdicts.go: the bounded index of recent verdicts by (trace, assertion):
// a result id already held is refused, and a new verdict for the same
// (trace, assertion) replaces the one it supersedes in the summaries.

package history

import (
	"encoding/hex"
	"errors"
	"hash/maphash"
	"slices"
)

// DefaultVerdicts bounds the verdict index (Options.Verdicts): the most
// recent verdicts it holds, at about 100 bytes each (~25 MiB).
const DefaultVerdicts = 1 << 18

// Prior is what the index holds of a (trace, assertion)'s latest verdict.
type Prior struct {
	ResultID string
	// Through and Spans are the Result's: the last input item whose spans
	// the verdict judged, and how many spans it judged.
	Through uint64
	Spans   uint32
	Status  Status
	Score   float64
}

// verdict is one index entry. The key is a seeded 64-bit hash (the index
// is rebuilt from the log at every Open, so the seed is per process); two
// keys of the index collide with probability n²/2⁶⁵, about 2·10⁻⁹ at the
// default bound.
type verdict struct {
	key     uint64
	rid     [16]byte
	sr      *series
	window  int64
	score   float64
	through uint64
	spans   uint32
	status  Status
}

type verdicts struct {
	seed maphash.Seed
	max  int
	at   map[uint64]int32 // key → slot of the latest verdict in ring
	ring []verdict        // oldest overwritten first
	next int
}

func newVerdicts(max int) *verdicts {
	return &verdicts{seed: maphash.MakeSeed(), max: max, at: map[uint64]int32{}}
}

// keyOf is a result's index key: its trace and assertion; a result without
// a trace id (an unreadable input line) by its result id, which names the
// line.
func (v *verdicts) keyOf(r *Result) uint64 {
	var h maphash.Hash
	h.SetSeed(v.seed)
	if r.TraceID == "" {
		h.WriteString("\x01")
		h.WriteString(r.ResultID)
		return h.Sum64()
	}
	h.WriteString(r.TraceID)
	h.WriteByte(0)
	h.WriteString(r.Assertion)
	return h.Sum64()
}

// ridOf packs a result id: the watch command's are 32 hex digits, kept as
// their 16 bytes; any other text by two seeded hashes.
func (v *verdicts) ridOf(id string) [16]byte {
	var b [16]byte
	if len(id) == 32 {
		if _, err := hex.Decode(b[:], []byte(id)); err == nil {
			return b
		}
	}
	var h maphash.Hash
	h.SetSeed(v.seed)
	h.WriteString(id)
	x := h.Sum64()
	h.WriteByte(0)
	y := h.Sum64()
	for i := range 8 {
		b[i], b[8+i] = byte(x>>(8*i)), byte(y>>(8*i))
	}
	return b
}

func (v *verdicts) get(key uint64) (*verdict, bool) {
	i, ok := v.at[key]
	if !ok {
		return nil, false
	}
	return &v.ring[i], true
}

// put makes e the latest verdict of its key; the oldest entry goes when
// the index is full.
func (v *verdicts) put(e verdict) {
	if len(v.ring) < v.max {
		v.ring = append(v.ring, e)
		v.at[e.key] = int32(len(v.ring) - 1)
		return
	}
	old := &v.ring[v.next]
	if i, ok := v.at[old.key]; ok && int(i) == v.next {
		delete(v.at, old.key)
	}
	*old = e
	v.at[e.key] = int32(v.next)
	v.next = (v.next + 1) % v.max
}

// admission is what the index says of a result about to be recorded.
type admission uint8

const (
	admitNew       admission = iota // no verdict held for its (trace, assertion)
	admitDuplicate                  // this result id is held, or a later verdict: refused
	admitReplace                    // it supersedes the verdict held
)

// admit classifies r against the index. A result without a result id has
// no identity to refuse or supersede: it is always new, and not indexed.
func (v *verdicts) admit(r *Result) (admission, *verdict) {
	if r.ResultID == "" {
		return admitNew, nil
	}
	e, ok := v.get(v.keyOf(r))
	switch {
	case !ok:
		return admitNew, nil
	case e.rid == v.ridOf(r.ResultID):
		return admitDuplicate, e
	case r.Spans < e.spans:
		// Judged from fewer spans than the verdict held: an older
		// revision delivered again, not a newer one.
		return admitDuplicate, e
	}
	return admitReplace, e
}

// Prior returns the latest verdict the store holds for (traceID,
// assertion), within the index's bound.
func (s *Store) Prior(traceID, assertion string) (Prior, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.verdicts == nil {
		return Prior{}, false
	}
	e, ok := s.verdicts.get(s.verdicts.keyOf(&Result{TraceID: traceID, Assertion: assertion}))
	if !ok {
		return Prior{}, false
	}
	return Prior{ResultID: hex.EncodeToString(e.rid[:]), Through: e.through, Spans: e.spans, Status: e.status, Score: e.score}, true
}

// Duplicates counts results refused because their result id was held.
func (s *Store) Duplicates() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dups
}

// errStop ends a segment scan early.
var errStop = errors.New("stop")

// rebuildVerdicts fills the verdict index from the records before the
// checkpoint (those after it are replayed by recover, through apply): the
// newest segments holding the index's bound of records, read in order.
// Records of a segment that cannot be read are left out: the index then
// refuses fewer duplicates, and counts nothing twice that it did not.
func (s *Store) rebuildVerdicts(segs []uint64) {
	cp := s.meta.Checkpoint
	before := func(n uint64, p pos) bool { return n < cp.Seg || (n == cp.Seg && p.Off <= cp.Off) }
	var use []uint64
	total := 0
	for i := len(segs) - 1; i >= 0 && total < s.verdicts.max; i-- {
		n := segs[i]
		if n > cp.Seg {
			continue
		}
		count := 0
		scanSegment(s.d, n, 0, func(_ Result, p pos) error {
			if !before(n, p) {
				return errStop
			}
			count++
			return nil
		})
		use = append(use, n)
		total += count
	}
	slices.Reverse(use)
	for _, n := range use {
		scanSegment(s.d, n, 0, func(r Result, p pos) error {
			if !before(n, p) {
				return errStop
			}
			s.index(&r)
			return nil
		})
	}
}
