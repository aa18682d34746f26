// settle.go: what becomes of a closed trace: a verdict to evaluate, its
// spans kept a while for late ones, or a part of a trace judged before; and
// when the input items of its spans are done with.

package ingest

import (
	"container/list"
	"sync"
)

// Prior is what is known of a trace's latest verdict: the greatest input
// item (Seq) whose spans it judged, and how many spans it judged. Spans
// only come in Seq order, so a span of that trace with Seq ≤ Through was
// judged by it, and one with a greater Seq came after it.
type Prior struct {
	Through uint64
	Spans   int
	First   bool   // the trace's first verdict (it superseded none)
	AgentID string // the trace's agent, when this assembler mapped it
}

// SeqCount is n spans of input item Seq.
type SeqCount struct {
	Seq uint64
	N   int
}

// Hold keeps the input items of a trace's spans unsettled while they may
// still be needed: until its verdict is recorded (Done, by the caller) and
// its spans are no longer kept for late ones (Done, by the assembler). The
// caller is then told (Assembler.Settle) that those items no longer hold
// anything unjudged: a checkpoint may pass them, a spool release them.
type Hold struct {
	mu     sync.Mutex
	seqs   []SeqCount
	refs   int
	settle func([]SeqCount)
}

func newHold(seqs []SeqCount, refs int, settle func([]SeqCount)) *Hold {
	return &Hold{seqs: seqs, refs: refs, settle: settle}
}

// NewHold is the hold of a whole trace read from input item seq: one
// reference, for its verdict.
func NewHold(seq uint64, settle func([]SeqCount)) *Hold {
	return newHold([]SeqCount{{seq, 1}}, 1, settle)
}

// Done releases one reference; the last one settles the items.
func (h *Hold) Done() {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.refs--
	var seqs []SeqCount
	if h.refs == 0 {
		seqs, h.seqs = h.seqs, nil
	}
	h.mu.Unlock()
	if len(seqs) > 0 && h.settle != nil {
		h.settle(seqs)
	}
}

// take moves the items away (to a reopened trace's next hold), releasing
// the assembler's reference: a verdict recorded later settles nothing.
func (h *Hold) take() {
	h.mu.Lock()
	h.seqs = nil
	h.mu.Unlock()
	h.Done()
}

// seqsOf counts spans by input item, in arrival order.
func seqsOf(spans []Span) []SeqCount {
	var out []SeqCount
	for _, sp := range spans {
		if n := len(out); n > 0 && out[n-1].Seq == sp.Seq {
			out[n-1].N++
			continue
		}
		out = append(out, SeqCount{sp.Seq, 1})
	}
	return out
}

func (a *Assembler) settle(seq uint64) {
	if a.Settle != nil {
		a.Settle([]SeqCount{{seq, 1}})
	}
}

// lookup returns the latest verdict of a trace: one this assembler gave,
// else one Known recorded.
func (a *Assembler) lookup(id string) (Prior, bool) {
	if p, ok := a.closed.get(id); ok {
		return p, true
	}
	if a.Known != nil {
		return a.Known(id)
	}
	return Prior{}, false
}

