// export_test.go: helpers the package's tests share: one result at a time, counts.

package history

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
