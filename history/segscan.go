// segscan.go: reading a log segment's frames, resynchronising past a corrupt one, within a stated work budget.

package history

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"attest-engine/safedir"
)

const (
	// minRecordPayload is the smallest payload a record has: version,
	// status, score, two varints of a byte, four empty strings.
	minRecordPayload = 10 + 2 + 4
	// scanWindow is how much of a segment is read at a time.
	scanWindow = 256 << 10
)

// skip is a run of bytes of a segment that holds no valid frame.
type skip struct {
	Off, N int64
	Reason string
}

// segScan is what scanning a segment found.
type segScan struct {
	// end is the end of the last valid frame: where the next record goes.
	end int64
	// skipped are corrupt runs followed by valid frames, in order.
	skipped []skip
	// tail, when set, is the run from end to the end of the file that
	// holds no valid frame: a torn tail, or bytes not searched (gaveUp).
	tail *skip
	// gaveUp: resynchronising spent its budget; the tail was not searched
	// to its end, and may hold valid frames.
	gaveUp bool
	// checksummed counts the bytes checksummed (the tests check the bound).
	checksummed int64
}

// knownVersion says whether b is a payload version decodePayload reads.
func knownVersion(b byte) bool {
	return b == payloadVersion || b == payloadVersionV1 || b == payloadVersionV3
}

// resyncBudget bounds the bytes checksummed beyond one pass over the valid
// frames (which checksums each of their bytes once): the corrupt frames'
// payloads and the search for the next valid frame past each, 4× the
// segment's size and 1 MiB. A corrupt run costs a byte-by-byte search,
// each offset read as a header and checked (length, version, status)
// before its payload is checksummed; crafted bytes could pass that check
// at every offset, and claim 64 KiB payloads, so the checksums are counted.
func resyncBudget(size int64) int64 { return 4*size + 1<<20 }

// segReader reads a segment through a window of its bytes, in order and at
// random (the resynchronisation's search), and counts its checksums.
type segReader struct {
	f      *os.File
	size   int64 // the file's size when opened: a frame written later is not read
	buf    []byte
	bufOff int64
	// budget is what is left of resyncBudget: every checksum but that of
	// a valid frame read in order is charged to it.
	budget int64
	// checksummed counts the bytes checksummed, for the tests.
	checksummed int64
}

// spent says whether the budget is spent.
func (r *segReader) spent() bool { return r.budget < 0 }

// at returns the n bytes at off, or fewer at the end of the file (n is at
// most a frame: well within scanWindow).
func (r *segReader) at(off int64, n int) ([]byte, error) {
	if off >= r.bufOff && off+int64(n) <= r.bufOff+int64(len(r.buf)) {
		return r.buf[off-r.bufOff : off-r.bufOff+int64(n)], nil
	}
	if r.buf == nil {
		r.buf = make([]byte, scanWindow)
	}
	want := int(min(int64(scanWindow), max(0, r.size-off)))
	m, err := r.f.ReadAt(r.buf[:cap(r.buf)][:want], off)
	if err != nil && err != io.EOF {
		return nil, err
	}
	r.buf, r.bufOff = r.buf[:m], off
	return r.buf[:min(m, n)], nil
}

// frameAt reads the frame at off: its record and total length, or why
// there is none there ("" with n 0: the end of the file). claimed is the
// payload length the header gave (0 when it has none). The checksum is
// charged to the budget unless inOrder and the frame is valid.
func (r *segReader) frameAt(off int64, inOrder bool) (rec Result, n int64, claimed uint32, reason string, err error) {
	hdr, err := r.at(off, frameHeader)
	if err != nil {
		return Result{}, 0, 0, "", err
	}
	switch {
	case len(hdr) == 0:
		return Result{}, 0, 0, "", nil
	case len(hdr) < frameHeader:
		return Result{}, 0, 0, "torn frame header", nil
	}
	claimed = binary.LittleEndian.Uint32(hdr[0:4])
	sum := binary.LittleEndian.Uint32(hdr[4:8])
	if claimed == 0 || claimed > maxPayload {
		return Result{}, 0, 0, fmt.Sprintf("frame length %d", claimed), nil
	}
	if off+frameHeader+int64(claimed) > r.size {
		return Result{}, 0, claimed, "torn frame payload", nil
	}
	p, err := r.at(off+frameHeader, int(claimed))
	if err != nil {
		return Result{}, 0, 0, "", err
	}
	r.checksummed += int64(claimed)
	switch rec, derr := decodeChecked(p, sum); {
	case derr != "":
		r.budget -= int64(claimed)
		return Result{}, 0, claimed, derr, nil
	default:
		if !inOrder {
			r.budget -= int64(claimed)
		}
		return rec, frameHeader + int64(claimed), claimed, "", nil
	}
}

// decodeChecked checks p's checksum and decodes it; the reason it is no
// record, or "".
func decodeChecked(p []byte, sum uint32) (Result, string) {
	if crc32.Checksum(p, castagnoli()) != sum {
		return Result{}, "checksum mismatch"
	}
	rec, err := decodePayload(p)
	if err != nil {
		return Result{}, err.Error()
	}
	return rec, ""
}

