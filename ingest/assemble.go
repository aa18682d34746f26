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
	Bytes         int           // span bytes held over all open traces, Span.Size (default 32 MiB)
	Grace         time.Duration // how long after its root span ends a trace stays open for late children (default 5s)
	Idle          time.Duration // a trace with no new span for this long closes (default 60s)
	Remember      int           // ids of closed traces remembered to refuse late spans (default 65,536)
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

// Group is the spans of one trace, as the assembler hands them over.
type Group struct {
	TraceID string
	Spans   []Span
	Reason  string // one of the Closed* values
	Dropped int    // spans refused by the per-trace bound
	Seq     uint64 // Seq of the trace's first span
	// Incomplete: evicted, spans dropped, or closed before a root span ended.
	Incomplete bool
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
	ids      map[string]struct{} // span ids held: a re-delivered span is held once
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
	bytes      int
	closed     *recent
	Late       int // spans refused because their trace had closed
	Duplicates int // spans refused because their trace already held that span id
}

// NewAssembler returns an Assembler with the given limits.
func NewAssembler(lim Limits) *Assembler {
	lim = lim.withDefaults()
	return &Assembler{lim: lim, open: map[string]*pending{}, lru: list.New(), closed: newRecent(lim.Remember)}
}

// Open is the number of traces being assembled.
func (a *Assembler) Open() int { return len(a.open) }

// Add takes spans seen at now and returns the traces the bounds pushed out.
func (a *Assembler) Add(spans []Span, now int64) []Group {
	var out []Group
	for _, sp := range spans {
		if a.closed.has(sp.TraceID) {
			a.Late++
			continue
		}
		p := a.open[sp.TraceID]
		if p == nil {
			for len(a.open) >= a.lim.OpenTraces {
				out = append(out, a.close(a.lru.Front().Value.(*pending), ClosedEvicted))
			}
			p = &pending{id: sp.TraceID, seq: sp.Seq, ids: map[string]struct{}{}}
			p.elem = a.lru.PushBack(p)
			a.open[sp.TraceID] = p
		} else {
			a.lru.MoveToBack(p.elem)
		}
		p.last = now
		if _, dup := p.ids[sp.SpanID]; dup {
			a.Duplicates++ // at-least-once delivery sent it again
			continue
		}
		if len(p.spans) >= a.lim.SpansPerTrace {
			p.dropped++
			continue
		}
		p.spans = append(p.spans, sp)
		p.ids[sp.SpanID] = struct{}{}
		p.bytes += sp.Size
		a.bytes += sp.Size
		if sp.ParentID == "" && !p.rootEnd {
			p.rootEnd = true
			p.deadline = now + int64(a.lim.Grace)
			a.roots = append(a.roots, p)
		}
		for a.bytes > a.lim.Bytes && a.lru.Len() > 0 {
			victim := a.lru.Front().Value.(*pending)
			out = append(out, a.close(victim, ClosedEvicted))
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
			out = append(out, a.close(p, ClosedRoot))
		}
	}
	for a.lru.Len() > 0 {
		p := a.lru.Front().Value.(*pending)
		if p.last+int64(a.lim.Idle) > now {
			break
		}
		out = append(out, a.close(p, ClosedIdle))
	}
	return out
}

// Flush closes every open trace, oldest first: the input has ended.
func (a *Assembler) Flush() []Group {
	var out []Group
	for a.lru.Len() > 0 {
		out = append(out, a.close(a.lru.Front().Value.(*pending), ClosedFlush))
	}
	a.roots = nil
	return out
}

func (a *Assembler) close(p *pending, reason string) Group {
	a.lru.Remove(p.elem)
	delete(a.open, p.id)
	a.bytes -= p.bytes
	a.closed.add(p.id)
	if reason != ClosedRoot && len(a.roots) > 0 && a.roots[0] == p {
		a.roots = a.roots[1:]
	}
	if len(a.roots) > 2*len(a.open)+16 {
		a.compactRoots()
	}
	incomplete := reason == ClosedEvicted || p.dropped > 0 || !p.rootEnd
	g := Group{TraceID: p.id, Spans: p.spans, Reason: reason, Dropped: p.dropped, Incomplete: incomplete, Seq: p.seq}
	p.spans, p.ids = nil, nil // a stale entry in roots must not keep them alive
	return g
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

// recent is a bounded set of trace ids, oldest forgotten first.
type recent struct {
	max  int
	set  map[string]struct{}
	ring []string
	next int
}

func newRecent(max int) *recent { return &recent{max: max, set: map[string]struct{}{}} }

func (r *recent) has(id string) bool { _, ok := r.set[id]; return ok }

func (r *recent) add(id string) {
	if len(r.ring) < r.max {
		r.ring = append(r.ring, id)
	} else {
		delete(r.set, r.ring[r.next])
		r.ring[r.next] = id
		r.next = (r.next + 1) % r.max
	}
	r.set[id] = struct{}{}
}
