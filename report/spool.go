// spool.go: a session's results kept for its report, in memory up to a bound and on disk past it.

package report

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"attest-engine/simulate"
)

// SpoolMemory is how many bytes of results (recordSize) a Spool holds in
// memory; past it, they go to disk.
const SpoolMemory = 64 << 20

// Spool keeps a session's results for its report (the server's --report),
// in the order added. Up to its memory bound they are held as they are and
// the report is byTrace's. Past it,
// every result goes to a scratch file in the report's directory (removed
// from the directory at once: nothing is left however the process ends),
// and memory stays bounded whatever the session's length: the results are
// written in runs (consecutive results of one trace), and when the report
// is written the runs are sorted on disk (spoolsort.go) into byTrace's
// order, traces in the order first seen and results in the order added, so
// the report is the one the same results make in memory, byte for byte
// (TestSpoolSameReport). Writing it then holds one trace's results at a
// time, and 4 KiB per 65,536 runs while sorting. Safe for concurrent use.
type Spool struct {
	mu    sync.Mutex
	limit int
	chunk int // entries sorted at once (sortChunk; less in tests)
	sc    scratch
	done  bool  // the report is being written: later results are not in it
	err   error // the first failure to spool; the report then fails with it

	mem      []Recorded // until the bound is passed
	memBytes int

	data   *os.File // results, one frame each (spoolcodec.go)
	dw     *bufio.Writer
	off    int64    // bytes of data written
	runs   *os.File // one runEntry per run
	rw     *bufio.Writer
	nruns  uint64
	run    string // the open run's trace id
	runOff int64  // where it starts in data
	runLen uint64 // how many results it has so far (0: none open)
	buf    []byte
}

// NewSpool returns a Spool that holds limit bytes of results in memory and
// spills to scratch files in dir.
func NewSpool(dir string, limit int) *Spool {
	return &Spool{limit: limit, chunk: sortChunk, sc: scratch{dir: dir}}
}

// Add keeps r. Results added once the report is being written (a drain
// that timed out) are left out of it.
func (s *Spool) Add(r Recorded) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || s.err != nil {
		return
	}
	var err error
	if s.data == nil {
		s.mem = append(s.mem, r)
		if s.memBytes += recordSize(&r); s.memBytes <= s.limit {
			return
		}
		err = s.spill()
	} else {
		err = s.write(&r)
	}
	if err != nil {
		s.fail(err)
	}
}

// fail records the spool's first failure, which the report fails with, and
// lets go at once of what the spool holds: its results in memory, and its
// scratch files, whose space on a full disk is then free for the rest of
// the session rather than when serving ends.
func (s *Spool) fail(err error) {
	s.err = err
	s.mem, s.memBytes = nil, 0
	s.sc.close()
	s.data, s.runs, s.dw, s.rw = nil, nil, nil, nil
}

// spill moves the results held in memory to scratch files.
func (s *Spool) spill() error {
	var err error
	if s.data, err = s.sc.file(); err != nil {
		return fmt.Errorf("spooling results in %s: %w", s.sc.dir, err)
	}
	if s.runs, err = s.sc.file(); err != nil {
		return fmt.Errorf("spooling results in %s: %w", s.sc.dir, err)
	}
	s.dw, s.rw = bufio.NewWriterSize(s.data, 64<<10), bufio.NewWriterSize(s.runs, 64<<10)
	for i := range s.mem {
		if err := s.write(&s.mem[i]); err != nil {
			return err
		}
	}
	s.mem, s.memBytes = nil, 0
	return nil
}

func (s *Spool) write(r *Recorded) error {
	if s.runLen > 0 && r.TraceID != s.run {
		if err := s.endRun(); err != nil {
			return err
		}
	}
	if s.runLen == 0 {
		s.run, s.runOff = r.TraceID, s.off
	}
	s.buf = appendRecord(s.buf[:0], r)
	if _, err := s.dw.Write(s.buf); err != nil {
		return fmt.Errorf("spooling results: %w", err)
	}
	s.off += int64(len(s.buf))
	s.runLen++
	return nil
}

// A run entry is 40 bytes: the first 16 of SHA-256 of the run's trace id,
// then big-endian the run's number (its order), its offset in the data and
// its count of results. Sorted on their first 24 bytes, a trace's runs come
// together in their order; a collision of 128-bit digests between two trace
// ids of a session is not a concern.
const runEntry = 40

func (s *Spool) endRun() error {
	var e [runEntry]byte
	d := sha256.Sum256([]byte(s.run))
	copy(e[:16], d[:16])
	binary.BigEndian.PutUint64(e[16:], s.nruns)
	binary.BigEndian.PutUint64(e[24:], uint64(s.runOff))
	binary.BigEndian.PutUint64(e[32:], s.runLen)
	s.nruns++
	s.runLen = 0
	if _, err := s.rw.Write(e[:]); err != nil {
		return fmt.Errorf("spooling results: %w", err)
	}
	return nil
}

// Write writes the report of the results added, in format f, its totals
// started from tot (a timestamp, scenarios), and returns how many traces it
// has. Results added from now on are not in it.
func (s *Spool) Write(w io.Writer, f Format, tot Totals) (int, error) {
	s.mu.Lock()
	s.done = true
	s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	if s.data == nil {
		traces := byTrace(s.mem)
		return len(traces), writeTotals(w, f, traces, tot)
	}
	return s.writeSpilled(w, f, tot)
}

