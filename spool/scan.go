// scan.go: reading a segment's frames, and resynchronising past a damaged one within a stated budget.

package spool

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// scanned is what scanning a segment found.
type scanned struct {
	// end is where the last valid frame ends; count is how many sequence
	// numbers the segment holds through it (the next record's is
	// first+count: requests lost to damage count too).
	end   int64
	count int
	// skipped describes the damaged runs followed by valid frames.
	skipped []string
	// bad says why the bytes from end to the end of the file hold no
	// valid frame ("" when end is the file's end).
	bad string
	// gaveUp: the search for a valid frame spent its budget; the bytes
	// from end were not all searched and may hold requests.
	gaveUp bool
}

// scanWindow is how much of a segment the search for a frame reads at a
// time.
const scanWindow = 64 << 10

// resyncBudget bounds the bytes checksummed beyond one pass over a
// segment's valid frames: 4× its size and 1 MiB. Crafted bytes could pass
// the cheap checks of a frame header at every offset, each claiming a long
// payload, so the checksums are counted.
func resyncBudget(size int64) int64 { return 4*size + 1<<20 }

// segReader reads a segment's frames at any offset.
type segReader struct {
	f       *os.File
	size    int64 // when opened: a frame written later is not read
	maxBody int
	win     []byte // a window of the file at winOff, for the search
	winOff  int64
	buf     []byte // the payload of the frame read last
	budget  int64
}

// window returns up to n bytes at off (fewer at the end of the file).
func (r *segReader) window(off int64, n int) ([]byte, error) {
	if off >= r.winOff && off+int64(n) <= r.winOff+int64(len(r.win)) {
		return r.win[off-r.winOff : off-r.winOff+int64(n)], nil
	}
	if r.win == nil {
		r.win = make([]byte, scanWindow)
	}
	want := int(min(scanWindow, max(0, r.size-off)))
	m, err := r.f.ReadAt(r.win[:cap(r.win)][:want], off)
	if err != nil && err != io.EOF {
		return nil, err
	}
	r.win, r.winOff = r.win[:m], off
	return r.win[:min(m, n)], nil
}

// frameAt reads the frame at off: its record and length, or why there is
// none there ("" with n 0 at the end of the file). claimed is the payload
// length its header gives, when it is within bounds and the payload is in
// the file (0 otherwise). The checksum is charged to the budget when
// charge is set. The record's body is valid until the next call.
func (r *segReader) frameAt(off int64, charge bool) (rec Record, n, claimed int64, reason string, err error) {
	var hdr [frameHeader]byte
	m, err := r.f.ReadAt(hdr[:], off)
	switch {
	case err != nil && err != io.EOF:
		return Record{}, 0, 0, "", err
	case m == 0:
		return Record{}, 0, 0, "", nil
	case m < frameHeader:
		return Record{}, 0, 0, "torn frame header", nil
	}
	l := int64(binary.LittleEndian.Uint32(hdr[0:4]))
	if l < 3 || l > int64(r.maxBody)+payloadExtra {
		return Record{}, 0, 0, fmt.Sprintf("frame length %d", l), nil
	}
	if off+frameHeader+l > r.size {
		return Record{}, 0, 0, "torn frame payload", nil
	}
	if int64(cap(r.buf)) < l {
		r.buf = make([]byte, l)
	}
	r.buf = r.buf[:l]
	if _, err := r.f.ReadAt(r.buf, off+frameHeader); err != nil {
		if errors.Is(err, io.EOF) {
			return Record{}, 0, 0, "torn frame payload", nil // shortened meanwhile
		}
		return Record{}, 0, 0, "", err
	}
	if charge {
		r.budget -= l
	}
	if crc32.Checksum(r.buf, castagnoli()) != binary.LittleEndian.Uint32(hdr[4:8]) {
		return Record{}, 0, l, "checksum mismatch", nil
	}
	rec, reason = decode(r.buf)
	if reason != "" {
		return Record{}, 0, l, reason, nil
	}
	return rec, frameHeader + l, l, "", nil
}

// oversized returns the payload length of a whole frame at off that is
// larger than this start's bound allows but within any start's (maxFrame),
// its checksum right: a request taken under a larger --max-line and
// answered 200, never to be cut as a torn tail or searched past. The
// checksum is read through without holding the payload. 0 when the frame
// at off is not one.
func (r *segReader) oversized(off int64) (int64, error) {
	var hdr [frameHeader]byte
	if m, err := r.f.ReadAt(hdr[:], off); m < frameHeader {
		if err == io.EOF {
			err = nil
		}
		return 0, err
	}
	l := int64(binary.LittleEndian.Uint32(hdr[0:4]))
	if l <= int64(r.maxBody)+payloadExtra || l > maxFrame || off+frameHeader+l > r.size {
		return 0, nil
	}
	h := crc32.New(castagnoli())
	if _, err := io.Copy(h, io.NewSectionReader(r.f, off+frameHeader, l)); err != nil {
		return 0, err
	}
	if h.Sum32() != binary.LittleEndian.Uint32(hdr[4:8]) {
		return 0, nil
	}
	return l, nil
}

