// export_test.go: helpers the package's tests share: one result at a time, counts, dirs by path.

package history

import (
	"testing"

	"attest-engine/safedir"
)

// Add records one result, as AddAll records a trace's: the tests feed
// streams result by result.
func (s *Store) Add(r Result) ([]Alert, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	one := [1]*Result{&r}
	return s.add(one[:])
}

// Record is Add for tests that take alerts from the sinks only.
func (s *Store) Record(r Result) error {
	_, err := s.Add(r)
	return err
}

// summarized counts the results held in the store's summaries.
func (s *Store) summarized() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n uint64
	for _, sr := range s.keys {
		for i := range sr.Windows {
			n += sr.Windows[i].N()
		}
	}
	return n
}

func nan() float64 { var z float64; return z / z }

// listSegmentsAt is listSegments of the dir at path.
func listSegmentsAt(dir string) ([]uint64, error) {
	d, err := safedir.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return listSegments(d)
}

// scanSegmentAt is scanSegment of segment seg of the dir at path.
func scanSegmentAt(dir string, seg uint64, off int64, fn func(Result, pos) error) (segScan, error) {
	d, err := safedir.Open(dir)
	if err != nil {
		return segScan{}, err
	}
	defer d.Close()
	return scanSegment(d, seg, off, fn)
}

// readSnapshotAt is readSnapshot of the dir at path.
func readSnapshotAt(dir string, limit int64) (*snapshot, error) {
	d, err := safedir.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return readSnapshot(d, limit, defaultLimits)
}

// writeSnapshotAt writes empty summaries of 20-trace windows with the
// checkpoint at the log's start: a reader replays the whole log.
func writeSnapshotAt(t testing.TB, dir string) {
	t.Helper()
	d, err := safedir.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	snap := &snapshot{Version: snapshotVersion, meta: meta{ID: "0123456789abcdef", Window: windowing{Traces: DefaultWindowTraces}}, Keys: map[string]*series{}}
	if err := writeSnapshot(d, snap); err != nil {
		t.Fatal(err)
	}
}

// moves sums the windows the store's series moved in memory.
func (s *Store) moves() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n uint64
	for _, sr := range s.keys {
		n += sr.moves
	}
	return n
}
