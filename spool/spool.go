// spool.go: segments of framed requests: Open recovers them, Append adds
// one, Replay reads them back, Release removes what is settled.

package spool

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"attest-engine/safedir"
)

// Encodings of a request body. The numbers are on disk: never renumber.
const (
	Protobuf byte = 1
	JSON     byte = 2
	// LogsProtobuf and LogsJSON: an OTLP log export request (POST /v1/logs).
	LogsProtobuf byte = 3
	LogsJSON     byte = 4
)

const (
	magic       = "ATSPOOL\x01"
	frameHeader = 8
	version     = 1
	prefix      = "spool-"
	suffix      = ".seg"
	// payloadExtra bounds a payload's bytes beside its body: the version,
	// a sequence number, the encoding.
	payloadExtra = 16
	// maxFrame is the largest payload any start writes (--max-line is at
	// most 1 GiB): a larger length is corruption whatever MaxBody is.
	maxFrame = 1<<30 + payloadExtra
)

// Defaults of Options.
const (
	DefaultMaxBytes     = 1 << 30
	DefaultSegmentBytes = 8 << 20
	DefaultMaxBody      = 32 << 20
)

// ErrFull is Append's error when the spool holds MaxBytes: the request is
// not taken, and the client should retry later.
var ErrFull = errors.New("spool: full")

// Options configure a Spool. Zero fields take the defaults.
type Options struct {
	MaxBytes     int64 // all segments together
	SegmentBytes int64 // a segment is sealed past this size
	MaxBody      int   // the largest body taken (and read back)
	Sync         bool  // fsync every append (and the dir for a new segment)
}

func (o Options) withDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.SegmentBytes <= 0 {
		o.SegmentBytes = min(DefaultSegmentBytes, max(o.MaxBytes/8, 1<<16))
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	return o
}

// Record is one spooled request.
type Record struct {
	Seq      uint64
	Encoding byte
	Body     []byte // valid until the next record: copy what is kept
}

type segment struct {
	first uint64 // sequence number of its first record
	count int    // records held
	size  int64  // bytes, the header included
}

func segName(first uint64) string { return fmt.Sprintf("%s%016x%s", prefix, first, suffix) }

// Spool is the open spool of a state dir. Its methods are safe for
// concurrent use.
type Spool struct {
	dir  *safedir.Dir
	opts Options

	mu    sync.Mutex
	segs  []segment // in order; the last is the active one
	f     *os.File  // the active segment
	next  uint64    // sequence number of the next record appended
	total int64
	undo  int64 // the active segment's size before the last Append; -1 when it cannot be undone

	// Recovery: what Open found.
	Corrupt   []string // damaged runs skipped, and tails of sealed segments with no valid frame
	TornBytes int64    // bytes of a torn tail cut from the last segment
}

// Open opens (or starts) the spool in dir and recovers it (doc.go,
// "Recovery").
func Open(dir *safedir.Dir, opts Options) (*Spool, error) {
	s := &Spool{dir: dir, opts: opts.withDefaults(), undo: -1}
	names, err := dir.Names()
	if err != nil {
		return nil, err
	}
	var firsts []uint64
	for _, n := range names {
		hex, ok := strings.CutPrefix(n, prefix)
		if hex, ok = strings.CutSuffix(hex, suffix); !ok || len(hex) != 16 {
			continue
		}
		if first, err := strconv.ParseUint(hex, 16, 64); err == nil {
			firsts = append(firsts, first)
		}
	}
	slices.Sort(firsts)
	sealLast := false // the last segment's tail was not searched to its end
	for i, first := range firsts {
		last := i == len(firsts)-1
		seg, gaveUp, err := s.recover(first, last)
		if err != nil {
			return nil, err
		}
		s.segs = append(s.segs, seg)
		s.total += seg.size
		sealLast = last && gaveUp
	}
	switch {
	case len(s.segs) == 0:
		if err := s.create(1); err != nil {
			return nil, err
		}
	case sealLast:
		a := s.segs[len(s.segs)-1]
		// past its last request (a new name even when it holds none)
		if err := s.create(a.first + uint64(max(a.count, 1))); err != nil {
			return nil, err
		}
	default:
		a := s.segs[len(s.segs)-1]
		f, err := dir.OpenFile(segName(a.first), os.O_RDWR|os.O_APPEND, 0)
		if err != nil {
			return nil, err
		}
		s.f, s.next = f, a.first+uint64(a.count)
	}
	return s, nil
}