// scan reads a segment's frames from its start, calling fn (when not nil)
// with each record. Past a damaged frame it goes on at the next valid one
// (resync): a byte damaged anywhere costs the request whose frame holds it.
func scan(f *os.File, first uint64, maxBody int, fn func(Record) error) (scanned, error) {
	fi, err := f.Stat()
	if err != nil {
		return scanned{}, err
	}
	r := &segReader{f: f, size: fi.Size(), maxBody: maxBody, budget: resyncBudget(fi.Size())}
	head := make([]byte, len(magic))
	if n, err := f.ReadAt(head, 0); err != nil && err != io.EOF {
		return scanned{}, err
	} else if n < len(magic) {
		return scanned{bad: "segment header missing"}, nil
	}
	if string(head) != magic {
		return scanned{}, errors.New("not a spool segment")
	}
	off, next := int64(len(magic)), first
	res := scanned{end: off}
	for {
		rec, n, claimed, reason, err := r.frameAt(off, false)
		if err != nil {
			return scanned{}, err
		}
		if n > 0 && rec.Seq != next {
			n, reason = 0, fmt.Sprintf("sequence number %d, want %d", rec.Seq, next)
		}
		if n > 0 {
			off += n
			next++
			res.end, res.count = off, int(next-first)
			if fn != nil {
				if err := fn(rec); err != nil {
					return res, err
				}
			}
			continue
		}
		if reason == "" {
			return res, nil // the end of the file, after a whole frame
		}
		if l, err := r.oversized(off); err != nil {
			return scanned{}, err
		} else if l > 0 {
			return res, fmt.Errorf("a request answered 200 at offset %d is larger (a %d-byte frame) than the %d bytes taken now: start with --max-line %d or more to replay it", off, l, maxBody, l)
		}
		p, seq, gaveUp, err := r.resync(off, claimed, next)
		if err != nil {
			return scanned{}, err
		}
		if p < 0 || gaveUp {
			if gaveUp {
				reason += fmt.Sprintf("; the search for the next valid frame stopped at offset %d, its budget (%d bytes checksummed) spent", p, resyncBudget(r.size))
			}
			res.bad, res.gaveUp = reason, gaveUp
			return res, nil
		}
		res.skipped = append(res.skipped, fmt.Sprintf("at offset %d: %s: %d bytes skipped, requests %d to %d lost", off, reason, p-off, next, seq-1))
		off, next = p, seq
	}
}

// resync finds the first valid frame after the damaged one at off, whose
// header claimed a payload of claimed bytes (0: no length within bounds),
// for sequence number next: its offset and sequence number, or -1 when
// there is none (a torn tail), or with gaveUp the offset where the budget
// ran out.
//
// When the claimed extent ends at the end of the file, the damaged frame
// is the last: nothing is searched (its payload, a client's body, may hold
// frame-shaped bytes). When a valid frame numbered after next starts where
// the extent ends, the header was whole and the payload damaged: that
// frame is the next. Otherwise the header was damaged, and the next frame
// is searched for byte by byte: the first valid frame numbered next or
// later (fewer than the file's bytes later), each candidate checked by its
// length, version, sequence number and encoding before its checksum is
// charged to the budget.
func (r *segReader) resync(off, claimed int64, next uint64) (p int64, seq uint64, gaveUp bool, err error) {
	follows := func(s uint64) bool { return s >= next && s-next < uint64(r.size) }
	if claimed > 0 {
		e := off + frameHeader + claimed
		if e == r.size {
			return -1, 0, false, nil
		}
		rec, n, _, _, err := r.frameAt(e, true)
		if err != nil {
			return -1, 0, false, err
		}
		if n > 0 && follows(rec.Seq) && rec.Seq > next {
			return e, rec.Seq, false, nil
		}
	}
	for p := off + 1; p+frameHeader+3 <= r.size; p++ {
		if r.budget < 0 {
			return p, 0, true, nil
		}
		hdr, err := r.window(p, frameHeader+1+binary.MaxVarintLen64+1)
		if err != nil {
			return -1, 0, false, err
		}
		l := int64(binary.LittleEndian.Uint32(hdr[0:4]))
		if l < 3 || l > int64(r.maxBody)+payloadExtra || p+frameHeader+l > r.size || hdr[frameHeader] != version {
			continue
		}
		s, k := binary.Uvarint(hdr[frameHeader+1:])
		if k <= 0 || !follows(s) || frameHeader+1+k >= len(hdr) {
			continue
		}
		if e := hdr[frameHeader+1+k]; e != Protobuf && e != JSON {
			continue
		}
		rec, n, _, _, err := r.frameAt(p, true)
		if err != nil {
			return -1, 0, false, err
		}
		if n > 0 && follows(rec.Seq) {
			return p, rec.Seq, false, nil
		}
	}
	return -1, 0, false, nil
}
