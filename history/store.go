// store.go: the state dir: Open recovers it, AddAll (batch.go) records results
// and returns the alerts they raised, Close seals it.

package history

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"attest-engine/safedir"
)

// Recovery reports what Open found.
type Recovery struct {
	Records        int   // log records replayed after the snapshot
	TruncatedBytes int64 // bytes of a torn tail cut from the last segment
	TornReason     string
	// Corrupt lists the corrupt runs of the segments replayed (where, why,
	// how many bytes): the records after each were found again and
	// replayed (doc.go, "Recovery"); the bytes are left as they are.
	Corrupt []string
	// SkippedBytes counts the bytes of those runs.
	SkippedBytes int64
	// SummariesRebuilt says why summaries.json was not whole (a power loss
	// before its data reached the disk): the summaries were rebuilt from
	// every log segment on disk. "" when it was read.
	SummariesRebuilt string
}

// Store is an open state dir. Its methods are safe for concurrent use.
type Store struct {
	dir    string
	d      *safedir.Dir // dir, opened once: every file of it is opened through it
	opts   Options
	log    *wal
	unlock func()

	mu        sync.Mutex
	meta      meta
	keys      map[string]*series
	overflow  uint64 // results of keys beyond MaxKeys
	late      uint64 // results of windows too far back (lateWindows)
	verdicts  *verdicts
	dups      uint64 // results refused: their result id was held
	rec       Recovery
	alertF    *os.File
	alertSize int64 // the alert file's length after its last whole line
	hook      *webhook
	closed    bool
	readOnly  bool   // OpenReadOnly: no log, no lock, no sinks
	snapGen   uint64 // summaries captured for writing so far

	// snapMu orders the summaries writes (and the retention after them),
	// made outside mu: written is the generation on disk, and an older
	// capture is never written over a newer one. Lock order: mu, snapMu.
	snapMu    sync.Mutex
	written   uint64
	snapPause func() // test hook: runs before a roll's summaries are written
}

// Open opens or creates the state dir dir and recovers it: the summary
// snapshot is loaded, the log after it replayed, and a torn record at the
// tail of the last segment cut off (doc.go, "Recovery").
func Open(dir string, opts Options) (*Store, error) {
	opts = opts.withDefaults()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	d, err := openStateDir(dir)
	if err != nil {
		return nil, err
	}
	unlock := func() { d.Close() }
	s := &Store{dir: dir, d: d, opts: opts, unlock: unlock, keys: map[string]*series{}}
	if err := s.recover(); err != nil {
		unlock()
		return nil, err
	}
	if !opts.NoAlertFile {
		f, size, err := openAlertFile(d, opts.AlertFile)
		if err != nil {
			s.log.close()
			unlock()
			return nil, fmt.Errorf("history: alert file: %w", err)
		}
		s.alertF, s.alertSize = f, size
	}
	if opts.Webhook != nil {
		s.hook = startWebhook(*opts.Webhook, opts.Logger)
	}
	return s, nil
}

func (s *Store) windowing() windowing {
	if s.opts.WindowDuration > 0 {
		return windowing{DurationNS: int64(s.opts.WindowDuration)}
	}
	return windowing{Traces: int64(s.opts.WindowTraces), Runs: s.opts.WindowRuns}
}

// WindowRuns reports whether each window is a run (Options.WindowRuns),
// as the dir was created.
func (s *Store) WindowRuns() bool { return s.opts.WindowRuns }

// LastRun is the highest Seq any key holds: under WindowRuns, the last
// run recorded (0 for none).
func (s *Store) LastRun() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var last uint64
	for _, sr := range s.keys {
		last = max(last, sr.Latest.Seq)
	}
	return last
}

// openStateDir opens dir for a writer: it must be private to this user
// (safedir.Private: no one else can plant files in it), and it is locked
// (safedir.Lock, on the directory itself: one writer per dir).
func openStateDir(dir string) (*safedir.Dir, error) {
	d, err := safedir.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	if err := d.Private(); err != nil {
		d.Close()
		return nil, fmt.Errorf("history: state dir %w", err)
	}
	if err := d.Lock(); err != nil {
		d.Close()
		if errors.Is(err, safedir.ErrLocked) {
			return nil, &InUseError{Dir: dir}
		}
		return nil, fmt.Errorf("history: %w", err)
	}
	return d, nil
}

