// framing.go: NDJSON framing (spec §1.2): bounded line reads in, whole-line writes out.

package rpc

import (
	"bufio"
	"bytes"
	"io"
	"sync"
	"time"
)

// lineReader reads LF-terminated lines, holding at most max bytes of any one
// line in memory. A longer line is consumed to its end and reported as too
// long, with the first prefixLen bytes kept so that its id can be recovered.
type lineReader struct {
	r      *bufio.Reader
	max    int
	buf    []byte
	chunks [][]byte // a large line's full chunks, before buf (see next)
	hint   int      // capacity for the next large line: the last detached one's size, plus room
	joined bool     // the last line was gathered in chunks (its chunks are garbage now)
}

const (
	prefixLen = 64 << 10
	// chunkLen: past this, a line of unknown size is gathered in chunks of
	// this size and joined once its length is known (see next).
	chunkLen = 1 << 20
)

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its LF. When the line exceeded the
// limit, tooLong is true, line holds its first bytes and size its full length.
// The returned slice is valid until the next call. At end of input err is
// io.EOF (a final line without LF is still returned first).
//
// Memory: a line longer than chunkLen is gathered in chunkLen pieces and
// copied once into a buffer of its exact length. Growing one buffer by
// doubling instead would hold up to 1.5× the line in the old and new buffers
// while copying, and keep up to 2× it for the request's whole life. A large
// line after a detached one goes straight into a buffer of that line's size
// (hint), with no copy at all when it fits.
func (lr *lineReader) next() (line []byte, size int, tooLong bool, err error) {
	lr.buf = lr.buf[:0]
	lr.chunks = lr.chunks[:0]
	lr.joined = false
	held := 0 // bytes in lr.chunks
	for {
		chunk, err := lr.r.ReadSlice('\n')
		size += len(chunk)
		if !tooLong {
			if held+len(lr.buf)+len(chunk) > lr.max+1 { // +1: the LF itself
				tooLong = true
				lr.buf = lr.prefix(held)
				lr.chunks, held = lr.chunks[:0], 0
				if keep := min(prefixLen-len(lr.buf), len(chunk)); keep > 0 {
					lr.buf = append(lr.buf, chunk[:keep]...)
				}
			} else {
				lr.grow(len(chunk))
				if len(lr.buf)+len(chunk) > cap(lr.buf) && cap(lr.buf) >= chunkLen {
					// This chunk is full: start the next one.
					n := cap(lr.buf) - len(lr.buf)
					lr.buf = append(lr.buf, chunk[:n]...)
					lr.chunks = append(lr.chunks, lr.buf)
					held += len(lr.buf)
					lr.buf = make([]byte, 0, chunkLen)
					chunk = chunk[n:]
				}
				lr.buf = append(lr.buf, chunk...)
			}
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
			size-- // the LF
			lr.join(held)
			return bytes.TrimSuffix(lr.buf, []byte("\n")), size, tooLong, nil
		default:
			if size == 0 {
				return nil, 0, false, err
			}
			lr.join(held)
			// The +1 allowance above is for an LF; a last line has none,
			// so one byte past the limit is too long here.
			if !tooLong && size > lr.max {
				tooLong = true
				lr.buf = lr.buf[:min(len(lr.buf), prefixLen)]
			}
			return lr.buf, size, tooLong, nil // last line without LF; EOF comes next call
		}
	}
}

// grow makes room in buf for n more bytes before a line reaches chunkLen:
// to the hint's size for a large line again, else by appending's doubling.
func (lr *lineReader) grow(n int) {
	need := len(lr.buf) + n
	if need <= cap(lr.buf) || len(lr.chunks) > 0 {
		return
	}
	switch {
	case need > chunkLen && lr.hint >= need:
		lr.buf = append(make([]byte, 0, lr.hint), lr.buf...)
	case need > chunkLen && cap(lr.buf) < chunkLen:
		lr.buf = append(make([]byte, 0, chunkLen), lr.buf...)
	}
}

