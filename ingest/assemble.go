// assemble.go: spans grouped into traces by traceId, under bounds, closed on root end + grace or idle.

package ingest

import (
	"container/list"
	"time"
)

// Limits bound what the assembler holds. Zero fields take the defaults.
type Limits struct {
	OpenTraces    int           // traces being assembled at once (default 10,000)
	SpansPerTrace int           // spans kept per trace; later ones are dropped (default 10,000, spec §7's step limit)
	Bytes         int           // bytes held by open traces and those kept for late spans: their spans' Size and their own bookkeeping (default 32 MiB)
	Grace         time.Duration // how long after its root span ends a trace stays open for late children (default 5s)
	Idle          time.Duration // a trace with no new span for this long closes (default 60s)
	Remember      int           // verdicts of closed traces remembered, to tell late spans (default 65,536)
}

// Defaults of Limits.
const (
	DefaultOpenTraces    = 10000
	DefaultSpansPerTrace = 10000
	DefaultBytes         = 32 << 20
	DefaultGrace         = 5 * time.Second
	DefaultIdle          = 60 * time.Second
	DefaultRemember      = 65536
)

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.OpenTraces, DefaultOpenTraces)
	def(&l.SpansPerTrace, DefaultSpansPerTrace)
	def(&l.Bytes, DefaultBytes)
	def(&l.Remember, DefaultRemember)
	if l.Grace <= 0 {
		l.Grace = DefaultGrace
	}
	if l.Idle <= 0 {
		l.Idle = DefaultIdle
	}
	return l
}

// Why a trace was closed.
const (
	ClosedRoot    = "root_ended" // its root span ended and the grace period passed
	ClosedIdle    = "idle"       // no span for the idle timeout
	ClosedEvicted = "evicted"    // pushed out by the open-trace or byte bound
	ClosedFlush   = "end_of_input"
)

// key is what tells a span (or a log record) held from another: a span's
// id, a log record's LogKey.
func (sp *Span) key() string {
	if sp.LogKey != "" {
		return sp.LogKey
	}
	return sp.SpanID
}

// Group is the spans of one trace, as the assembler hands them over.
type Group struct {
	TraceID string
	Spans   []Span
	Reason  string // one of the Closed* values
	Dropped int    // spans refused by the per-trace bound
	Seq     uint64 // Seq of the trace's first span
	// Incomplete: evicted, spans dropped, or closed before a root span ended.
	Incomplete bool
	// Through is the greatest Seq of its spans.
	Through uint64
	// Prior is the verdict this one supersedes: the trace was evaluated
	// before and spans came after (settle.go). Nil for a first verdict.
	Prior *Prior
	// TooLate: spans came for a trace whose earlier spans are no longer
	// held, so it cannot be evaluated again; Late of them. Spans holds
	// only those; the verdict Prior stands, judged without them.
	TooLate bool
	Late    int
	// Hold keeps the input items of the spans unsettled until the verdict
	// is recorded (Hold.Done) and the spans are no longer kept for late ones.
	Hold *Hold
}

type pending struct {
	id       string
	seq      uint64
	spans    []Span
	bytes    int
	last     int64 // time of the latest span
	rootEnd  bool  // a root span (no parent) was seen
	dropped  int
	elem     *list.Element       // in Assembler.lru
	deadline int64               // root end + grace; 0 until rootEnd
	ids      map[string]struct{} // span ids held, from idsSetAt spans on (has)
	through  uint64              // greatest Seq of its spans
	prior    *Prior              // reopened from the settle cache: the verdict it had
	hold     *Hold               // reopened: the hold its earlier spans' items are in
}

// maxRun bounds the room a new trace is given for the spans that follow
// its first in the same item (Assembler.run).
const maxRun = 64

