// recent.go: the verdicts of the last closed traces, and the ids of the
// spans they judged, so that a span sent again after its trace's spans were
// let go is told from a late one.

package ingest

import (
	"hash/fnv"
	"slices"
	"strconv"
)

// DefaultRememberSpans bounds the span ids remembered with the verdicts of
// closed traces, all traces together: 8 bytes each, 8 MiB.
const DefaultRememberSpans = 1 << 20

// recent remembers the verdicts of the last closed traces, oldest
// forgotten first, and the ids of the spans each verdict judged (or that
// came again after it), while they fit in maxIDs: past it, the oldest
// traces' ids go first, and a span of theirs sent again reads as late.
type recent struct {
	max  int
	set  map[string]Prior
	ring []string
	next int

	maxIDs int
	ids    map[string]spanIDs
	held   int      // ids held in all
	order  []idsRef // traces holding ids, in the order they were set
	head   int
	gen    uint64
}

// spanIDs are a trace's judged span ids, sorted; gen tells the latest
// setting from an older one still in order.
type spanIDs struct {
	ids []uint64
	gen uint64
}

type idsRef struct {
	id  string
	gen uint64
}

func newRecent(max int) *recent {
	return &recent{max: max, set: map[string]Prior{}, maxIDs: DefaultRememberSpans, ids: map[string]spanIDs{}}
}

func (r *recent) has(id string) bool { _, ok := r.set[id]; return ok }

func (r *recent) get(id string) (Prior, bool) { p, ok := r.set[id]; return p, ok }

func (r *recent) add(id string, p Prior) {
	if _, ok := r.set[id]; ok {
		r.set[id] = p
		return
	}
	if len(r.ring) < r.max {
		r.ring = append(r.ring, id)
	} else {
		old := r.ring[r.next]
		delete(r.set, old)
		r.forget(old)
		r.ring[r.next] = id
		r.next = (r.next + 1) % r.max
	}
	r.set[id] = p
}

// spanKey is a span id as 64 bits: its 16 hex digits read exactly (what
// the parsers give), else an FNV-1a hash of the text.
func spanKey(spanID string) uint64 {
	if len(spanID) == 16 {
		if k, err := strconv.ParseUint(spanID, 16, 64); err == nil {
			return k
		}
	}
	h := fnv.New64a()
	h.Write([]byte(spanID))
	return h.Sum64()
}

// judge sets the span ids of trace id's verdict to those of spans, or with
// union adds them to those held. The trace must be in the set (add).
func (r *recent) judge(id string, spans []Span, union bool) {
	if _, ok := r.set[id]; !ok || r.maxIDs <= 0 {
		return
	}
	var ids []uint64
	if union {
		ids = slices.Clone(r.ids[id].ids)
	}
	for _, sp := range spans {
		ids = append(ids, spanKey(sp.key())) // a log carrier by its records, not its span
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	r.forget(id)
	if len(ids) == 0 || len(ids) > r.maxIDs {
		return
	}
	r.gen++
	r.ids[id] = spanIDs{ids: ids, gen: r.gen}
	r.held += len(ids)
	r.order = append(r.order, idsRef{id, r.gen})
	for r.held > r.maxIDs {
		ref := r.order[r.head]
		r.order[r.head] = idsRef{}
		r.head++
		if s, ok := r.ids[ref.id]; ok && s.gen == ref.gen {
			r.forget(ref.id)
		}
	}
	if len(r.order)-r.head > 2*len(r.ids)+1024 {
		// Mostly refs of traces forgotten or set again since: the live
		// ones kept, in order, so order stays within twice the traces
		// holding ids (and the ring's bound).
		live := r.order[:0]
		for _, ref := range r.order[r.head:] {
			if s, ok := r.ids[ref.id]; ok && s.gen == ref.gen {
				live = append(live, ref)
			}
		}
		clear(r.order[len(live):])
		r.order, r.head = live, 0
	} else if r.head > 1024 && r.head > len(r.order)/2 {
		n := copy(r.order, r.order[r.head:])
		clear(r.order[n:])
		r.order, r.head = r.order[:n], 0
	}
}

// forget drops trace id's span ids (its entry in order goes when reached).
func (r *recent) forget(id string) {
	if s, ok := r.ids[id]; ok {
		r.held -= len(s.ids)
		delete(r.ids, id)
	}
}

// judged reports whether span spanID of trace id was judged by (or came
// again after) the trace's remembered verdict; for a log carrier spanID
// is its key (Span.key), so records sent again are duplicates and new
// records of a judged span are late.
func (r *recent) judged(id, spanID string) bool {
	s, ok := r.ids[id]
	if !ok {
		return false
	}
	_, found := slices.BinarySearch(s.ids, spanKey(spanID))
	return found
}
