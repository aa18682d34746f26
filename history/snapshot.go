// snapshot.go: the summaries file of a state dir, rewritten atomically.

package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"attest-engine/atomicfile"
	"attest-engine/safedir"
)

const (
	snapshotFile    = "summaries.json"
	snapshotVersion = 1
)

// maxSnapshot bounds the summaries file read back (it is written by the
// engine, but a state dir may come from anywhere through Merge): the
// largest a store with the default bounds can write, so that a store can
// always read what it wrote. A fixed 1 GiB was less than a full default
// store (1,024 keys × 8,192 windows at ~157 bytes a window).
var maxSnapshot = sync.OnceValue(func() int64 { return snapshotBound(DefaultMaxKeys, DefaultMaxWindows) })

// snapshotBound is the largest summaries file of keys series of windows
// windows each: every window at its widest (every count at its largest),
// every name at MaxField bytes, each escaped to six bytes a byte (\u00XX),
// and 16 MiB for the list of merged dirs and the rest.
func snapshotBound(keys, windows int) int64 {
	widest := Summary{Window: math.MinInt64, Passes: math.MaxUint64, Fails: math.MaxUint64, Errors: math.MaxUint64,
		Skipped: math.MaxUint64, Fractional: math.MaxUint64, ScoreSum: math.MaxUint64, ScoreSq: [2]uint64{math.MaxUint64, math.MaxUint64}}
	for i := range widest.Hist {
		widest.Hist[i] = math.MaxUint64
	}
	w, _ := json.Marshal(widest)
	perWindow := int64(len(w)) + 1      // and its comma
	perKey := 3*6*int64(MaxField) + 512 // the key, its type and latest result_id; the series' other members
	return int64(keys)*(int64(windows)*perWindow+perKey) + 16<<20
}

// windowing is a state dir's window kind: count windows of Traces traces, or
// time windows of DurationNS nanoseconds.
type windowing struct {
	Traces     int64 `json:"traces,omitempty"`
	DurationNS int64 `json:"duration_ns,omitempty"`
	// Runs: each window is one run of a suite (Options.WindowRuns).
	Runs bool `json:"runs,omitempty"`
}

func (w windowing) String() string {
	if w.Runs {
		return "per-run"
	}
	if w.DurationNS > 0 {
		return time.Duration(w.DurationNS).String()
	}
	return fmt.Sprintf("%d-trace", w.Traces)
}

// meta is a state dir's identity and checkpoint.
type meta struct {
	ID     string    `json:"id"`
	Window windowing `json:"window"`
	// Merged lists the ids of the state dirs merged into this one (and
	// theirs, transitively).
	Merged []string `json:"merged,omitempty"`
	// Checkpoint: the summaries hold every log record before it.
	Checkpoint pos `json:"checkpoint"`
}

type snapshot struct {
	Version int `json:"version"`
	meta
	Keys map[string]*series `json:"keys"`
}

// errTorn marks a summaries file that is not whole: cut short, empty, or
// holding zeros where its data never reached the disk. Under the fsync
// policy never a power loss could leave one (a rename is durable before the
// data renamed, on XFS among others) before every write was synced; the
// log segments on disk still hold their records (Open rebuilds from them).
var errTorn = errors.New("not whole (cut short by a power loss?)")

