// feed.go: items in, traces out: Attest traces pass straight through, OTLP spans go through the assembler.

package ingest

// Feed turns input items into traces ready for evaluation. It is not safe
// for concurrent use.
type Feed struct {
	asm   *Assembler
	mp    *Mapper
	mark  int64 // event-time watermark: the latest span end seen
	Clock func() int64
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

func (f *Feed) now() int64 {
	if f.Clock != nil {
		return f.Clock()
	}
	return f.mark
}

// Item takes one input item and returns the traces now ready, in order.
func (f *Feed) Item(it Item) []Trace {
	if it.Trace != nil {
		t := *it.Trace
		t.Seq = it.Seq
		t.Hold = NewHold(it.Seq, f.asm.Settle)
		if t.Err == nil {
			t.Through = it.Seq // the item that holds it: a restart tells it judged by that
		}
		return []Trace{t}
	}
	if len(it.Spans) == 0 {
		return nil
	}
	for i := range it.Spans {
		it.Spans[i].Seq = it.Seq
		f.mark = max(f.mark, it.Spans[i].End, it.Spans[i].Start)
	}
	now := f.now()
	out := f.traces(f.asm.Add(it.Spans, now))
	return append(out, f.traces(f.asm.Tick(now))...)
}

// Tick closes what the clock says is due (Clock set only).
func (f *Feed) Tick() []Trace { return f.traces(f.asm.Tick(f.now())) }

// Flush closes every open trace: the input has ended.
func (f *Feed) Flush() []Trace { return f.traces(f.asm.Flush()) }

func (f *Feed) traces(gs []Group) []Trace {
	if len(gs) == 0 {
		return nil
	}
	out := make([]Trace, len(gs))
	for i, g := range gs {
		if g.TooLate {
			out[i] = Trace{ID: g.TraceID, AgentID: g.Prior.AgentID, Format: FormatOTLP, Seq: g.Seq, Through: g.Through,
				Spans: g.Prior.Spans + g.Late, Prior: g.Prior, TooLate: true, Late: g.Late, Hold: g.Hold}
			continue
		}
		out[i] = f.mp.Trace(g)
		out[i].Through, out[i].Spans, out[i].Prior, out[i].Hold = g.Through, len(g.Spans), g.Prior, g.Hold
		if p, ok := f.asm.closed.get(g.TraceID); ok && p.AgentID != out[i].AgentID {
			p.AgentID = out[i].AgentID // for a too-late verdict's filter
			f.asm.closed.add(g.TraceID, p)
		}
	}
	return out
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
