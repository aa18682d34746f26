// framing.go: NDJSON framing (spec §1.2): bounded line reads in, whole-line writes out.

package rpc

import (
	"bufio"
	"bytes"
	"io"
	"sync"
)

// lineReader reads LF-terminated lines, holding at most max bytes of any one
// line in memory. A longer line is consumed to its end and reported as too
// long, with the first prefixLen bytes kept so that its id can be recovered.
type lineReader struct {
	r    *bufio.Reader
	max  int
	buf  []byte
	hint int // capacity for the next large line: the last detached one's size, plus room
}

const prefixLen = 64 << 10

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its LF. When the line exceeded the
// limit, tooLong is true, line holds its first bytes and size its full length.
// The returned slice is valid until the next call. At end of input err is
// io.EOF (a final line without LF is still returned first).
func (lr *lineReader) next() (line []byte, size int, tooLong bool, err error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		size += len(chunk)
		if !tooLong {
			if len(lr.buf)+len(chunk) > lr.max+1 { // +1: the LF itself
				tooLong = true
				keep := min(prefixLen-len(lr.buf), len(chunk))
				if keep > 0 {
					lr.buf = append(lr.buf, chunk[:keep]...)
				}
			} else {
				if need := len(lr.buf) + len(chunk); need > cap(lr.buf) && need > 1<<20 && lr.hint > need {
					// A large line again (past 1 MiB): grow once to the size
					// of the last one rather than by doubling, which copies
					// and faults in about twice the memory.
					grown := make([]byte, len(lr.buf), lr.hint)
					copy(grown, lr.buf)
					lr.buf = grown
				}
				lr.buf = append(lr.buf, chunk...)
			}
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
			size-- // the LF
			line = bytes.TrimSuffix(lr.buf, []byte("\n"))
			return line, size, tooLong, nil
		default:
			if size == 0 {
				return nil, 0, false, err
			}
			return lr.buf, size, tooLong, nil // last line without LF; EOF comes next call
		}
	}
}

// detach hands the current line's buffer to the caller: the reader starts
// the next line in a fresh buffer. A large line then lives only as long as
// its request needs it, instead of being copied or kept by the reader.
func (lr *lineReader) detach() {
	lr.hint = len(lr.buf) + len(lr.buf)/8
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
	w io.Writer

	mu      sync.Mutex
	done    *sync.Cond // broadcast when a batch of queued lines is written, or on error
	writing bool       // a goroutine is in w.Write
	pending []byte     // whole lines queued while writing: the batch now filling
	spare   []byte     // the previous pending buffer, reused
	batch   uint64     // number of the batch filling in pending
	written uint64     // batches written so far
	err     error
}

func (lw *lineWriter) write(line []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.done == nil {
		lw.done = sync.NewCond(&lw.mu)
	}
	if lw.err != nil {
		return lw.err
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
			lw.spare = buf[:0] // free again
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