// run is the number of spans at the head of spans of the first one's
// trace: exporters send a trace's spans together, and its slice is then
// made once, not grown span by span.
func (a *Assembler) run(spans []Span) int {
	n := 1
	for n < len(spans) && n < min(maxRun, a.lim.SpansPerTrace) && spans[n].TraceID == spans[0].TraceID {
		n++
	}
	return n
}

// idsSetAt is the number of spans from which a trace keeps a set of its
// span ids; below it a span id is looked for among its spans, which for
// the usual trace of a few spans is faster than a map and allocates
// nothing.
const idsSetAt = 16

// has reports whether p holds a span (or a log record) with this key
// (Span.key): a re-delivered span is held once.
func (p *pending) has(id string) bool {
	if p.ids != nil {
		_, ok := p.ids[id]
		return ok
	}
	for i := range p.spans {
		if p.spans[i].key() == id {
			return true
		}
	}
	return false
}

// added records the key of the span just appended to p.spans.
func (p *pending) added(id string) {
	switch {
	case p.ids != nil:
		p.ids[id] = struct{}{}
	case len(p.spans) >= idsSetAt:
		p.ids = make(map[string]struct{}, 2*len(p.spans))
		for i := range p.spans {
			p.ids[p.spans[i].key()] = struct{}{}
		}
	}
}

// Assembler groups spans by trace id. It is not safe for concurrent use.
// Time is whatever the caller passes (nanoseconds): the wall clock for a
// live stream, or an event-time watermark (the latest span end seen) for a
// replay, which makes the grouping a pure function of the input.
type Assembler struct {
	lim        Limits
	open       map[string]*pending
	lru        *list.List // of *pending, least recently touched first
	roots      []*pending // traces whose root ended, by deadline (times only grow)
	bytes      int        // span bytes held, open and settling
	closed     *recent
	settling   settleCache
	Late       int // spans that came after their trace was closed
	Duplicates int // spans refused because their trace already held that span id
	// Known, when set, is asked for a trace's verdict that this assembler
	// does not remember (one recorded before a restart).
	Known func(traceID string) (Prior, bool)
	// Settle, when set, gets the input items of spans done with (settle.go).
	Settle func([]SeqCount)
}

// NewAssembler returns an Assembler with the given limits.
func NewAssembler(lim Limits) *Assembler {
	lim = lim.withDefaults()
	return &Assembler{lim: lim, open: map[string]*pending{}, lru: list.New(), closed: newRecent(lim.Remember),
		settling: newSettleCache()}
}

// Open is the number of traces being assembled.
func (a *Assembler) Open() int { return len(a.open) }

// Add takes spans seen at now and returns the traces the bounds pushed out.
func (a *Assembler) Add(spans []Span, now int64) []Group {
	var out []Group
	for i, sp := range spans {
		p := a.open[sp.TraceID]
		if p == nil {
			if s := a.settling.get(sp.TraceID); s != nil {
				if s.p.has(sp.key()) {
					a.Duplicates++ // sent again after its trace closed
					a.settle(sp.Seq)
					continue
				}
				a.Late++
				p = a.reopen(s, now)
			} else {
				if a.closed.judged(sp.TraceID, sp.key()) {
					a.Duplicates++ // sent again after its trace's spans were let go
					a.settle(sp.Seq)
					continue
				}
				if a.closed.has(sp.TraceID) {
					a.Late++ // its trace closed and its spans are gone: evaluated as too late (settle.go)
				}
				for len(a.open) >= a.lim.OpenTraces {
					out = a.emit(out, a.close(a.lru.Front().Value.(*pending), ClosedEvicted, now))
				}
				p = &pending{id: sp.TraceID, seq: sp.Seq, bytes: heldTrace + len(sp.TraceID),
					spans: make([]Span, 0, a.run(spans[i:]))}
				p.elem = a.lru.PushBack(p)
				a.open[sp.TraceID] = p
				a.bytes += p.bytes
			}
		} else {
			a.lru.MoveToBack(p.elem)
		}
		p.last = now
		if p.has(sp.key()) || (p.prior == nil && a.closed.judged(sp.TraceID, sp.key())) {
			a.Duplicates++ // at-least-once delivery sent it again
			a.settle(sp.Seq)
			continue
		}
		if len(p.spans) >= a.lim.SpansPerTrace {
			p.dropped++
			a.settle(sp.Seq)
			continue
		}
		p.spans = append(p.spans, sp)
		p.added(sp.key())
		p.through = max(p.through, sp.Seq)
		p.bytes += sp.Size + heldSpanID
		a.bytes += sp.Size + heldSpanID
		if sp.ParentID == "" && sp.LogKey == "" && !p.rootEnd {
			p.rootEnd = true
			p.deadline = now + int64(a.lim.Grace)
			a.roots = append(a.roots, p)
		}
		for a.bytes > a.lim.Bytes && a.settling.len() > 0 {
			a.settling.drop(a) // the oldest verdict's spans first: no trace is cut for them
		}
		for a.bytes > a.lim.Bytes && a.lru.Len() > 0 {
			victim := a.lru.Front().Value.(*pending)
			out = a.emit(out, a.close(victim, ClosedEvicted, now))
		}
	}
	return out
}

