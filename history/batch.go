// batch.go: a trace's results recorded together, with one write call to the log.

package history

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"time"
)

// AddAll records rs, in order: they are appended to the log with one write
// call (and one fsync under SyncAlways) before AddAll returns, summarized,
// and the drift detectors run over any window they close. The alerts
// raised are returned, and also written to the alert file, the webhook and
// OnAlert. The watch command records a trace's results so, the server a
// batch's. A result that fails Validate is left out and the others
// recorded; the error then names the first one left out.
func (s *Store) AddAll(rs []Result) ([]Alert, error) {
	valid := make([]*Result, 0, len(rs))
	var bad error
	for i := range rs {
		if err := rs[i].Validate(); err != nil {
			if bad == nil {
				bad = fmt.Errorf("result %d of %d not recorded: %w", i+1, len(rs), err)
			}
			continue
		}
		valid = append(valid, &rs[i])
	}
	if len(valid) == 0 {
		return nil, bad
	}
	alerts, err := s.add(valid)
	if err != nil {
		return alerts, err
	}
	return alerts, bad
}

// maxBatchWrite bounds the bytes appendAll gives one write call.
const maxBatchWrite = 1 << 20

// appendAll writes records in as few write calls as fit maxBatchWrite (one
// for a trace's results), then applies the fsync policy once. It reports
// the position after the last record and whether the segment is now full.
// A crash may keep a prefix of the records, never a torn one (recovery cuts
// it), as with one append per record; a failed write keeps none.
func (w *wal) appendAll(rs []*Result) (pos, bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return pos{}, false, errors.New("history: the store is closed")
	}
	start := w.size // a failed write cuts the whole batch: all or nothing
	for len(rs) > 0 {
		w.frame = w.frame[:0]
		for len(rs) > 0 && len(w.frame) < maxBatchWrite {
			start := len(w.frame)
			w.frame = append(w.frame, make([]byte, frameHeader)...)
			w.frame = appendPayload(w.frame, rs[0])
			p := w.frame[start+frameHeader:]
			binary.LittleEndian.PutUint32(w.frame[start:start+4], uint32(len(p)))
			binary.LittleEndian.PutUint32(w.frame[start+4:start+8], crc32.Checksum(p, castagnoli()))
			rs = rs[1:]
		}
		if err := w.write(w.frame); err != nil {
			if terr := w.f.Truncate(start); terr == nil {
				w.f.Seek(start, io.SeekStart)
			}
			w.size = start
			return pos{}, false, fmt.Errorf("history: append: %w", err)
		}
		w.size += int64(len(w.frame))
	}
	if w.frame != nil && cap(w.frame) > 64<<10 {
		w.frame = nil // a large batch's buffer is not kept
	}
	switch w.opts.sync {
	case SyncAlways:
		if err := w.f.Sync(); err != nil {
			return pos{}, false, fmt.Errorf("history: fsync: %w", err)
		}
	case SyncInterval:
		w.dirty = true
		if w.timer == nil {
			w.timer = time.AfterFunc(w.opts.syncEvery, w.flushTick)
		}
	}
	return pos{w.seg, w.size}, w.size >= w.opts.segmentBytes, nil
}

// write gives buf to one write call, or two splitPause apart (the crash
// test's hook, so that a kill can tear a frame).
func (w *wal) write(buf []byte) error {
	if w.splitPause == 0 {
		_, err := w.f.Write(buf)
		return err
	}
	if _, err := w.f.Write(buf[:len(buf)/2]); err != nil {
		return err
	}
	time.Sleep(w.splitPause)
	_, err := w.f.Write(buf[len(buf)/2:])
	return err
}