// recover loads the snapshot and replays the log after it.
func (s *Store) recover() error {
	if err := removeTempSnapshots(s.d); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	// A store reads what its own bounds let it write, and never less than
	// the defaults allow.
	lim := snapLimits{keys: max(DefaultMaxKeys, s.opts.MaxKeys), windows: max(DefaultMaxWindows, s.opts.MaxWindows)}
	snap, err := readSnapshot(s.d, max(maxSnapshot(), snapshotBound(lim.keys, lim.windows)), lim)
	if errors.Is(err, errTorn) {
		// Summaries not whole (doc.go, "Recovery"): rebuilt from every
		// segment on disk, as for a new dir with a log.
		s.rec.SummariesRebuilt = err.Error()
		s.opts.Logger.Warn("history: the summaries file is not whole; rebuilding it from the log segments on disk (results of segments already removed by retention are no longer summarized; the dir has a new id for merge)",
			"dir", s.dir, "error", err.Error())
		snap, err = nil, nil
	}
	if err != nil {
		return err
	}
	if snap == nil {
		// A new dir: its identity and windowing are written at once, so
		// that Merge can read any state dir, even one killed before Close.
		snap = &snapshot{Version: snapshotVersion, meta: meta{ID: newDirID(s.dir), Window: s.windowing()}, Keys: map[string]*series{}}
		if err := writeSnapshot(s.d, snap); err != nil {
			return err
		}
	} else if s.opts.AdoptWindowing {
		w := snap.Window
		s.opts.WindowTraces, s.opts.WindowDuration, s.opts.WindowRuns = int(w.Traces), time.Duration(w.DurationNS), w.Runs
	} else if snap.Window != s.windowing() {
		return fmt.Errorf("history: %s uses %s windows, not the %s asked for", s.dir, snap.Window, s.windowing())
	}
	s.meta = snap.meta
	s.keys = snap.Keys
	for _, sr := range s.keys {
		sr.bound(s.opts.MaxWindows)
	}
	s.log = &wal{dir: s.d, opts: logOptions{
		sync: s.opts.Sync, syncEvery: s.opts.SyncEvery, segmentBytes: s.opts.SegmentBytes,
		maxBytes: s.opts.MaxBytes, maxAge: s.opts.MaxAge, now: s.opts.Now,
	}}
	segs, err := listSegments(s.d)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if s.opts.Verdicts > 0 {
		s.verdicts = newVerdicts(s.opts.Verdicts)
		s.rebuildVerdicts(segs)
	}
	var lastSeg uint64 = max(1, s.meta.Checkpoint.Seg)
	var lastSize int64
	create := true // no segment to append to: create lastSeg
	for i, n := range segs {
		if n < s.meta.Checkpoint.Seg {
			continue
		}
		from := int64(0)
		if n == s.meta.Checkpoint.Seg {
			from = s.meta.Checkpoint.Off
		}
		res, err := scanSegment(s.d, n, from, func(r Result, _ pos) error {
			s.rec.Records++
			s.apply(&r)
			return nil
		})
		if err != nil {
			return fmt.Errorf("history: recover %s: %w", s.d.Join(segName(n)), err)
		}
		s.noteCorrupt(n, res.skipped, "")
		lastSeg, lastSize, create = n, res.end, false
		switch {
		case res.tail == nil:
		case i < len(segs)-1:
			// A sealed segment's bad tail is corruption, not a crash: left.
			s.noteCorrupt(n, []skip{*res.tail}, " (the rest of the segment)")
		case res.gaveUp:
			// Not searched to its end: it may hold records. Left as it
			// is, and the log goes on in a new segment.
			s.noteCorrupt(n, []skip{*res.tail}, " (the rest of the segment, left as it is: the log goes on in the next one)")
			lastSeg, lastSize, create = n+1, 0, true
		default:
			// The last segment's tail holds no valid frame: a record torn
			// by a crash. It is cut (openActive) so the next record
			// follows the last whole one.
			s.rec.TruncatedBytes, s.rec.TornReason = res.tail.N, res.tail.Reason
		}
	}
	if err := s.log.openActive(lastSeg, lastSize, create); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if cp := s.meta.Checkpoint; cp.Seg == s.log.seg && cp.Off > s.log.size {
		// The log lost its tail behind the checkpoint: the records now
		// appended go where it ends, so the checkpoint moves back there
		// before any is, or a restart would replay from the old one, in
		// the middle of a new frame, and cut every record after it.
		s.meta.Checkpoint = pos{s.log.seg, s.log.size}
		if err := s.writeSnapshotLocked(); err != nil {
			s.log.close()
			return err
		}
	}
	if s.rec.Corrupt != nil {
		s.opts.Logger.Warn("history: corrupt log frames were skipped; the valid frames after them were replayed", "dir", s.dir, "skipped_bytes", s.rec.SkippedBytes, "where", s.rec.Corrupt)
	}
	if s.rec.TruncatedBytes > 0 {
		s.opts.Logger.Warn("history: a torn record was cut from the end of the log (a crash while it was written)", "dir", s.dir, "segment", segName(s.log.seg), "cut_bytes", s.rec.TruncatedBytes, "reason", s.rec.TornReason)
	}
	// Bring each key's live detector to where the windows are, without
	// alerting again: alerts already raised were raised before the restart.
	// The last window may still be open: it is stepped when a later one
	// starts, as in an uninterrupted run.
	for key, sr := range s.keys {
		last := int64(math.MaxInt64)
		if n := len(sr.Windows); n > 0 {
			last = sr.Windows[n-1].Window
		}
		s.catchUp(key, sr, last, true)
	}
	return nil
}

