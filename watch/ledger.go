// ledger.go: which input items still hold something not yet judged and
// recorded: the first of them is where a restart resumes (the input
// checkpoint) and what the spool keeps.

package watch

import (
	"cmp"
	"slices"
	"sync"

	"attest-engine/ingest"
)

// ledger counts, for each input item still holding something, the spans
// (or the whole trace) not yet settled (ingest.Hold): judged, written,
// recorded, and no longer kept for late spans. Items are added in Seq
// order; they settle in any order. It keeps an entry for each unsettled
// item only (an item settled behind an unsettled one is removed, in
// amortized constant time): a trace held open while a million later items
// come and settle holds its own items in memory, 32 bytes each, not the
// million.
type ledger struct {
	mu    sync.Mutex
	items []entry // items added with spans unsettled, in Seq order
	head  int     // items[:head] are settled and gone
	dead  int     // settled entries in items[head:]
	end   entry   // after the last item added: its end offset and watermark
	next  uint64
}

// entry is one item: its Seq, its unsettled count, and where it starts
// (the byte offset of --in and the event-time watermark before it).
type entry struct {
	seq     uint64
	pending int
	start   int64
	mark    int64
}

func newLedger(next uint64, start, mark int64) *ledger {
	return &ledger{next: next, end: entry{start: start, mark: mark}}
}

// add records item seq (after every item added before) with n unsettled
// spans or traces. An item numbered before the ledger's next one is not
// counted: nothing holds it here.
func (l *ledger) add(seq uint64, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if seq < l.next {
		return
	}
	l.next = seq + 1
	if n > 0 {
		l.items = append(l.items, entry{seq: seq, pending: n, start: l.end.start, mark: l.end.mark})
	}
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
	k := len(l.items) - 1
	if seq+1 != l.next || k < l.head || l.items[k].seq != seq || l.items[k].pending <= 0 {
		return // not an item of this ledger (one not counted), or settled
	}
	if l.items[k].pending += n; l.items[k].pending <= 0 {
		l.dead++
		l.pop()
	}
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
	live := l.items[l.head:]
	for _, s := range sc {
		i, ok := slices.BinarySearchFunc(live, s.Seq, func(e entry, seq uint64) int { return cmp.Compare(e.seq, seq) })
		if !ok || live[i].pending <= 0 {
			continue // not an item of this ledger (one not counted), or settled
		}
		if live[i].pending -= s.N; live[i].pending <= 0 {
			l.dead++
		}
	}
	l.pop()
}

// pop drops the settled entries: those before the first unsettled one at
// once, those behind it once they outnumber the unsettled ones.
func (l *ledger) pop() {
	for l.head < len(l.items) && l.items[l.head].pending <= 0 {
		l.head++
		l.dead--
	}
	if l.dead > 1024 && l.dead > len(l.items)-l.head-l.dead {
		// More settled entries than unsettled behind the first: kept.
		kept := l.items[:0]
		for _, e := range l.items[l.head:] {
			if e.pending > 0 {
				kept = append(kept, e)
			}
		}
		clear(l.items[len(kept):])
		l.items, l.head, l.dead = kept, 0, 0
	} else if l.head > 1024 && l.head > len(l.items)/2 {
		n := copy(l.items, l.items[l.head:])
		clear(l.items[n:])
		l.items, l.head = l.items[:n], 0
	}
}

// low is the first unsettled item, with where it starts; when every item
// is settled, the next one and where the last ended.
func (l *ledger) low() (seq uint64, start, mark int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.head < len(l.items) {
		e := l.items[l.head]
		return e.seq, e.start, e.mark
	}
	return l.next, l.end.start, l.end.mark
}