// readSnapshot returns nil, nil when dir has none yet, and an error
// wrapping errTorn for a file that is not whole JSON. It decodes the file
// as a stream within lim (decodeSnapshot).
func readSnapshot(d *safedir.Dir, limit int64, lim snapLimits) (*snapshot, error) {
	path := d.Join(snapshotFile)
	f, err := d.Open(snapshotFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	if fi.Size() > limit {
		// Checked first: read through the limit, the file would look cut
		// short, and Open would rebuild it and lose what it holds.
		return nil, fmt.Errorf("history: %s: %d bytes, more than the %d a store with these bounds writes", path, fi.Size(), limit)
	}
	snap, err := decodeSnapshot(io.LimitReader(f, limit), lim)
	if err != nil {
		var syn *json.SyntaxError
		switch {
		case fi.Size() == 0:
			return nil, fmt.Errorf("history: %s: %w: empty", path, errTorn)
		case errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &syn):
			return nil, fmt.Errorf("history: %s: %w: %v", path, errTorn, err)
		}
		return nil, fmt.Errorf("history: %s: %w", path, err)
	}
	if snap.Version != snapshotVersion {
		return nil, fmt.Errorf("history: %s: version %d, want %d", path, snap.Version, snapshotVersion)
	}
	if snap.Window.Traces <= 0 && snap.Window.DurationNS <= 0 {
		return nil, fmt.Errorf("history: %s: no windowing", path)
	}
	if snap.Keys == nil {
		snap.Keys = map[string]*series{}
	}
	return snap, nil
}

// removeTempSnapshots removes the temporary files of summaries writes that a
// crash (SIGKILL between their creation and their rename) left behind: each
// is as large as the summaries, and every crash would add one. Only the
// holder of the dir's lock calls it, so no write is in flight. Before
// package atomicfile the temporary files were named summaries.json.tmp and
// digits: a dir of that time may still hold one.
func removeTempSnapshots(d *safedir.Dir) error {
	if err := d.RemoveTemps(snapshotFile); err != nil {
		return err
	}
	names, err := d.Names()
	if err != nil {
		return err
	}
	for _, name := range names {
		if !strings.HasPrefix(name, snapshotFile+".tmp") {
			continue
		}
		if err := d.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// replaceFile is safedir's WriteFile; a test sees through it the fsync
// policy each summaries write asks for.
var replaceFile = (*safedir.Dir).WriteFile

// writeSnapshot replaces dir's summaries file (package atomicfile): a crash
// leaves the old file or the new one, never a mix. The file and the
// directory are synced whatever the fsync policy: segments are removed once
// summaries covering them are written, and an unsynced file could come back
// from a power loss empty while the removals stayed, taking every summary
// of the removed segments with it, the store's history and not only its
// last records. The writes are few (at creation, each roll, Close):
// BenchmarkRollSummaries measures no difference beside the JSON.
func writeSnapshot(d *safedir.Dir, snap *snapshot) error {
	err := replaceFile(d, snapshotFile, 0o600, atomicfile.SyncAll, func(w io.Writer) error {
		return json.NewEncoder(w).Encode(snap)
	})
	if err != nil {
		return fmt.Errorf("history: write summaries: %w", err)
	}
	return nil
}

// capture is a copy of the summaries taken under mu, to be written without it.
type capture struct {
	gen  uint64
	snap snapshot
}

func (s *Store) captureLocked() *capture {
	s.snapGen++
	keys := make(map[string]*series, len(s.keys))
	for k, sr := range s.keys {
		c := *sr
		c.Windows, c.det = slices.Clone(sr.Windows), nil
		keys[k] = &c
	}
	m := s.meta
	m.Merged = slices.Clone(m.Merged)
	return &capture{gen: s.snapGen, snap: snapshot{Version: snapshotVersion, meta: m, Keys: keys}}
}

// persist writes c's summaries, unless newer ones were written meanwhile,
// then removes the log segments they cover beyond the retention bounds: a
// segment goes only once summaries covering it are on disk.
func (s *Store) persist(c *capture) error {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	if c.gen <= s.written {
		return nil
	}
	if s.snapPause != nil {
		s.snapPause()
	}
	if err := writeSnapshot(s.d, &c.snap); err != nil {
		return err
	}
	s.written = c.gen
	return s.log.retain(c.snap.Checkpoint.Seg)
}

// writeSnapshotLocked writes the summaries as they are, holding mu.
func (s *Store) writeSnapshotLocked() error {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	s.snapGen++
	s.written = s.snapGen
	return writeSnapshot(s.d, &snapshot{Version: snapshotVersion, meta: s.meta, Keys: s.keys})
}
