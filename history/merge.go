// merge.go: combining the state dirs of shards (the merge command's storage side).

package history

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"attest-engine/safedir"
)

// load reads a state dir without changing it: its summaries, plus the log
// records after their checkpoint (a dir whose writer was killed).
func load(dir string) (*snapshot, error) {
	snap, _, err := loadRecovered(dir)
	return snap, err
}

// loadRecovered is load, reporting the corrupt runs it skipped, and the
// tails with no valid frame of segments before the last (a reader changes
// nothing: it cuts nothing; and the last segment's tail may be a frame its
// writer is writing).
func loadRecovered(dir string) (*snapshot, Recovery, error) {
	var rec Recovery
	d, err := safedir.Open(dir)
	if err != nil {
		return nil, rec, fmt.Errorf("history: %w", err)
	}
	defer d.Close()
	snap, err := readSnapshot(d, maxSnapshot(), defaultLimits)
	if err != nil {
		return nil, rec, err
	}
	if snap == nil {
		return nil, rec, fmt.Errorf("history: %s is not a state dir (no %s)", dir, snapshotFile)
	}
	st := &Store{opts: Options{
		WindowTraces: int(snap.Window.Traces), WindowDuration: time.Duration(snap.Window.DurationNS), WindowRuns: snap.Window.Runs,
		// New keys of the log beyond the bound are left out, as the
		// writer (with the default bound) left them out of its summaries.
		MaxKeys: DefaultMaxKeys,
	}.withDefaults(), keys: snap.Keys, dir: dir, d: d, meta: snap.meta}
	segs, err := listSegments(d)
	if err != nil {
		return nil, rec, fmt.Errorf("history: %w", err)
	}
	// The records after the checkpoint are applied as the writer applied
	// them: a superseding verdict replaces the one before it.
	st.verdicts = newVerdicts(st.opts.Verdicts)
	st.rebuildVerdicts(segs)
	for _, n := range segs {
		if n < snap.Checkpoint.Seg {
			continue
		}
		from := int64(0)
		if n == snap.Checkpoint.Seg {
			from = snap.Checkpoint.Off
		}
		res, err := scanSegment(d, n, from, func(r Result, _ pos) error {
			rec.Records++
			st.apply(&r)
			return nil
		})
		if err != nil {
			return nil, rec, fmt.Errorf("history: %w", err)
		}
		runs := res.skipped
		if res.tail != nil && n != segs[len(segs)-1] {
			// the last segment's tail may be a frame being written
			runs = append(runs, *res.tail)
		}
		st.rec = Recovery{}
		st.noteCorrupt(n, runs, "")
		rec.Corrupt = append(rec.Corrupt, st.rec.Corrupt...)
		rec.SkippedBytes += st.rec.SkippedBytes
	}
	return snap, rec, nil
}

// Merge adds the summaries of the state dirs srcs into the state dir dst
// (created when missing). The sources are only read; dst's log is not
// touched (the merged dir holds summaries: query raw records in the shard
// dirs). All dirs must share one windowing. Merging is a sum: a dir
// already merged into dst, directly or through another, is refused.
func Merge(dst string, srcs ...string) error {
	if len(srcs) == 0 {
		return errors.New("history: merge: no source dir")
	}
	var snaps []*snapshot
	covered := map[string]string{}
	claim := func(m *meta, dir string) error {
		for _, id := range append([]string{m.ID}, m.Merged...) {
			if prev, dup := covered[id]; dup {
				return fmt.Errorf("history: merge: %s and %s share state dir %s: it would be counted twice", prev, dir, id)
			}
			covered[id] = dir
		}
		return nil
	}
	for _, src := range srcs {
		snap, err := load(src)
		if err != nil {
			return err
		}
		if snap.Window != snaps0(snaps, snap).Window {
			return fmt.Errorf("history: merge: %s uses %s windows, %s uses %s", src, snap.Window, srcs[0], snaps[0].Window)
		}
		if err := claim(&snap.meta, src); err != nil {
			return err
		}
		snaps = append(snaps, snap)
	}
	if n := distinctKeys(nil, snaps); n > DefaultMaxKeys {
		return &TooManyKeys{Keys: n, MaxKeys: DefaultMaxKeys}
	}
	w := snaps[0].Window
	s, err := Open(dst, Options{WindowTraces: int(w.Traces), WindowDuration: time.Duration(w.DurationNS), WindowRuns: w.Runs, NoAlertFile: true})
	if err != nil {
		return err
	}
	s.mu.Lock()
	err = claim(&s.meta, dst)
	if err == nil && len(covered)-1 > MaxMerged {
		// every id claimed but dst's own goes to its merged list
		err = fmt.Errorf("history: merge: %s would list %d merged state dirs, more than the %d a state dir holds", dst, len(covered)-1, MaxMerged)
	}
	if n := distinctKeys(s.keys, snaps); err == nil && n > s.opts.MaxKeys {
		err = &TooManyKeys{Keys: n, MaxKeys: s.opts.MaxKeys, Dst: dst}
	}
	if err == nil {
		for _, snap := range snaps {
			for key, sr := range snap.Keys {
				d := s.keys[key]
				if d == nil {
					d = &series{}
					s.keys[key] = d
				}
				d.merge(sr)
				d.bound(s.opts.MaxWindows)
			}
			s.meta.Merged = append(s.meta.Merged, snap.ID)
			s.meta.Merged = append(s.meta.Merged, snap.Merged...)
		}
		slices.Sort(s.meta.Merged)
	}
	s.mu.Unlock()
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}

// TooManyKeys is Merge's refusal of sources that, with what dst holds,
// name more assertion keys than a state dir summarizes (MaxKeys): nothing
// is merged, rather than some keys' results left out. With stable keys
// (package resultkey) a suite's assertions keep their keys from run to
// run, so only a suite of more than MaxKeys assertions reaches the bound:
// merge its shards into more than one dir.
type TooManyKeys struct {
	Keys, MaxKeys int
	Dst           string // "" when the sources alone are over the bound
}

func (e *TooManyKeys) Error() string {
	where := "the sources hold"
	if e.Dst != "" {
		where = "the sources and " + e.Dst + " hold"
	}
	return fmt.Sprintf("history: merge: %s %d assertion keys, more than the %d a state dir summarizes: nothing was merged (merge fewer dirs into each destination)", where, e.Keys, e.MaxKeys)
}

// distinctKeys counts the keys of have and of every snapshot, once each.
func distinctKeys(have map[string]*series, snaps []*snapshot) int {
	seen := make(map[string]struct{}, len(have))
	for k := range have {
		seen[k] = struct{}{}
	}
	for _, snap := range snaps {
		for k := range snap.Keys {
			seen[k] = struct{}{}
		}
	}
	return len(seen)
}

func snaps0(snaps []*snapshot, def *snapshot) *snapshot {
	if len(snaps) == 0 {
		return def
	}
	return snaps[0]
}