// join puts a chunked line together in one buffer of its exact length.
func (lr *lineReader) join(held int) {
	if len(lr.chunks) == 0 {
		return
	}
	lr.joined = true
	whole := make([]byte, 0, held+len(lr.buf))
	for _, c := range lr.chunks {
		whole = append(whole, c...)
	}
	lr.buf = append(whole, lr.buf...)
	clear(lr.chunks)
	lr.chunks = lr.chunks[:0]
}

// prefix is the first prefixLen bytes of the line gathered so far.
func (lr *lineReader) prefix(held int) []byte {
	if held == 0 {
		return lr.buf[:min(len(lr.buf), prefixLen)]
	}
	first := lr.chunks[0] // chunkLen ≥ prefixLen
	return append(make([]byte, 0, prefixLen), first[:prefixLen]...)
}

// detach hands the current line's buffer to the caller: the reader starts
// the next line in a fresh buffer. A large line then lives only as long as
// its request needs it, instead of being copied or kept by the reader.
func (lr *lineReader) detach() {
	lr.hint = len(lr.buf) + prefixLen // room for a line a little longer; a much longer one is chunked
	lr.buf = nil
}

// lineWriter writes whole lines: a line is never split across writes, and
// lines never interleave (spec §1.2: one message per line). Answers share
// writes in two ways. While one goroutine is writing, lines that arrive
// queue behind it and leave together in its next write. And a request's
// answer (write with hold) that is ready while other requests are still
// being worked on is held back for them, so that a pipelining SDK gets its
// answers a batch at a time: a write is a system call and a wake-up of the
// SDK, which cost more than evaluating a small batch. A hold ends when the
// last request still worked on answers, when maxHeld answers wait, or after
// maxHoldFor at the latest: an answer never waits on a slow request longer.
// A queued or held caller still waits until its line is written: requests
// keep their slot until then, so an SDK that stops reading stops the engine
// reading too (spec §1.5), and nothing piles up in memory. A group's
// answers (hand) do not wait: queued behind a write, they go out with the
// writer's next one, and their slots are freed (done) once they are
// written, so the same holds.
type lineWriter struct {
	w        io.Writer
	inFlight func() int    // requests in flight, each until its answer is written (nil: never hold)
	holdFor  time.Duration // the longest hold; 0 means maxHoldFor
	freed    func(n int)   // frees the slots of n handed requests once their answers are written (nil: none)

	mu      sync.Mutex
	done    *sync.Cond  // broadcast when a batch of queued lines is written, or on error
	writing bool        // a goroutine is in w.Write
	pending []byte      // whole lines queued or held: the batch now filling
	queued  int         // lines in pending whose callers wait
	handed  int         // slots of the handed answers in pending (hand)
	spare   []byte      // the previous pending buffer, reused
	batch   uint64      // number of the batch filling in pending
	written uint64      // batches written so far
	timer   *time.Timer // ends a hold (holdFor)
	err     error
}

// maxSpare bounds the pending buffer kept for reuse. Pending holds at most
// one answer per slot (MaxInFlight) plus the read loop's, since every caller
// waits for its line to be written; a burst of large answers needs a large
// buffer once, which is then not kept for the rest of the session.
const maxSpare = 1 << 20

// Bounds of a hold: answers held at once, their bytes, and how long the
// first of them waits at most.
const (
	maxHeld      = 16
	maxHeldBytes = 256 << 10
	maxHoldFor   = 200 * time.Microsecond
)

// write writes line, or queues it behind the write in progress. With hold,
// line is a request's answer that may be held for others (see lineWriter).
func (lw *lineWriter) write(line []byte, hold bool) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.done == nil {
		lw.done = sync.NewCond(&lw.mu)
	}
	if lw.err != nil {
		return lw.err
	}
	if !lw.writing && hold && lw.holds(len(line)) {
		if lw.queued == 0 {
			lw.armTimer()
		}
	} else if !lw.writing {
		return lw.flush(line)
	}
	lw.pending = append(lw.pending, line...)
	lw.queued++
	mine := lw.batch
	for lw.written <= mine && lw.err == nil {
		lw.done.Wait()
	}
	return lw.err
}

