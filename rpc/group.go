// group.go: pipelined requests handed over and answered in groups: one hand-off, one write, one wake-up per group.

package rpc

import (
	"bytes"
	"runtime"
	"sync"
	"time"
)

// A pipelining SDK has many small requests buffered at once. Handed over
// one by one, each would pay for a wake-up, a copy of its line, semaphore
// and lock traffic and a write of its own (docs/performance.md, "All cores
// when pipelining, in groups", has the figures). So the read loop takes the
// complete lines that are buffered behind the one it read (sniffed as
// evaluate_batch or validate_trace_tree, small, each with a free slot) into
// a group, with one copy of their bytes. Idle helpers, one per processor beyond the read
// loop's own, take the first lines of a burst in shares; the read loop
// answers the last share itself, whose lines it has just copied. A group's
// requests are answered in turn, their answers gathered and handed to the
// line writer together (answerGroup bounds how long one waits), which does
// not make the group wait for a write in progress (lineWriter.hand). Each request keeps its slot until its
// answer is written, so the in-flight bound and the backpressure of spec
// §1.5 are unchanged: a group is at most maxGroupBytes of lines, and there
// are never more groups than slots. A request of layer 5–6 in a group is
// handed to a worker of its own (it waits on a provider, and the requests
// behind it must not, spec §1.5); answers of different groups may come out
// of order, as spec §1.5 allows.

// maxGroupBytes bounds the lines of a group (a first line may be up to
// inlineMaxBytes alone).
const maxGroupBytes = 64 << 10

// maxGroupOut bounds the answers' buffer a group keeps for reuse.
const maxGroupOut = 1 << 20

// group is pipelined requests, read from the input one after the other,
// answered in turn by one goroutine.
type group struct {
	lines []byte    // the requests' lines, back to back
	ends  []int     // where each line ends in lines
	fns   []handler // each line's method
	out   []byte    // the answers not yet handed to the writer
	slots int       // slots of the requests answered in out (a notification's too)
}

var groups = sync.Pool{New: func() any { return new(group) }}

// add appends a line that holds a slot.
func (g *group) add(line []byte, fn handler) {
	g.lines = append(g.lines, line...)
	g.ends = append(g.ends, len(g.lines))
	g.fns = append(g.fns, fn)
}

// recycle empties g and puts it back in the pool.
func (g *group) recycle() {
	if cap(g.out) > maxGroupOut {
		g.out = nil
	}
	g.lines, g.ends, g.fns, g.out, g.slots = g.lines[:0], g.ends[:0], g.fns[:0], g.out[:0], 0
	groups.Put(g)
}

// gather answers first, a line the read loop has read, and the complete
// lines buffered behind it that may join it, in groups: shares of the
// burst go to idle helpers, and the read loop answers the rest itself.
// While every slot is taken it blocks before taking first, and so the read
// loop stops reading (spec §1.5).
func (s *Server) gather(first []byte, fn handler) {
	if !s.acquire(true) {
		s.refuse(&call{line: first, fn: fn})
		return
	}
	// A helper's share: the burst's bytes split evenly between the
	// processors, helpers and read loop.
	share := (len(first) + s.lines.r.Buffered() + s.lanes - 1) / s.lanes
	g := groups.Get().(*group)
	g.add(first, fn)
	for {
		if s.helperFree() {
			s.fill(g, share)
			if s.giveAway(g) {
				if g = s.next(); g == nil {
					return
				}
				continue
			}
		}
		s.fill(g, maxGroupBytes)
		s.answerGroup(g)
		return
	}
}

// fill adds to g the complete lines buffered next while they may join a
// group, until g holds size bytes of lines.
func (s *Server) fill(g *group, size int) {
	for len(g.lines) < size {
		line, fn := s.peekLine()
		if line == nil || len(g.lines)+len(line) > maxGroupBytes || !s.acquire(false) {
			return
		}
		g.add(line, fn)
		s.lines.r.Discard(len(line) + 1)
	}
}

