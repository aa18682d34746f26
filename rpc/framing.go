// framing.go: NDJSON framing (spec §1.2): bounded line reads in, whole-line writes out.

package rpc

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"sync"
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
// lines never interleave (spec §1.2: one message per line). When several
// answers are ready at once, the goroutine that is writing takes the ones
// that queued up behind it into its next write, so a burst of answers costs
// a few system calls instead of one each. A queued caller still waits until
// its line is written: requests keep their slot until then, so an SDK that
// stops reading stops the engine reading too (spec §1.5), and nothing piles
// up in memory.
type lineWriter struct {
	w      io.Writer
	others func() bool // other requests are in flight (nil: never wait)

	mu      sync.Mutex
	done    *sync.Cond // broadcast when a batch of queued lines is written, or on error
	writing bool       // a goroutine is in w.Write
	pending []byte     // whole lines queued while writing: the batch now filling
	spare   []byte     // the previous pending buffer, reused
	batch   uint64     // number of the batch filling in pending
	written uint64     // batches written so far
	err     error
}

// maxSpare bounds the pending buffer kept for reuse. Pending holds at most
// one answer per slot (MaxInFlight) plus the read loop's, since every caller
// waits for its line to be written; a burst of large answers needs a large
// buffer once, which is then not kept for the rest of the session.
const maxSpare = 1 << 20

func (lw *lineWriter) write(line []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.done == nil {
		lw.done = sync.NewCond(&lw.mu)
	}
	if lw.err != nil {
		return lw.err
	}
	if !lw.writing && lw.others != nil && lw.others() {
		// Other requests are in flight: yield once before writing, so that
		// answers finishing now queue behind this one and share its write.
		lw.mu.Unlock()
		runtime.Gosched()
		lw.mu.Lock()
	}
	if lw.writing {
		lw.pending = append(lw.pending, line...)
		mine := lw.batch
		for lw.written <= mine && lw.err == nil {
			lw.done.Wait()
		}
		return lw.err
	}
	lw.writing = true
	buf, own := line, false // own: buf is a queued batch, not the caller's line
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
		lw.done.Broadcast()
		if len(lw.pending) == 0 || lw.err != nil {
			lw.writing = false
			return lw.err
		}
		buf, lw.pending, own = lw.pending, lw.spare, true
		lw.spare = nil
		lw.batch++ // lines queued from now on go in the next batch
	}
}

// failed reports the first write error, if any.
func (lw *lineWriter) failed() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.err
}
