// merge.go: combining the state dirs of shards (the merge command's storage side).

package history

import (
	"errors"
	"fmt"
	"slices"
	"strings"
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
		WindowTraces: int(snap.Window.Traces), WindowDuration: time.Duration(snap.Window.DurationNS),
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
	w := snaps[0].Window
	s, err := Open(dst, Options{WindowTraces: int(w.Traces), WindowDuration: time.Duration(w.DurationNS), NoAlertFile: true})
	if err != nil {
		return err
	}
	s.mu.Lock()
	err = claim(&s.meta, dst)
	if err == nil && len(covered)-1 > MaxMerged {
		// every id claimed but dst's own goes to its merged list
		err = fmt.Errorf("history: merge: %s would list %d merged state dirs, more than the %d a state dir holds", dst, len(covered)-1, MaxMerged)
	}
	var dropped int
	if err == nil {
		keep := keptKeys(s.keys, snaps, s.opts.MaxKeys)
		for _, snap := range snaps {
			for key, sr := range snap.Keys {
				d := s.keys[key]
				if d == nil {
					if !keep[key] {
						dropped++
						s.overflow += sr.Arrivals
						continue
					}
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
	if err == nil && dropped > 0 {
		return &KeysDropped{Dropped: dropped, MaxKeys: s.opts.MaxKeys}
	}
	return err
}

// KeysDropped is Merge's note that the sources held more assertions than a
// state dir summarizes: the merge is done, with the MaxKeys assertions of
// most results (ties by name) kept, so the choice does not depend on the
// order of the sources. A session keeps its first MaxKeys instead; SDKs that
// make a new assertion_id per run (../shared/sdk-compat.md) fill a shard's
// table with ids seen once, and refusing the merge would lose the stable ones.
type KeysDropped struct {
	Dropped, MaxKeys int
}

func (e *KeysDropped) Error() string {
	return fmt.Sprintf("history: merge: %d assertions beyond the %d a state dir summarizes were left out (those with the fewest results)", e.Dropped, e.MaxKeys)
}

// keptKeys chooses the keys a merge keeps: those already in dst, then the
// others by total results (most first), ties by name, up to limit in all.
func keptKeys(have map[string]*series, snaps []*snapshot, limit int) map[string]bool {
	total := map[string]uint64{}
	for _, snap := range snaps {
		for k, sr := range snap.Keys {
			if have[k] == nil {
				total[k] += sr.Arrivals
			}
		}
	}
	order := make([]string, 0, len(total))
	for k := range total {
		order = append(order, k)
	}
	slices.SortFunc(order, func(a, b string) int {
		if total[a] != total[b] {
			if total[a] > total[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	keep := map[string]bool{}
	for _, k := range order[:max(0, min(len(order), limit-len(have)))] {
		keep[k] = true
	}
	return keep
}

func snaps0(snaps []*snapshot, def *snapshot) *snapshot {
	if len(snaps) == 0 {
		return def
	}
	return snaps[0]
}
