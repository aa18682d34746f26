// spoolsort.go: scratch files that leave nothing behind, and sorting fixed-size entries in bounded memory.

package report

import (
	"bufio"
	"bytes"
	"container/heap"
	"errors"
	"io"
	"os"
	"slices"
)

// scratch makes the spool's temporary files in one directory. Each is
// removed from the directory as soon as it is made and used through its
// open descriptor, so nothing is left behind however the process ends
// (SIGKILL included); where an open file cannot be removed (Windows), it is
// removed when the scratch is closed.
type scratch struct {
	dir   string
	files []*os.File
	names []string // made but not yet removed
}

func (s *scratch) file() (*os.File, error) {
	f, err := os.CreateTemp(s.dir, ".attest-report-*.spool")
	if err != nil {
		return nil, err
	}
	s.files = append(s.files, f)
	if os.Remove(f.Name()) != nil {
		s.names = append(s.names, f.Name())
	}
	return f, nil
}

func (s *scratch) close() {
	for _, f := range s.files {
		f.Close()
	}
	for _, n := range s.names {
		os.Remove(n)
	}
	s.files, s.names = nil, nil
}

// sortChunk is how many entries sortEntries holds at once: 2.5 MiB of the
// spool's 40-byte run entries.
const sortChunk = 64 << 10

// sortEntries returns a scratch file holding the entries of src (size
// bytes each, read to its end) ordered by their first key bytes as
// bytes.Compare orders them (every key is unique, so the order is total).
// It holds at most chunk entries at once: src is sorted chunk by chunk into
// one file, then the chunks are merged, through a 4 KiB read buffer each.
func sortEntries(sc *scratch, src io.Reader, size, key, chunk int) (*os.File, error) {
	sorted, err := sc.file()
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(sorted, 64<<10)
	buf := make([]byte, chunk*size)
	ents := make([][]byte, 0, chunk)
	var ends []int64 // where each sorted chunk ends
	var total int64
	for {
		n, rerr := io.ReadFull(src, buf)
		n -= n % size
		if n > 0 {
			ents = ents[:0]
			for i := 0; i < n; i += size {
				ents = append(ents, buf[i:i+size])
			}
			slices.SortFunc(ents, func(a, b []byte) int { return bytes.Compare(a[:key], b[:key]) })
			for _, e := range ents {
				w.Write(e)
			}
			total += int64(n)
			ends = append(ends, total)
		}
		if errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF) {
			break
		}
		if rerr != nil {
			return nil, rerr
		}
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	if len(ends) <= 1 {
		return sorted, nil
	}
	out, err := sc.file()
	if err != nil {
		return nil, err
	}
	w = bufio.NewWriterSize(out, 64<<10)
	h := &merge{key: key}
	var start int64
	for _, end := range ends {
		c := &chunkReader{r: bufio.NewReaderSize(io.NewSectionReader(sorted, start, end-start), 4096), head: make([]byte, size)}
		if _, err := io.ReadFull(c.r, c.head); err != nil {
			return nil, err
		}
		h.chunks = append(h.chunks, c)
		start = end
	}
	heap.Init(h)
	for len(h.chunks) > 0 {
		c := h.chunks[0]
		w.Write(c.head)
		if _, err := io.ReadFull(c.r, c.head); errors.Is(err, io.EOF) {
			heap.Pop(h)
		} else if err != nil {
			return nil, err
		} else {
			heap.Fix(h, 0)
		}
	}
	return out, w.Flush()
}

// chunkReader is one sorted chunk being merged, with its next entry.
type chunkReader struct {
	r    *bufio.Reader
	head []byte
}

// merge is a heap of chunks by their next entry's key.
type merge struct {
	chunks []*chunkReader
	key    int
}

func (m *merge) Len() int { return len(m.chunks) }
func (m *merge) Less(i, j int) bool {
	return bytes.Compare(m.chunks[i].head[:m.key], m.chunks[j].head[:m.key]) < 0
}
func (m *merge) Swap(i, j int) { m.chunks[i], m.chunks[j] = m.chunks[j], m.chunks[i] }
func (m *merge) Push(x any)    { m.chunks = append(m.chunks, x.(*chunkReader)) }
func (m *merge) Pop() any {
	c := m.chunks[len(m.chunks)-1]
	m.chunks = m.chunks[:len(m.chunks)-1]
	return c
}