// noteCorrupt reports corrupt runs of segment seg in Recovery.
func (s *Store) noteCorrupt(seg uint64, runs []skip, what string) {
	for _, k := range runs {
		s.rec.Corrupt = append(s.rec.Corrupt, fmt.Sprintf("%s at offset %d: %s: %d bytes skipped%s", segName(seg), k.Off, k.Reason, k.N, what))
		s.rec.SkippedBytes += k.N
	}
}

// Recovery reports what Open found and repaired.
func (s *Store) Recovery() Recovery { return s.rec }

// StateDir is the state dir as Open opened it, checked private and locked
// (nil for a Store from OpenReadOnly), for the files other packages keep
// there: renaming or replacing the dir's path after Open changes nothing
// for them either. It is valid until Close; the caller does not close it.
func (s *Store) StateDir() *safedir.Dir { return s.d }

// Dir is the state dir.
func (s *Store) Dir() string { return s.dir }

// apply adds r to its key's summaries; it reports the series and window, or
// nil when the key is beyond MaxKeys or r is a duplicate (doc.go,
// "Verdicts"). A verdict superseding one the index holds takes its place:
// the old one is taken out of its window and r counted there.
func (s *Store) apply(r *Result) (*series, int64) {
	var old *verdict
	if s.verdicts != nil {
		switch adm, e := s.verdicts.admit(r); adm {
		case admitDuplicate:
			s.dups++
			return nil, 0
		case admitReplace:
			old = e
		}
	}
	sr := s.keys[r.Assertion]
	if sr == nil {
		if len(s.keys) >= s.opts.MaxKeys {
			if s.overflow == 0 {
				s.opts.Logger.Warn("history: too many assertions; results of new ones are logged but not summarized", "max_keys", s.opts.MaxKeys)
			}
			s.overflow++
			return nil, 0
		}
		sr = &series{}
		s.keys[r.Assertion] = sr
	}
	sr.observe(r)
	var w int64
	if old != nil && old.sr == sr {
		w = old.window
		if sum := sr.find(w); sum != nil {
			sum.sub(old.status, old.score)
		}
	} else {
		sr.Arrivals++
		w = windowOf(r, sr, int64(s.opts.WindowTraces), s.opts.WindowDuration, s.opts.Now)
	}
	if sum := sr.at(w); sum != nil {
		sum.add(r.Status, r.Score)
	} else {
		if s.late == 0 {
			s.opts.Logger.Warn("history: a result came for a window older than its assertion's newest 256 that the store does not hold; such late results are logged but not summarized (counted in the series' dropped)",
				"assertion", r.Assertion, "window", w)
		}
		s.late++
		sr.Dropped++
	}
	sr.bound(s.opts.MaxWindows)
	s.remember(r, sr, w)
	return sr, w
}

// remember puts r in the verdict index as its (trace, assertion)'s latest.
func (s *Store) remember(r *Result, sr *series, w int64) {
	if s.verdicts == nil || r.ResultID == "" {
		return
	}
	s.verdicts.put(verdict{key: s.verdicts.keyOf(r), rid: s.verdicts.ridOf(r.ResultID), sr: sr, window: w,
		score: r.Score, through: r.Through, spans: r.Spans, status: r.Status})
}

// index puts a record the summaries already hold (one before the
// checkpoint) in the verdict index, in the window apply gave it.
func (s *Store) index(r *Result) {
	adm, old := s.verdicts.admit(r)
	sr := s.keys[r.Assertion]
	if adm == admitDuplicate || sr == nil {
		return
	}
	w := int64(0)
	if old != nil && old.sr == sr {
		w = old.window
	} else {
		w = windowOf(r, sr, int64(s.opts.WindowTraces), s.opts.WindowDuration, s.opts.Now)
	}
	s.remember(r, sr, w)
}

