// log.go: the append-only segment log of the state dir: framing, fsync
// policy, torn-tail recovery and retention.

package history

import (
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"attest-engine/safedir"
)

// SyncPolicy says when the log is flushed to stable storage with fsync.
type SyncPolicy uint8

const (
	// SyncAlways fsyncs before AddAll returns: an acknowledged record
	// survives a power loss.
	SyncAlways SyncPolicy = 1
	// SyncInterval fsyncs at most every Options.SyncEvery (and at Close):
	// a power loss can lose that much; a process crash loses nothing.
	SyncInterval SyncPolicy = 2
	// SyncNever leaves flushing to the operating system; a process crash
	// (SIGKILL included) still loses nothing acknowledged.
	SyncNever SyncPolicy = 3
)

// ParseSync reads "always", "interval" or "never".
func ParseSync(s string) (SyncPolicy, error) {
	switch s {
	case "always":
		return SyncAlways, nil
	case "interval":
		return SyncInterval, nil
	case "never":
		return SyncNever, nil
	}
	return 0, fmt.Errorf("history: unknown fsync policy %q (want always, interval or never)", s)
}

const (
	frameHeader = 8       // uint32 payload length, uint32 CRC-32C of the payload, little endian
	maxPayload  = 1 << 16 // a valid payload is at most 4*MaxField plus a few dozen bytes
	segMagic    = "ATHLOG\x00\x01"
	segSuffix   = ".log"
)

var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// pos is a place in the log: a segment number and a byte offset in it.
type pos struct {
	Seg uint64 `json:"segment"`
	Off int64  `json:"offset"`
}

func segName(n uint64) string { return fmt.Sprintf("%016x%s", n, segSuffix) }

// listSegments returns the segment numbers in d, ascending.
func listSegments(d *safedir.Dir) ([]uint64, error) {
	names, err := d.Names()
	if err != nil {
		return nil, err
	}
	var segs []uint64
	for _, name := range names {
		if !strings.HasSuffix(name, segSuffix) || len(name) != 16+len(segSuffix) {
			continue
		}
		if n, err := strconv.ParseUint(strings.TrimSuffix(name, segSuffix), 16, 64); err == nil {
			segs = append(segs, n)
		}
	}
	slices.Sort(segs)
	return segs, nil
}

// logOptions are the log's part of Options.
type logOptions struct {
	sync         SyncPolicy
	syncEvery    time.Duration
	segmentBytes int64
	maxBytes     int64
	maxAge       time.Duration
	now          func() time.Time
}

// wal is the open log: one active segment appended to, older ones sealed.
type wal struct {
	dir  *safedir.Dir
	opts logOptions

	mu         sync.Mutex // guards f, dirty, timer against the interval flusher
	f          *os.File
	seg        uint64
	size       int64
	dirty      bool
	timer      *time.Timer
	frame      []byte
	closed     bool
	splitPause time.Duration // test hook: write a frame in two write calls this far apart, so a kill can tear it
}

// openActive opens segment seg for appending at size (recovered: a
// longer file is cut there, a torn tail), or creates it (O_EXCL: a file or
// link planted under the next segment's name is an error, never written).
func (w *wal) openActive(seg uint64, size int64, create bool) error {
	name := segName(seg)
	var f *os.File
	var err error
	if create {
		f, err = w.dir.Create(name, 0o644)
	} else {
		f, err = w.dir.OpenFile(name, os.O_RDWR, 0)
	}
	if err != nil {
		return err
	}
	if size < int64(len(segMagic)) {
		// new, or torn while its header was written: (re)write the header
		if err = f.Truncate(0); err == nil {
			_, err = f.WriteAt([]byte(segMagic), 0)
		}
		if err == nil && w.opts.sync != SyncNever {
			err = f.Sync()
		}
		if err == nil && w.opts.sync != SyncNever {
			err = w.dir.Sync()
		}
		if err != nil {
			f.Close()
			return err
		}
		size = int64(len(segMagic))
	} else if fi, err := f.Stat(); err != nil || fi.Size() > size {
		if err == nil {
			err = f.Truncate(size)
		}
		if err != nil {
			f.Close()
			return fmt.Errorf("cut torn tail: %w", err)
		}
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		f.Close()
		return err
	}
	w.f, w.seg, w.size = f, seg, size
	return nil
}

// flushTick is the interval policy's timer.
// The fsync runs outside the lock, so a recording never waits for it (an
// *os.File may be synced while written; one closed meanwhile by a roll was
// synced by it).
func (w *wal) flushTick() {
	w.mu.Lock()
	w.timer = nil
	f, dirty := w.f, w.dirty && !w.closed
	w.dirty = false
	w.mu.Unlock()
	if dirty {
		f.Sync() // a failure here resurfaces at the next roll or Close
	}
}

// roll seals the active segment and starts the next one.
func (w *wal) roll() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.opts.sync != SyncNever {
		if err := w.f.Sync(); err != nil {
			return fmt.Errorf("history: fsync: %w", err)
		}
		w.dirty = false
	}
	if err := w.f.Close(); err != nil {
		return err
	}
	return w.openActive(w.seg+1, 0, true)
}

// retain removes sealed segments below keepFrom beyond the age and size
// bounds, oldest first. The active segment is never removed.
func (w *wal) retain(keepFrom uint64) error {
	segs, err := listSegments(w.dir)
	if err != nil {
		return err
	}
	var total int64
	type seg struct {
		n    uint64
		size int64
		mod  time.Time
	}
	var all []seg
	for _, n := range segs {
		fi, err := w.dir.Lstat(segName(n))
		if err != nil {
			continue
		}
		all = append(all, seg{n, fi.Size(), fi.ModTime()})
		total += fi.Size()
	}
	now := w.opts.now()
	w.mu.Lock()
	active := w.seg
	w.mu.Unlock()
	for _, s := range all {
		if s.n >= keepFrom || s.n == active {
			break
		}
		old := w.opts.maxAge > 0 && now.Sub(s.mod) > w.opts.maxAge
		big := w.opts.maxBytes > 0 && total > w.opts.maxBytes
		if !old && !big {
			break
		}
		if err := w.dir.Remove(segName(s.n)); err != nil {
			return err
		}
		total -= s.size
	}
	return nil
}

// close flushes and closes the active segment.
func (w *wal) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	var err error
	if w.opts.sync != SyncNever {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}
