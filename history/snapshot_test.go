// snapshot_test.go: the summaries read limit covers what a store can write.

package history

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestSnapshotBound: a store can read back the largest summaries it can
// write. A small store at its widest (every count at its largest, names at
// MaxField bytes that escape to six bytes each) fits snapshotBound; and the
// bound of the default store covers its typical size, 1,024 keys × 8,192
// windows of ~157 bytes (more than the fixed 1 GiB read limit that was).
func TestSnapshotBound(t *testing.T) {
	const keys, windows = 3, 4
	name := func(i int) string { return strings.Repeat("\x01", MaxField-1) + string(rune('a'+i)) }
	snap := &snapshot{Version: snapshotVersion, meta: meta{ID: "x", Window: windowing{Traces: 1}}, Keys: map[string]*series{}}
	for k := range keys {
		sr := &series{Type: name(k), Latest: latest{Seq: math.MaxUint64, Timestamp: math.MinInt64, ResultID: name(k), Score: 0.123456789, Set: true}, Arrivals: math.MaxUint64, Dropped: math.MaxUint64}
		for w := range windows {
			s := Summary{Window: math.MinInt64 + int64(w), Passes: math.MaxUint64, Fails: math.MaxUint64, Errors: math.MaxUint64, Skipped: math.MaxUint64,
				Fractional: math.MaxUint64, ScoreSum: math.MaxUint64, ScoreSq: [2]uint64{math.MaxUint64, math.MaxUint64}}
			for i := range s.Hist {
				s.Hist[i] = math.MaxUint64
			}
			sr.Windows = append(sr.Windows, s)
		}
		snap.Keys[name(k)] = sr
	}
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(snap); err != nil {
		t.Fatal(err)
	}
	if got, bound := int64(b.Len())+16<<20, snapshotBound(keys, windows); got > bound {
		t.Errorf("the widest summaries of %d keys × %d windows are %d bytes with the slack, over snapshotBound %d", keys, windows, got, bound)
	}
	if typical := int64(DefaultMaxKeys) * DefaultMaxWindows * 157; maxSnapshot() < typical {
		t.Errorf("maxSnapshot %d is less than a full default store's typical %d bytes", maxSnapshot(), typical)
	}
}
