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
	r   *bufio.Reader
	max int
	buf []byte
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

// lineWriter writes whole lines, each with a single Write under a mutex, so
// concurrent responses never interleave (spec §1.2: one message per line).
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func (lw *lineWriter) write(line []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	_, lw.err = lw.w.Write(line)
	return lw.err
}