// next is a new group with the next buffered line, or nil when no line
// may join one now.
func (s *Server) next() *group {
	line, fn := s.peekLine()
	if line == nil || !s.acquire(false) {
		return nil
	}
	g := groups.Get().(*group)
	g.add(line, fn)
	s.lines.r.Discard(len(line) + 1)
	return g
}

// peekLine is the next buffered line, without its LF, when it is complete
// and may join a group: small, and sniffed as a method read from the tape
// on a worker. It stays in the buffer until the caller discards it.
func (s *Server) peekLine() ([]byte, handler) {
	buf, _ := s.lines.r.Peek(s.lines.r.Buffered())
	end := bytes.IndexByte(buf, '\n')
	if end < 0 || end > min(inlineMaxBytes, s.maxLine) {
		return nil, nil
	}
	line := buf[:end]
	fn := tapeMethod(line)
	if fn == nil {
		return nil, nil
	}
	return line, fn
}

// helperFree reports whether a helper may take a group now: one is idle,
// or another may start.
func (s *Server) helperFree() bool {
	return s.idle.Load() > 0 || s.helpers < s.lanes-1
}

// giveAway hands g to an idle helper, or to a new one while there are
// fewer than one per processor beyond the read loop. It reports false
// when every helper is busy.
func (s *Server) giveAway(g *group) bool {
	select {
	case s.groups <- g:
		return true
	default:
	}
	if s.helpers >= s.lanes-1 {
		return false
	}
	s.helpers++
	go s.helper(g)
	return true
}

// helper answers groups until Serve has returned.
func (s *Server) helper(g *group) {
	for {
		s.answerGroup(g)
		s.idle.Add(1)
		select {
		case g = <-s.groups:
			s.idle.Add(-1)
		case <-s.quit:
			return
		}
	}
}

// answerGroup answers g's requests in turn and hands their answers to the
// line writer in one piece, or in a few: as held answers (lineWriter), an
// answer waits for the group's later ones while they take maxHoldFor, and
// then only for the one being answered (a group is ~20 SDK batches of a
// few µs each: a timer per group cost more than that bound is worth), and
// maxHeldBytes of answers leave at once.
func (s *Server) answerGroup(g *group) {
	start, last := 0, len(g.ends)-1
	var first time.Time // when the oldest answer in g.out was ready
	for i, end := range g.ends {
		s.answerGrouped(g, g.lines[start:end], g.fns[i])
		start = end
		if g.slots == 0 || i == last {
			continue
		}
		// After the first, a reading of the monotonic clock alone
		// (time.Since: ~20 ns here, time.Now ~40).
		held := time.Duration(0)
		if first.IsZero() {
			first = time.Now()
		} else {
			held = time.Since(first)
		}
		if held >= maxHoldFor || len(g.out) >= maxHeldBytes {
			s.wrote(s.out.hand(g.out, g.slots))
			g.out, g.slots, first = g.out[:0], 0, time.Time{}
		}
	}
	s.wrote(s.out.hand(g.out, g.slots))
	g.recycle()
}

// answerGrouped answers one request of g into g.out, or hands it to a
// worker of its own, with its slot, when it is costly. A panic is answered
// at once (3001), as run answers one.
func (s *Server) answerGrouped(g *group, line []byte, fn handler) {
	c := call{fn: fn}
	kept := true // the request's slot is freed with g's answers, not by a worker
	defer func() {
		if p := recover(); p != nil {
			s.answerPanic(c.req, "recovered panic", p)
		}
		c.req.release()
		if kept {
			g.slots++
		}
	}()
	c.req, c.perr = s.parseBatch(line)
	if c.perr == nil && costly(c.req) {
		// The group's bytes are reused once it is answered: the worker
		// decodes its own copy again (a costly batch waits on providers
		// far longer than a decode takes).
		c.req.release()
		kept = false
		s.start(&call{line: bytes.Clone(line), fn: fn}, false)
		return
	}
	answer := s.work(&c)
	if c.req == nil || !c.req.notification {
		g.out = append(g.out, answer...)
	}
}

// lanes is how many goroutines answer groups at once: the read loop and a
// helper for every further processor.
func lanes() int { return max(runtime.GOMAXPROCS(0), 1) }
