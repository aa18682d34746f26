// merge.go: combining the state dirs of shards (attest-engine merge).
package history

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"
)

// load reads a state dir without changing it: its summaries, plus the log
// records after their checkpoint (a dir whose writer was killed).
func load(dir string) (*snapshot, error) {
	snap, err := readSnapshot(dir)
	if err != nil {
		return nil, err
	}
	if snap == nil {
		return nil, fmt.Errorf("history: %s is not a state dir (no %s)", dir, snapshotFile)
	}
	st := &Store{opts: Options{
		WindowTraces: int(snap.Window.Traces), WindowDuration: time.Duration(snap.Window.DurationNS),
		MaxKeys: 1 << 30, // the shard kept no more keys than its own bound
	}.withDefaults(), keys: snap.Keys}
	segs, err := listSegments(dir)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	for _, n := range segs {
		if n < snap.Checkpoint.Seg {
			continue
		}
		from := int64(0)
		if n == snap.Checkpoint.Seg {
			from = snap.Checkpoint.Off
		}
		if _, _, err := scanSegment(filepath.Join(dir, segName(n)), from, func(r Result, _ pos) error {
			st.apply(&r)
			return nil
		}, n); err != nil {
			return nil, err
		}
	}
	return snap, nil
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
	if err == nil {
		keys := map[string]bool{}
		for k := range s.keys {
			keys[k] = true
		}
		for _, snap := range snaps {
			for k := range snap.Keys {
				keys[k] = true
			}
		}
		if len(keys) > s.opts.MaxKeys {
			err = fmt.Errorf("history: merge: %d assertions, more than the %d a state dir summarizes", len(keys), s.opts.MaxKeys)
		}
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
				d.bound(s.opts.MaxWindows, s.opts.Drift.BaselineN)
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

func snaps0(snaps []*snapshot, def *snapshot) *snapshot {
	if len(snaps) == 0 {
		return def
	}
	return snaps[0]
}

// Main is the merge command: merge DST SRC... It returns the exit status: 0
// merged, 1 failed, 2 usage.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("attest-engine merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: attest-engine merge DST SRC [SRC...]\n\nAdds the summaries of the state dirs SRC (the --state-dir of each shard) into DST.")
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() < 2 {
		fs.Usage()
		return 2
	}
	dst, srcs := fs.Arg(0), fs.Args()[1:]
	if err := Merge(dst, srcs...); err != nil {
		fmt.Fprintf(stderr, "attest-engine merge: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "merged %d state dirs into %s\n", len(srcs), dst)
	return 0
}