// recover scans one segment. Damaged runs followed by valid frames are
// reported (Corrupt) and left as they are; a tail with no valid frame is
// reported in a sealed segment and cut from the last one (a request torn
// by a crash), unless the search for a valid frame in it spent its budget:
// the segment is then left whole, and the spool goes on in a new one.
func (s *Spool) recover(first uint64, last bool) (segment, bool, error) {
	name := segName(first)
	f, err := s.dir.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return segment{}, false, err
	}
	defer f.Close()
	res, err := scan(f, first, s.opts.MaxBody, nil)
	if err != nil {
		return segment{}, false, fmt.Errorf("spool: %s: %w", name, err)
	}
	fi, err := f.Stat()
	if err != nil {
		return segment{}, false, err
	}
	for _, k := range res.skipped {
		s.Corrupt = append(s.Corrupt, name+" "+k)
	}
	end := res.end
	if res.bad != "" && (!last || res.gaveUp) {
		s.Corrupt = append(s.Corrupt, fmt.Sprintf("%s at offset %d: %s: the %d bytes after it hold no request read back", name, end, res.bad, fi.Size()-end))
		return segment{first: first, count: res.count, size: fi.Size()}, res.gaveUp, nil
	}
	if last && (fi.Size() != end || end < int64(len(magic))) {
		// A torn tail (or a header never written): cut, so the next frame
		// follows the last whole one.
		if end < int64(len(magic)) {
			end = int64(len(magic))
			if err := f.Truncate(0); err == nil {
				_, err = f.WriteAt([]byte(magic), 0)
			}
		}
		if err := f.Truncate(end); err != nil {
			return segment{}, false, fmt.Errorf("spool: cut torn tail of %s: %w", name, err)
		}
		s.TornBytes += max(fi.Size()-end, 0)
	}
	size := fi.Size()
	if last {
		size = end
	}
	return segment{first: first, count: res.count, size: size}, false, nil
}

var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// decode reads a payload; the reason is "" when it is valid.
func decode(p []byte) (Record, string) {
	if p[0] != version {
		return Record{}, fmt.Sprintf("payload version %d", p[0])
	}
	seq, n := binary.Uvarint(p[1:])
	if n <= 0 {
		return Record{}, "sequence number"
	}
	p = p[1+n:]
	if len(p) < 1 || p[0] < Protobuf || p[0] > LogsJSON {
		return Record{}, "encoding"
	}
	return Record{Seq: seq, Encoding: p[0], Body: p[1:]}, ""
}