// Tick closes the traces whose grace period or idle timeout has passed.
func (a *Assembler) Tick(now int64) []Group {
	var out []Group
	for len(a.roots) > 0 && a.roots[0].deadline <= now {
		p := a.roots[0]
		a.roots = a.roots[1:]
		if a.open[p.id] == p {
			out = a.emit(out, a.close(p, ClosedRoot, now))
		}
	}
	for a.lru.Len() > 0 {
		p := a.lru.Front().Value.(*pending)
		if p.last+int64(a.lim.Idle) > now {
			break
		}
		out = a.emit(out, a.close(p, ClosedIdle, now))
	}
	a.settling.expire(a, now)
	return out
}

// Flush closes every open trace, oldest first: the input has ended.
func (a *Assembler) Flush() []Group {
	var out []Group
	for a.lru.Len() > 0 {
		out = a.emit(out, a.close(a.lru.Front().Value.(*pending), ClosedFlush, 0))
	}
	a.roots = nil
	for a.settling.len() > 0 {
		a.settling.drop(a) // the input has ended: no span can come late
	}
	return out
}

// emit appends g when there is one to evaluate.
func (a *Assembler) emit(out []Group, g *Group) []Group {
	if g != nil {
		out = append(out, *g)
	}
	return out
}

// close takes p out of the open traces and decides what becomes of it
// (settle.go): a group to evaluate, or nil.
func (a *Assembler) close(p *pending, reason string, now int64) *Group {
	a.lru.Remove(p.elem)
	delete(a.open, p.id)
	a.bytes -= p.bytes
	if reason != ClosedRoot && len(a.roots) > 0 && a.roots[0] == p {
		a.roots = a.roots[1:]
	}
	if len(a.roots) > 2*len(a.open)+16 {
		a.compactRoots()
	}
	incomplete := reason == ClosedEvicted || p.dropped > 0 || !p.rootEnd
	g := Group{TraceID: p.id, Spans: p.spans, Reason: reason, Dropped: p.dropped, Incomplete: incomplete, Seq: p.seq,
		Through: p.through}
	out := a.decide(p, g, now)
	p.spans, p.ids = nil, nil // a stale entry in roots must not keep them alive
	return out
}

// compactRoots drops the entries of closed traces from roots, keeping the
// deadline order. A trace closed while not first in roots leaves its entry
// behind; when time does not advance (a replay without timestamps) no
// deadline passes to pop it, so without this roots grows with the input.
// Called when stale entries outnumber open traces, it costs O(1) amortized.
func (a *Assembler) compactRoots() {
	live := a.roots[:0]
	for _, p := range a.roots {
		if a.open[p.id] == p {
			live = append(live, p)
		}
	}
	clear(a.roots[len(live):])
	a.roots = live
}
