// handoff.go: the requests the listener took, handed to the pipeline one at a time in the order they were taken (the spool's), each chunk by chunk, after their answer.

package watch

import (
	"sync"

	"attest-engine/ingest"
)

// handoff is the queue of requests answered 200 and not yet handed to the
// pipeline. One goroutine (run) hands them on in the order they were
// taken: with --state-dir that is the spool's order, in which the ledger
// counts items. A request holds its share of the body budget until its
// last chunk is handed on.
type handoff struct {
	mu     sync.Mutex
	queue  []takenReq
	wake   chan struct{} // a request was queued, or the queue closed
	closed bool
	done   chan struct{} // run has handed on everything and returned
}

// takenReq is a request answered 200: its spans, what it holds of the
// body budget, and its spool number (0 without a spool).
type takenReq struct {
	req  *ingest.Request
	held int64
	seq  uint64
}

func newHandoff() *handoff {
	return &handoff{wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// push queues a taken request; false once the queue is closed (the
// request must then be refused, not acknowledged).
func (h *handoff) push(t takenReq) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.queue = append(h.queue, t)
	select {
	case h.wake <- struct{}{}:
	default:
	}
	return true
}

// closing reports whether the queue takes no more requests.
func (h *handoff) closing() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

// close refuses further requests and waits until every one queued is
// handed on in full (or the pipeline is abandoned).
func (h *handoff) close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
	<-h.done
}

// run hands the queued requests on until the queue is closed and empty.
// An acknowledged request is handed on in full, even while the command
// stops; only an abandoned pipeline (the output failed: the command is
// ending with an error) cuts it short, and then what is left is dropped.
func (c *command) runHandoff(h *handoff) {
	defer close(h.done)
	for {
		h.mu.Lock()
		if len(h.queue) == 0 {
			closed := h.closed
			h.mu.Unlock()
			if closed {
				return
			}
			<-h.wake
			continue
		}
		t := h.queue[0]
		h.queue[0] = takenReq{}
		h.queue = h.queue[1:]
		h.mu.Unlock()
		if t.req.Spans() == 0 {
			// Nothing to assemble, but a spooled request is still an item
			// for the ledger to count and settle.
			c.send(c.abandon, ingest.Item{Seq: t.seq})
		}
		part := 0
		t.req.Each(func(spans []ingest.Span, more bool) error {
			err := c.send(c.abandon, ingest.Item{Spans: spans, Seq: t.seq, Part: part, More: more})
			part++
			return err
		})
		c.bodies.release(t.held)
	}
}