// create starts segment first as the active one. It is opened to append,
// as a recovered one is: a frame written after a Truncate (Undo, a failed
// write) goes where the file now ends, not at the offset before it, which
// would leave a hole of zeros that the next Open cuts as a torn tail, with
// every record after it.
func (s *Spool) create(first uint64) error {
	f, err := s.dir.OpenFile(segName(first), os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write([]byte(magic)); err == nil && s.opts.Sync {
		if err = f.Sync(); err == nil {
			err = s.dir.Sync()
		}
	}
	if err != nil {
		f.Close()
		s.dir.Remove(segName(first))
		return err
	}
	if s.f != nil {
		s.f.Close()
	}
	s.f, s.next = f, first
	s.segs = append(s.segs, segment{first: first, size: int64(len(magic))})
	s.total += int64(len(magic))
	s.undo = -1
	return nil
}

// Append spools one request body and returns its sequence number. A
// failed write leaves nothing behind.
func (s *Spool) Append(encoding byte, body []byte) (uint64, error) {
	if len(body) > s.opts.MaxBody {
		return 0, fmt.Errorf("spool: a body of %d bytes, more than %d", len(body), s.opts.MaxBody)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return 0, errors.New("spool: closed")
	}
	if a := s.segs[len(s.segs)-1]; a.size >= s.opts.SegmentBytes && a.count > 0 {
		if s.opts.Sync {
			if err := s.f.Sync(); err != nil {
				return 0, err
			}
		}
		if err := s.create(s.next); err != nil {
			return 0, err
		}
	}
	payload := make([]byte, 0, len(body)+payloadExtra)
	payload = binary.AppendUvarint(append(payload, version), s.next)
	payload = append(append(payload, encoding), body...)
	frame := make([]byte, frameHeader, frameHeader+len(payload))
	binary.LittleEndian.PutUint32(frame[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(frame[4:8], crc32.Checksum(payload, castagnoli()))
	frame = append(frame, payload...)
	if s.total+int64(len(frame)) > s.opts.MaxBytes {
		return 0, ErrFull
	}
	a := &s.segs[len(s.segs)-1]
	if _, err := s.f.Write(frame); err != nil {
		s.f.Truncate(a.size)
		return 0, fmt.Errorf("spool: append: %w", err)
	}
	if s.opts.Sync {
		if err := s.f.Sync(); err != nil {
			s.f.Truncate(a.size)
			return 0, fmt.Errorf("spool: fsync: %w", err)
		}
	}
	s.undo = a.size
	a.size += int64(len(frame))
	a.count++
	s.total += int64(len(frame))
	seq := s.next
	s.next++
	return seq, nil
}

// Undo removes the last record appended, seq: the pipeline did not take it
// and its client is not answered 200. Only the latest record can be undone.
func (s *Spool) Undo(seq uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := &s.segs[len(s.segs)-1]
	if s.undo < 0 || seq+1 != s.next || a.count == 0 {
		return errors.New("spool: only the latest record can be undone")
	}
	if err := s.f.Truncate(s.undo); err != nil {
		return err
	}
	s.total -= a.size - s.undo
	a.size, s.undo = s.undo, -1
	a.count--
	s.next--
	return nil
}

// Replay hands every record held to fn, in order.
func (s *Spool) Replay(fn func(Record) error) error {
	s.mu.Lock()
	segs := slices.Clone(s.segs)
	s.mu.Unlock()
	for _, seg := range segs {
		f, err := s.dir.Open(segName(seg.first))
		if err != nil {
			return err
		}
		_, err = scan(f, seg.first, s.opts.MaxBody, func(r Record) error {
			if r.Seq >= seg.first+uint64(seg.count) {
				return io.EOF // appended after Open: not part of the replay
			}
			return fn(r)
		})
		f.Close()
		if err != nil && err != io.EOF {
			return err
		}
	}
	return nil
}

// First is the sequence number of the first record held (Next when none).
func (s *Spool) First() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, seg := range s.segs {
		if seg.count > 0 {
			return seg.first
		}
	}
	return s.next
}

// Next is the sequence number the next record appended gets.
func (s *Spool) Next() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// Bytes is the size of the spool's files.
func (s *Spool) Bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// Release removes the segments all of whose records are below seq (they
// are settled), and starts a new active segment when all of the active
// one's are.
func (s *Spool) Release(seq uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	if a := s.segs[len(s.segs)-1]; a.count > 0 && s.next <= seq {
		if err := s.create(s.next); err != nil {
			return err
		}
	}
	for len(s.segs) > 1 && s.segs[1].first <= seq {
		if err := s.dir.Remove(segName(s.segs[0].first)); err != nil {
			return err
		}
		s.total -= s.segs[0].size
		s.segs = s.segs[1:]
	}
	return nil
}

// Close closes the active segment (synced under Sync).
func (s *Spool) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	var err error
	if s.opts.Sync {
		err = s.f.Sync()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	s.f = nil
	return err
}
