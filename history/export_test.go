package history

import "attest-engine/safedir"

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