// catchUp steps the key's live detector over the windows before w (the
// windows a result in window w has closed). quiet discards the alerts.
func (s *Store) catchUp(key string, sr *series, w int64, quiet bool) []Alert {
	if sr.det == nil {
		sr.det = newDetector(key, s.opts.Drift)
	}
	var out []Alert
	i := 0
	if sr.started {
		i = sort.Search(len(sr.Windows), func(i int) bool { return sr.Windows[i].Window >= sr.stepped })
	}
	for ; i < len(sr.Windows); i++ {
		win := &sr.Windows[i]
		if win.Window >= w {
			break
		}
		out = append(out, sr.det.step(win)...)
		sr.stepped, sr.started = win.Window+1, true
	}
	if quiet {
		return nil
	}
	for i := range out {
		out[i].Label = sr.Label
	}
	return out
}

// InUseError is Open's refusal of a state dir another writer holds (its
// lock on the directory): one writer per dir.
type InUseError struct{ Dir string }

func (e *InUseError) Error() string {
	return "history: state dir " + e.Dir + " is in use by another process"
}

// ErrClosed is returned by a Store after Close.
var ErrClosed = errors.New("history: the store is closed")

// add records valid results: one write call to the log (appendAll), then
// the summaries, the detectors and the sinks, under the store's lock. When
// the segment filled, the summaries covering it are written after the lock
// is released: that can take a while on a large store, and meanwhile other
// callers record and query.
func (s *Store) add(rs []*Result) ([]Alert, error) {
	s.mu.Lock()
	alerts, snap, err := s.addLocked(rs)
	s.mu.Unlock()
	if err == nil && snap != nil {
		err = s.persist(snap)
	}
	return alerts, err
}

func (s *Store) addLocked(rs []*Result) ([]Alert, *capture, error) {
	if s.readOnly {
		return nil, nil, ErrReadOnly
	}
	if s.closed {
		return nil, nil, ErrClosed
	}
	if s.verdicts != nil {
		// A result id already held is not logged (nor counted, by apply).
		kept := rs[:0:0]
		for _, r := range rs {
			if adm, _ := s.verdicts.admit(r); adm == admitDuplicate {
				s.dups++
				continue
			}
			kept = append(kept, r)
		}
		if rs = kept; len(rs) == 0 {
			return nil, nil, nil
		}
	}
	p, full, err := s.log.appendAll(rs)
	if err != nil {
		return nil, nil, err
	}
	var alerts []Alert
	for _, r := range rs {
		if sr, w := s.apply(r); sr != nil {
			alerts = append(alerts, s.catchUp(r.Assertion, sr, w, false)...)
		}
	}
	s.emit(alerts)
	if !full {
		return alerts, nil, nil
	}
	snap, err := s.rollLocked(p)
	return alerts, snap, err
}

// rollLocked seals the full segment and starts a new one. It returns the
// summaries covering the sealed segment, for persist to write.
func (s *Store) rollLocked(p pos) (*capture, error) {
	s.meta.Checkpoint = pos{p.Seg + 1, 0}
	if err := s.log.roll(); err != nil {
		return nil, err
	}
	return s.captureLocked(), nil
}

// Close writes the snapshot, flushes the log, releases the state dir, and
// waits (bounded) for the webhook's queue. The wait is outside the store's
// lock: a caller of Add, Keys or Drift meanwhile is answered at once (Add
// with ErrClosed), not after up to CloseWait.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed || s.readOnly {
		s.closed = true
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.meta.Checkpoint = pos{s.log.seg, s.log.size}
	err := s.log.close()
	if serr := s.writeSnapshotLocked(); err == nil {
		err = serr
	}
	if s.alertF != nil {
		if cerr := s.alertF.Close(); err == nil {
			err = cerr
		}
	}
	s.unlock()
	hook := s.hook // no alert is enqueued once closed is set
	s.mu.Unlock()
	if hook != nil {
		hook.close()
	}
	return err
}

// Keys lists the assertion names with history, sorted.
func (s *Store) Keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(s.keys))
	for k := range s.keys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Overflow counts results not summarized because of MaxKeys.
func (s *Store) Overflow() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.overflow
}

// newDirID names a new state dir, so that Merge can refuse to count one
// twice. It is an identifier, not a seeded value: it mixes the path, the
// process id and the time.
func newDirID(dir string) string {
	abs, _ := filepath.Abs(dir)
	h := sha256.Sum256([]byte(abs + "\x00" + strconv.Itoa(os.Getpid()) + "\x00" + time.Now().String()))
	return hex.EncodeToString(h[:8])
}
