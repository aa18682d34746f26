// series.go: one assertion's windows, in window order and bounded.

package history

import (
	"cmp"
	"slices"
	"sort"
	"time"
)

// latest identifies the most recent result of a key: the greatest
// (seq, timestamp, result id), so merging picks the same one in any order.
type latest struct {
	Seq       uint64  `json:"seq"`
	Timestamp int64   `json:"timestamp_ns,omitempty"`
	ResultID  string  `json:"result_id"`
	Score     float64 `json:"score"`
	Set       bool    `json:"set"`
}

func (l latest) less(o latest) bool {
	if l.Set != o.Set {
		return !l.Set
	}
	if l.Seq != o.Seq {
		return l.Seq < o.Seq
	}
	if l.Timestamp != o.Timestamp {
		return l.Timestamp < o.Timestamp
	}
	if l.ResultID != o.ResultID {
		return l.ResultID < o.ResultID
	}
	return l.Score < o.Score
}

// series holds a key's summaries. Its exported fields are the snapshot's.
type series struct {
	Type string `json:"type"`
	// Label is how a person names the key (Result.Label): the least
	// non-empty one seen, so that merges agree whatever their order.
	Label    string    `json:"label,omitempty"`
	Arrivals uint64    `json:"arrivals"` // results seen, for count windows of results without a seq
	Latest   latest    `json:"latest"`
	Windows  []Summary `json:"windows"`
	// Dropped counts the results of windows removed by the MaxWindows bound.
	Dropped uint64 `json:"dropped,omitempty"`

	det     *detector // live detector; steps every window below stepped
	stepped int64
	started bool
	moves   uint64 // windows moved in memory by at and bound (TestHostileDirs counts them)
}

// lateWindows bounds how far back a window a key does not hold is
// inserted: among its newest lateWindows windows. A result for an older
// window the key does not hold is late (at returns nil): counted in
// Dropped, not summarized. Inserting it would move every newer window in
// memory (up to MaxWindows × 152 bytes), and a log ordered against its
// windows (a crafted state dir, or time windows over traces read far out
// of order) would cost that for each record. Results of one input, read
// in order, are at most a window or two out of order (--jobs).
const lateWindows = 256

// at returns the summary of window w, inserting it in order; nil when w
// is late (lateWindows).
func (s *series) at(w int64) *Summary {
	if n := len(s.Windows); n > 0 && s.Windows[n-1].Window == w {
		return &s.Windows[n-1]
	}
	i, found := slices.BinarySearchFunc(s.Windows, w, func(x Summary, w int64) int {
		switch {
		case x.Window < w:
			return -1
		case x.Window > w:
			return 1
		}
		return 0
	})
	if !found {
		if len(s.Windows)-i > lateWindows {
			return nil
		}
		s.moves += uint64(len(s.Windows) - i)
		s.Windows = slices.Insert(s.Windows, i, Summary{Window: w})
	}
	return &s.Windows[i]
}

// find returns the summary of window w, or nil when it is not held.
func (s *series) find(w int64) *Summary {
	i, found := slices.BinarySearchFunc(s.Windows, w, func(x Summary, w int64) int {
		switch {
		case x.Window < w:
			return -1
		case x.Window > w:
			return 1
		}
		return 0
	})
	if !found {
		return nil
	}
	return &s.Windows[i]
}

// observe folds r's identity into the series' type and latest result.
func (s *series) observe(r *Result) {
	if s.Type == "" || (r.Type != "" && r.Type < s.Type) {
		s.Type = r.Type // the least non-empty type: order-independent
	}
	if s.Label == "" || (r.Label != "" && r.Label < s.Label) {
		s.Label = r.Label
	}
	l := latest{Seq: r.Seq, ResultID: r.ResultID, Score: r.Score, Set: true}
	if !r.Timestamp.IsZero() {
		l.Timestamp = r.Timestamp.UnixNano()
	}
	if s.Latest.less(l) {
		s.Latest = l
	}
}

// bound keeps at most max windows of a key: its first max/8 window ids
// (where its baseline lies: 1,024 windows, 20,480 traces at the defaults)
// and its latest ones, from a start that moves in steps of max/16 ids so
// that windows are dropped max/16 at a time, not one per new window (each
// drop moves the kept windows in memory). The windows dropped add their
// results to Dropped. Which windows stay depends only on window ids — the
// least the key holds and the greatest — never on counts or on the order
// results came in: a shard, holding a subset of a single run's windows,
// keeps every window the single run keeps, and a merge bounding the sum
// again holds exactly the single run's windows (doc.go, "Bounds").
func (s *series) bound(max int) {
	if len(s.Windows) <= 1 {
		return
	}
	lead, step := max/8, max/16
	if lead == 0 && max > 1 {
		lead = 1
	}
	step = cmp.Or(step, 1)
	recent := max - lead - step // ids kept before the step the latest is in
	if recent < 1 {
		lead, step, recent = 0, 1, max
	}
	first, last := s.Windows[0].Window, s.Windows[len(s.Windows)-1].Window
	r := floorDiv(last, int64(step)) * int64(step) // ≥ MinInt64, a multiple of step
	// The ids ascend, so the windows dropped are one run of indices, found
	// by binary search (the check runs on every result). Differences of
	// ids are taken in uint64, where they fit whatever the ids.
	from := sort.Search(len(s.Windows), func(i int) bool {
		return uint64(s.Windows[i].Window)-uint64(first) >= uint64(lead)
	})
	to := sort.Search(len(s.Windows), func(i int) bool {
		w := s.Windows[i].Window
		return w > r || uint64(r)-uint64(w) < uint64(recent)
	})
	if from >= to {
		return
	}
	for i := from; i < to; i++ {
		s.Dropped += s.Windows[i].N()
	}
	s.moves += uint64(len(s.Windows) - to)
	s.Windows = slices.Delete(s.Windows, from, to)
}

// merge adds o's windows and identity into s, in one pass over both
// (each in window order): inserting o's windows one at a time moved s's
// windows each time, quadratic in the windows of a merge.
func (s *series) merge(o *series) {
	if s.Type == "" || (o.Type != "" && o.Type < s.Type) {
		s.Type = o.Type
	}
	if s.Label == "" || (o.Label != "" && o.Label < s.Label) {
		s.Label = o.Label
	}
	if s.Latest.less(o.Latest) {
		s.Latest = o.Latest
	}
	s.Arrivals += o.Arrivals
	s.Dropped += o.Dropped
	if len(o.Windows) == 0 {
		return
	}
	a, b := s.Windows, o.Windows
	out := make([]Summary, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0].Window < b[0].Window:
			out, a = append(out, a[0]), a[1:]
		case a[0].Window > b[0].Window:
			out, b = append(out, b[0]), b[1:]
		default:
			m := a[0]
			m.Merge(&b[0])
			out, a, b = append(out, m), a[1:], b[1:]
		}
	}
	out = append(append(out, a...), b...)
	s.Windows = out
}

// windowOf places a result in a window (doc.go, "Windows").
func windowOf(r *Result, s *series, traces int64, dur time.Duration, now func() time.Time) int64 {
	if dur > 0 {
		t := r.Timestamp
		if t.IsZero() {
			t = now()
		}
		return floorDiv(t.UnixNano(), int64(dur))
	}
	seq := r.Seq
	if seq == 0 {
		seq = s.Arrivals
	}
	return int64((seq - 1) / uint64(traces))
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