// resync finds the first valid frame after the corrupt one at off, whose
// header claimed claimed bytes (0: none). The next frame is looked for
// byte by byte; but where the claimed end is a frame boundary (a valid
// frame, or the end of the file: the header whole, the payload damaged),
// a frame found inside the claimed extent is taken only when valid frames
// lead from it exactly to that boundary (the length was damaged, not the
// payload), so that a frame-shaped text inside a damaged payload is never
// taken for a record. It returns the frame's offset, or -1 when there is
// none (what is left is a torn tail); or, with gaveUp, the offset where
// the budget ran out.
func (r *segReader) resync(off int64, claimed uint32) (next int64, gaveUp bool, err error) {
	end := int64(-1) // the claimed end, when it is a frame boundary
	if claimed > 0 {
		e := off + frameHeader + int64(claimed)
		if e == r.size {
			end = e
		} else if e < r.size {
			_, n, _, _, err := r.frameAt(e, false)
			if err != nil {
				return -1, false, err
			}
			if n > 0 {
				end = e
			}
		}
	}
	if r.spent() {
		return off, true, nil
	}
	limit := r.size
	if end >= 0 {
		limit = end
	}
	for p := off + 1; ; p++ {
		if p, err = r.search(p, limit); err != nil || p < 0 {
			break
		}
		if r.spent() {
			return p, true, nil
		}
		if end < 0 {
			return p, false, nil
		}
		ok, err := r.chains(p, end)
		if err != nil {
			return -1, false, err
		}
		if r.spent() {
			return p, true, nil
		}
		if ok {
			return p, false, nil
		}
	}
	if err != nil {
		return -1, false, err
	}
	if end >= 0 && end < r.size {
		return end, false, nil
	}
	return -1, false, nil
}

// search returns the first offset in [from, limit) where a valid frame
// starts (-1: none), each candidate filtered by its length, payload
// version and status before its checksum is charged; it stops where the
// budget runs out.
func (r *segReader) search(from, limit int64) (int64, error) {
	for p := from; p+frameHeader+minRecordPayload <= r.size && p < limit; p++ {
		hdr, err := r.at(p, frameHeader+2)
		if err != nil {
			return -1, err
		}
		n := int64(binary.LittleEndian.Uint32(hdr[0:4]))
		if n < minRecordPayload || n > maxPayload || p+frameHeader+n > r.size || !knownVersion(hdr[8]) || hdr[9] < 1 || hdr[9] > 5 {
			continue
		}
		_, m, _, _, err := r.frameAt(p, false)
		if err != nil {
			return -1, err
		}
		if m > 0 || r.spent() {
			return p, nil
		}
	}
	return -1, nil
}

// chains says whether valid frames lead from p exactly to end.
func (r *segReader) chains(p, end int64) (bool, error) {
	for p < end && !r.spent() {
		_, n, _, _, err := r.frameAt(p, false)
		if err != nil || n == 0 {
			return false, err
		}
		p += n
	}
	return p == end, nil
}

// scanSegment reads the frames of segment seg of d from off (0 means the
// start, after the magic), calling fn for each valid record with the
// position just after it. Past a corrupt frame it resynchronises on the
// next valid one (resync) and goes on; the corrupt runs and a tail with no
// valid frame are reported, never changed: the caller decides (Open cuts
// a torn tail of the last segment).
func scanSegment(d *safedir.Dir, seg uint64, off int64, fn func(Result, pos) error) (segScan, error) {
	name := segName(seg)
	f, err := d.Open(name)
	if err != nil {
		return segScan{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return segScan{}, err
	}
	r := &segReader{f: f, size: fi.Size()}
	magic, err := r.at(0, len(segMagic))
	if err != nil {
		return segScan{}, err
	}
	if len(magic) < len(segMagic) {
		return segScan{tail: &skip{0, r.size, "segment header missing"}}, nil
	}
	if string(magic) != segMagic {
		return segScan{}, fmt.Errorf("history: %s is not a history log segment", d.Join(name))
	}
	off = max(off, int64(len(segMagic)))
	if off > r.size {
		// A checkpoint past the end: the file lost its tail (a power loss
		// under a lax fsync policy), maybe in the middle of a frame. The
		// summaries hold every record it had: find where its valid frames
		// end, replaying none, so that the caller cuts there and appends
		// after them, never past the end (a hole of zeros) nor after half
		// a frame.
		all, err := scanSegment(d, seg, 0, nil)
		if err != nil {
			return segScan{}, err
		}
		return segScan{end: all.end, tail: &skip{all.end, r.size - all.end, "segment shorter than its checkpoint"}}, nil
	}
	res, err := r.scan(seg, off, fn)
	res.checksummed = r.checksummed
	return res, err
}

// scan reads the frames from off (after the magic), as scanSegment says.
func (r *segReader) scan(seg uint64, off int64, fn func(Result, pos) error) (segScan, error) {
	res := segScan{end: off}
	r.budget = resyncBudget(r.size)
	for {
		rec, n, claimed, reason, err := r.frameAt(off, true)
		if err != nil {
			return segScan{}, err
		}
		if n > 0 {
			off += n
			res.end = off
			if fn != nil {
				if err := fn(rec, pos{seg, off}); err != nil {
					return res, err
				}
			}
			continue
		}
		if reason == "" {
			return res, nil // the end of the file, after a whole frame
		}
		var next int64
		gaveUp := r.spent()
		if !gaveUp {
			next, gaveUp, err = r.resync(off, claimed)
		} else {
			next = off
		}
		if err != nil {
			return segScan{}, err
		}
		if next < 0 || gaveUp {
			if gaveUp {
				reason += fmt.Sprintf("; the search for the next valid frame stopped at offset %d, its budget (%d bytes checksummed) spent", next, resyncBudget(r.size))
			}
			res.tail, res.gaveUp = &skip{off, r.size - off, reason}, gaveUp
			return res, nil
		}
		res.skipped = append(res.skipped, skip{off, next - off, reason})
		off = next
	}
}