// holds reports whether an answer of n bytes is held: some other request in
// flight is still being worked on (neither queued here nor this one), and
// the hold is within its bounds.
func (lw *lineWriter) holds(n int) bool {
	return lw.inFlight != nil && lw.inFlight()-1-lw.queued > 0 &&
		lw.queued < maxHeld && len(lw.pending)+n <= maxHeldBytes
}

// armTimer starts the time bound of the hold that begins now.
func (lw *lineWriter) armTimer() {
	d := lw.holdFor
	if d <= 0 {
		d = maxHoldFor
	}
	if lw.timer == nil {
		lw.timer = time.AfterFunc(d, lw.endHold)
		return
	}
	lw.timer.Reset(d)
}

// hand writes lines, the answers of n requests that hold a slot each
// (one group's, group.go), without waiting for a write in progress:
// queued behind it, they leave with that writer's next write. Either way
// their slots are freed once they are written; lines held for others
// (write with hold) leave with them at once. A group's answers are
// already a batch, so they are never held themselves.
// It returns the error of a write it made itself (a queued write's error
// is its writer's to report).
func (lw *lineWriter) hand(lines []byte, n int) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.done == nil {
		lw.done = sync.NewCond(&lw.mu)
	}
	switch {
	case lw.err != nil || len(lines) == 0:
		lw.free(n) // nothing to write, or nothing can be written
	case lw.writing:
		lw.pending = append(lw.pending, lines...)
		lw.handed += n
	default:
		return lw.flushHanded(lines, n)
	}
	return nil
}

// free frees n handed requests' slots.
func (lw *lineWriter) free(n int) {
	if n > 0 && lw.freed != nil {
		lw.freed(n)
	}
}

// endHold writes the held lines, unless a write has taken them already.
func (lw *lineWriter) endHold() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if !lw.writing && lw.queued > 0 && lw.err == nil {
		_ = lw.flush(nil)
	}
}

// flush writes line (nil at the end of a hold) with the lines held before
// it, then every batch that queues up meanwhile, as the writing goroutine.
// lw.mu is held, and released while writing.
func (lw *lineWriter) flush(line []byte) error { return lw.flushHanded(line, 0) }

// flushHanded is flush for a line that carries n handed requests' slots.
func (lw *lineWriter) flushHanded(line []byte, n int) error {
	lw.writing = true
	// own: buf is a queued batch, not the caller's line; slots: the
	// handed requests whose answers buf holds.
	buf, own, slots := line, false, n
	if len(lw.pending) > 0 {
		lw.pending = append(lw.pending, line...) // one write for all
		lw.handed += n
		buf, own, slots = lw.take()
	}
	for {
		lw.mu.Unlock()
		_, err := lw.w.Write(buf)
		lw.mu.Lock()
		if err != nil && lw.err == nil {
			lw.err = err
		}
		if own {
			lw.written++
			if cap(buf) <= maxSpare {
				lw.spare = buf[:0] // free again
			}
		}
		lw.free(slots)
		lw.done.Broadcast()
		if lw.err != nil {
			// Nothing more can be written: the handed answers' slots go
			// now, the waiting callers return the error.
			lw.free(lw.handed)
			lw.handed = 0
		}
		if len(lw.pending) == 0 || lw.err != nil {
			lw.writing = false
			return lw.err
		}
		buf, own, slots = lw.take()
	}
}

// take hands the pending batch to the writer; lines queued from now on go
// in the next batch. A hold in progress ends with it.
func (lw *lineWriter) take() ([]byte, bool, int) {
	buf, slots := lw.pending, lw.handed
	lw.pending, lw.spare, lw.queued, lw.handed = lw.spare, nil, 0, 0
	lw.batch++
	if lw.timer != nil {
		lw.timer.Stop()
	}
	return buf, true, slots
}

// failed reports the first write error, if any.
func (lw *lineWriter) failed() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.err
}