// WriteFile writes the report to path as WriteFile does, and returns how
// many traces it has.
func (s *Spool) WriteFile(path string, scenarios ...simulate.ScenarioSummary) (int, error) {
	var n int
	err := writeReportFile(path, func(w io.Writer) error {
		var err error
		n, err = s.Write(w, FormatForPath(path), Totals{Generated: time.Now(), Scenarios: scenarios})
		return err
	})
	return n, err
}

// Close removes the scratch files. The spool keeps nothing afterwards.
func (s *Spool) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	s.sc.close()
	s.mem, s.data, s.runs = nil, nil, nil
}

// writeSpilled writes the report from the scratch files: the runs sorted
// by trace then order, each trace's first run's number noted as its place
// (an ordered entry: place, run number, offset, count, 32 bytes), those
// sorted by place then run number, and the results read back a trace at a
// time.
func (s *Spool) writeSpilled(w io.Writer, f Format, tot Totals) (int, error) {
	if s.runLen > 0 {
		if err := s.endRun(); err != nil {
			return 0, err
		}
	}
	if err := s.dw.Flush(); err != nil {
		return 0, fmt.Errorf("spooling results: %w", err)
	}
	if err := s.rw.Flush(); err != nil {
		return 0, fmt.Errorf("spooling results: %w", err)
	}
	byTrace, err := sortEntries(&s.sc, io.NewSectionReader(s.runs, 0, int64(s.nruns)*runEntry), runEntry, 24, s.chunk)
	if err != nil {
		return 0, fmt.Errorf("sorting spooled results: %w", err)
	}
	places, err := s.sc.file()
	if err != nil {
		return 0, fmt.Errorf("sorting spooled results: %w", err)
	}
	pw := bufio.NewWriterSize(places, 64<<10)
	in := bufio.NewReaderSize(io.NewSectionReader(byTrace, 0, int64(s.nruns)*runEntry), 64<<10)
	var e [runEntry]byte
	var digest [16]byte
	var place uint64
	for i := uint64(0); i < s.nruns; i++ {
		if _, err := io.ReadFull(in, e[:]); err != nil {
			return 0, fmt.Errorf("sorting spooled results: %w", err)
		}
		if i == 0 || [16]byte(e[:16]) != digest {
			digest, place = [16]byte(e[:16]), binary.BigEndian.Uint64(e[16:])
		}
		var o [32]byte
		binary.BigEndian.PutUint64(o[:], place)
		copy(o[8:], e[16:40])
		pw.Write(o[:])
	}
	if err := pw.Flush(); err != nil {
		return 0, fmt.Errorf("sorting spooled results: %w", err)
	}
	ordered, err := sortEntries(&s.sc, io.NewSectionReader(places, 0, int64(s.nruns)*32), 32, 16, s.chunk)
	if err != nil {
		return 0, fmt.Errorf("sorting spooled results: %w", err)
	}

	rw := NewWriter(f, w)
	if err := rw.Begin(); err != nil {
		return 0, err
	}
	in = bufio.NewReaderSize(io.NewSectionReader(ordered, 0, int64(s.nruns)*32), 64<<10)
	data := bufio.NewReaderSize(nil, 64<<10)
	var tr Trace
	traces := 0
	flush := func() error {
		tot.Add(&tr)
		tot.DurationMS += tr.DurationMS
		return rw.Trace(&tr)
	}
	cur := ^uint64(0)
	for i := uint64(0); i < s.nruns; i++ {
		var o [32]byte
		if _, err := io.ReadFull(in, o[:]); err != nil {
			return 0, fmt.Errorf("reading spooled results: %w", err)
		}
		if p := binary.BigEndian.Uint64(o[:]); p != cur {
			if traces > 0 {
				if err := flush(); err != nil {
					return 0, err
				}
			}
			cur, tr = p, Trace{}
			traces++
		}
		off, n := int64(binary.BigEndian.Uint64(o[16:])), binary.BigEndian.Uint64(o[24:])
		data.Reset(io.NewSectionReader(s.data, off, s.off-off))
		for range n {
			r, err := s.readRecord(data)
			if err != nil {
				return 0, fmt.Errorf("reading spooled results: %w", err)
			}
			if tr.Name == "" { // as byTrace names a trace
				tr.Name, tr.TraceID, tr.CaseKey = r.TraceID, r.TraceID, r.CaseKey
				if tr.Name == "" {
					tr.Name = "#" + strconv.Itoa(traces)
				}
			}
			tr.Results = append(tr.Results, r)
			tr.DurationMS += r.Result.DurationMS
		}
	}
	if traces > 0 {
		if err := flush(); err != nil {
			return 0, err
		}
	}
	return traces, rw.End(&tot)
}

// readRecord reads one frame from r.
func (s *Spool) readRecord(r *bufio.Reader) (Recorded, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return Recorded{}, err
	}
	if n > uint64(s.off) {
		return Recorded{}, errSpoolRecord
	}
	if uint64(cap(s.buf)) < n {
		s.buf = make([]byte, n)
	}
	body := s.buf[:n]
	if _, err := io.ReadFull(r, body); err != nil {
		return Recorded{}, err
	}
	return decodeRecord(body)
}
