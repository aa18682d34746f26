package history

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
