// ledger.go: which input items still hold something not yet judged and
// recorded: the first of them is where a restart resumes (the input
// checkpoint) and what the spool keeps.

package watch

import (
	"sync"

	"attest-engine/ingest"
)

// ledger counts, for each input item from the first unsettled one on, the
// spans (or the whole trace) it holds that are not yet settled
// (ingest.Hold): judged, written, recorded, and no longer kept for late
// spans. Items are added in Seq order, one Seq after another; they settle
// in any order. It holds one entry per item from the first unsettled one to
// the latest: a trace held open keeps the items after its first in memory,
// 24 bytes each.
type ledger struct {
	mu    sync.Mutex
	base  uint64 // Seq of items[head]
	items []entry
	head  int
	end   entry // after the last item added: its end offset and watermark
	next  uint64
}

// entry is one item: its unsettled count, and where it starts (the byte
// offset of --in and the event-time watermark before it).
type entry struct {
	pending int
	start   int64
	mark    int64
}

func newLedger(next uint64, start, mark int64) *ledger {
	return &ledger{base: next, next: next, end: entry{start: start, mark: mark}}
}

// add records item seq (the next one) with n unsettled spans or traces.
func (l *ledger) add(seq uint64, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if seq < l.next {
		return // numbered before (not counted): nothing holds it here
	}
	for ; l.next < seq; l.next++ {
		l.items = append(l.items, entry{start: l.end.start, mark: l.end.mark}) // a gap: nothing to hold
	}
	l.next++
	l.items = append(l.items, entry{pending: n, start: l.end.start, mark: l.end.mark})
	l.pop()
}

// more adds n to the unsettled count of item seq, the last one added: the
// further chunks of a long line or request come as items of the same Seq
// (ingest.Item.Part), counted as they come. Whoever adds a first chunk with
// more to follow adds one to its count, which the last chunk takes back
// (n = its spans − 1), so that the item cannot settle before its last
// chunk is counted.
func (l *ledger) more(seq uint64, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if seq < l.base || seq >= l.next {
		return // not an item of this ledger (one not counted)
	}
	l.items[l.head+int(seq-l.base)].pending += n
	l.pop()
}

// read is told where item seq ended: the offset after it and the
// watermark once it was read.
func (l *ledger) read(end, mark int64) {
	l.mu.Lock()
	l.end.start, l.end.mark = end, mark
	l.mu.Unlock()
}

// settle takes settled spans off their items.
func (l *ledger) settle(sc []ingest.SeqCount) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range sc {
		if s.Seq < l.base || s.Seq >= l.next {
			continue // not an item of this ledger (one not counted)
		}
		l.items[l.head+int(s.Seq-l.base)].pending -= s.N
	}
	l.pop()
}

func (l *ledger) pop() {
	for l.head < len(l.items) && l.items[l.head].pending <= 0 {
		l.head++
		l.base++
	}
	if l.head > 1024 && l.head > len(l.items)/2 {
		n := copy(l.items, l.items[l.head:])
		clear(l.items[n:])
		l.items = l.items[:n]
		l.head = 0
	}
}

// low is the first unsettled item, with where it starts; when every item
// is settled, the next one and where the last ended.
func (l *ledger) low() (seq uint64, start, mark int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.head < len(l.items) {
		e := l.items[l.head]
		return l.base, e.start, e.mark
	}
	return l.next, l.end.start, l.end.mark
}
