// feed.go: items in, traces out one at a time: Attest traces pass straight through, OTLP spans go through the assembler.

package ingest

// Feed turns input items into traces ready for evaluation, handed out one
// at a time by Next. Closed traces wait as their spans (what the assembler
// held of them) and are mapped to Attest traces only when taken, so what a
// Feed holds at once is its assembler's bounds, what one item closed, and
// one mapped trace, however many traces an item or a tick closes. It is
// not safe for concurrent use.
type Feed struct {
	asm   *Assembler
	mp    *Mapper
	mark  int64 // event-time watermark: the latest span end seen
	Clock func() int64
	ready []readyTrace // closed, in order, not yet taken
	first int          // ready[first:] are waiting
}

// readyTrace is an Attest trace, or the spans of a closed OTLP trace.
type readyTrace struct {
	trace *Trace
	group Group
}

// NewFeed returns a Feed. With clock nil, time is the event-time watermark
// (the latest span end time read so far), so which spans make up a trace
// depends only on the input; with a clock (the wall clock, for --follow and
// --listen), traces also close while no input arrives, through Tick.
func NewFeed(lim Limits, warn *Warnings, clock func() int64) *Feed {
	return &Feed{asm: NewAssembler(lim), mp: &Mapper{Warn: warn}, Clock: clock}
}

// Open is the number of traces being assembled.
func (f *Feed) Open() int { return f.asm.Open() }

// Late is the number of spans that came after their trace had closed.
func (f *Feed) Late() int { return f.asm.Late }

// Duplicates is the number of spans refused as re-deliveries.
func (f *Feed) Duplicates() int { return f.asm.Duplicates }

// Ready is the number of closed traces waiting to be taken by Next.
func (f *Feed) Ready() int { return len(f.ready) - f.first }

func (f *Feed) now() int64 {
	if f.Clock != nil {
		return f.Clock()
	}
	return f.mark
}

// Add takes one input item; the traces it closes wait for Next, in order.
func (f *Feed) Add(it Item) {
	if it.Trace != nil {
		t := *it.Trace
		t.Seq = it.Seq
		t.Hold = NewHold(it.Seq, f.asm.Settle)
		if t.Err == nil {
			t.Through = it.Seq // the item that holds it: a restart tells it judged by that
		}
		f.ready = append(f.ready, readyTrace{trace: &t})
		return
	}
	if len(it.Spans) == 0 {
		return
	}
	for i := range it.Spans {
		it.Spans[i].Seq = it.Seq
		f.mark = max(f.mark, it.Spans[i].End, it.Spans[i].Start)
	}
	now := f.now()
	f.groups(f.asm.Add(it.Spans, now))
	f.groups(f.asm.Tick(now))
}

// Tick closes what the clock says is due (Clock set only).
func (f *Feed) Tick() { f.groups(f.asm.Tick(f.now())) }

// Flush closes every open trace: the input has ended.
func (f *Feed) Flush() { f.groups(f.asm.Flush()) }

func (f *Feed) groups(gs []Group) {
	for _, g := range gs {
		f.ready = append(f.ready, readyTrace{group: g})
	}
}

// Next hands out the next closed trace, mapped (false when none waits).
func (f *Feed) Next() (Trace, bool) {
	if f.first == len(f.ready) {
		return Trace{}, false
	}
	r := f.ready[f.first]
	f.ready[f.first] = readyTrace{} // taken: its spans are the trace's now
	f.first++
	if f.first == len(f.ready) {
		f.ready, f.first = f.ready[:0], 0
	} else if f.first > 64 && 2*f.first > len(f.ready) {
		n := copy(f.ready, f.ready[f.first:])
		clear(f.ready[n:])
		f.ready, f.first = f.ready[:n], 0
	}
	if r.trace != nil {
		return *r.trace, true
	}
	g := r.group
	if g.TooLate {
		return Trace{ID: g.TraceID, AgentID: g.Prior.AgentID, Format: FormatOTLP, Seq: g.Seq, Through: g.Through,
			Spans: g.Prior.Spans + g.Late, Prior: g.Prior, TooLate: true, Late: g.Late, Hold: g.Hold}, true
	}
	t := f.mp.Trace(g)
	t.Through, t.Spans, t.Prior, t.Hold = g.Through, len(g.Spans), g.Prior, g.Hold
	if p, ok := f.asm.closed.get(g.TraceID); ok && p.AgentID != t.AgentID {
		p.AgentID = t.AgentID // for a too-late verdict's filter
		f.asm.closed.add(g.TraceID, p)
	}
	return t, true
}

// OnSettle sets the function told of input items whose spans are done
// with (Hold); for a whole trace, once its Hold is Done.
func (f *Feed) OnSettle(fn func([]SeqCount)) { f.asm.Settle = fn }

// KnownBy sets where the assembler looks up a trace's verdict it does not
// remember itself (one recorded before a restart).
func (f *Feed) KnownBy(fn func(traceID string) (Prior, bool)) { f.asm.Known = fn }

// Mark is the event-time watermark: the latest span end read.
func (f *Feed) Mark() int64 { return f.mark }

// SetMark restores the watermark of a resumed input (its checkpoint).
func (f *Feed) SetMark(m int64) { f.mark = m }