// decide is what becomes of a closed trace, the rule of docs/watch.md
// ("Late spans"):
//
//   - never judged: a first verdict;
//   - reopened by a late span while its spans were kept: a new verdict over
//     all of them, superseding the one before (Group.Prior);
//   - judged before (a restart reads its spans again): all the spans the
//     verdict judged and nothing more: the verdict stands, nothing is
//     evaluated, and the spans are kept as if it had just closed; all of
//     them and later ones: a new verdict over all; only some of them: a
//     part of a trace judged whole, dropped; some of them and later ones:
//     too late (Group.TooLate), the verdict stands and is marked.
func (a *Assembler) decide(p *pending, g Group, now int64) *Group {
	prior, known := p.prior, p.prior != nil
	if !known {
		var pr Prior
		if pr, known = a.lookup(p.id); known {
			prior = &pr
		}
	}
	keep := g.Reason != ClosedEvicted && g.Reason != ClosedFlush && a.lim.Idle > 0
	seqs := seqsOf(g.Spans)
	judge := func(g Group) *Group {
		v := Prior{Through: g.Through, Spans: len(g.Spans), First: g.Prior == nil}
		a.closed.add(p.id, v)
		a.closed.judge(p.id, g.Spans, false)
		refs := 1
		if keep {
			refs++
		}
		g.Hold = newHold(seqs, refs, a.Settle)
		if keep {
			a.settling.put(a, p, g.Spans, v, g.Hold, now)
		}
		return &g
	}
	if prior == nil || p.prior != nil {
		g.Prior = prior // before judge: the verdict is a first one when nil
		return judge(g)
	}
	judged := 0
	for _, sp := range g.Spans {
		if sp.Seq <= prior.Through {
			judged++
		}
	}
	late, whole := len(g.Spans)-judged, judged == prior.Spans
	switch {
	case late == 0 && whole:
		a.closed.add(p.id, *prior)
		a.closed.judge(p.id, g.Spans, false)
		if keep {
			a.settling.put(a, p, g.Spans, *prior, newHold(seqs, 1, a.Settle), now)
		} else if a.Settle != nil {
			a.Settle(seqs)
		}
		return nil
	case late == 0:
		a.closed.judge(p.id, g.Spans, true)
		if a.Settle != nil {
			a.Settle(seqs)
		}
		return nil
	case whole:
		g.Prior = prior
		return judge(g)
	}
	v := Prior{Through: max(prior.Through, g.Through), Spans: prior.Spans + late}
	a.closed.add(p.id, v)
	a.closed.judge(p.id, g.Spans, true)
	g.TooLate, g.Late, g.Prior = true, late, prior
	g.Hold = newHold(seqs, 1, a.Settle)
	out := g // a copy: g itself stays on the stack on the other paths
	return &out
}

// settleCache keeps closed traces' spans until --idle after they closed,
// within a quarter of the byte bound (and less when open traces want it),
// so that a late span reopens its trace with all of them.
type settleCache struct {
	byID  map[string]*kept
	order *list.List // of *kept, oldest close first
	bytes int
}

type kept struct {
	p       *pending
	verdict Prior
	hold    *Hold
	until   int64
	elem    *list.Element
}

func newSettleCache() settleCache {
	return settleCache{byID: map[string]*kept{}, order: list.New()}
}

func (c *settleCache) len() int { return c.order.Len() }

func (c *settleCache) get(id string) *kept { return c.byID[id] }

// put keeps the spans of p, closed, with the verdict they got.
func (c *settleCache) put(a *Assembler, p *pending, spans []Span, v Prior, h *Hold, now int64) {
	q := &pending{id: p.id, seq: p.seq, spans: spans, bytes: p.bytes + heldKept, rootEnd: p.rootEnd, dropped: p.dropped,
		ids: p.ids, through: p.through}
	k := &kept{p: q, verdict: v, hold: h, until: now + int64(a.lim.Idle)}
	k.elem = c.order.PushBack(k)
	c.byID[p.id] = k
	a.bytes += q.bytes
	c.bytes += q.bytes
	// A quarter of the byte bound at most: the open traces keep the rest.
	for c.bytes > a.lim.Bytes/4 && c.len() > 1 {
		c.drop(a)
	}
}

func (c *settleCache) remove(k *kept) {
	c.order.Remove(k.elem)
	delete(c.byID, k.p.id)
	c.bytes -= k.p.bytes
}

// drop forgets the oldest kept trace: its items settle once its verdict is
// recorded.
func (c *settleCache) drop(a *Assembler) {
	k := c.order.Front().Value.(*kept)
	c.remove(k)
	a.bytes -= k.p.bytes
	k.hold.Done()
}

// expire drops the traces kept past their time.
func (c *settleCache) expire(a *Assembler, now int64) {
	for c.order.Len() > 0 && c.order.Front().Value.(*kept).until <= now {
		c.drop(a)
	}
}

// reopen makes a kept trace open again, with its spans, for a late one.
func (a *Assembler) reopen(k *kept, now int64) *pending {
	a.settling.remove(k)
	p := k.p
	v := k.verdict
	p.prior = &v
	k.hold.take() // the items go with the spans, to the next verdict's hold
	p.elem = a.lru.PushBack(p)
	a.open[p.id] = p
	if p.rootEnd {
		p.deadline = now + int64(a.lim.Grace)
		a.roots = append(a.roots, p)
	}
	return p
}
