package history

import (
	"fmt"
	"testing"
)

// recorder is the watch command's seam.
type recorder interface {
	Record(Result) error
	Close() error
}

type noop struct{}

func (noop) Record(Result) error { return nil }
func (noop) Close() error        { return nil }

// BenchmarkRecord measures Record with history on (per fsync policy)
// against a recorder that does nothing: the cost history adds per result.
// The goal (history on ≥ 50% of the throughput of history off) is
// for the whole watch pipeline, whose per-result cost this adds to.
func BenchmarkRecord(b *testing.B) {
	results := make([]Result, 4096)
	for i := range results {
		results[i] = crashResult(i)
		results[i].Assertion = fmt.Sprintf("assertion-%d", i%8)
	}
	for _, tc := range []struct {
		name string
		open func(b *testing.B) recorder
	}{
		{"off", func(*testing.B) recorder { return noop{} }},
		{"sync=never", openBench(SyncNever)},
		{"sync=interval", openBench(SyncInterval)},
		{"sync=always", openBench(SyncAlways)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			rec := tc.open(b)
			traces := make([]string, b.N) // every result a trace's own: none is a repeat
			for i := range traces {
				traces[i] = fmt.Sprintf("trace-%08d", i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r := results[i%len(results)]
				r.Seq, r.TraceID = uint64(i+1), traces[i]
				if err := rec.Record(r); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
			rec.Close()
		})
	}
}

func openBench(p SyncPolicy) func(b *testing.B) recorder {
	return func(b *testing.B) recorder {
		s, err := Open(b.TempDir(), Options{Sync: p, NoAlertFile: true})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
}

// BenchmarkRollSummaries measures, at a roll of a store of 256 assertions
// × 1024 windows, the part still under the store's lock (capture: a copy of
// the summaries) against the part now outside it (persist: the JSON and the
// write), per roll, under the fsync policies never and always.
func BenchmarkRollSummaries(b *testing.B) {
	s, err := Open(b.TempDir(), Options{NoAlertFile: true, MaxBytes: -1, MaxAge: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for k := range 256 {
		sr := &series{Type: "constraint"}
		for w := range 1024 {
			sm := sr.at(int64(w))
			for i := range 20 {
				sm.add(Status(1+i%4), float64(i%5)/4)
			}
		}
		s.keys[fmt.Sprintf("assertion-%d", k)] = sr
	}
	b.Run("capture", func(b *testing.B) {
		for b.Loop() {
			s.mu.Lock()
			s.captureLocked()
			s.mu.Unlock()
		}
	})
	for _, policy := range []SyncPolicy{SyncNever, SyncAlways} {
		b.Run("persist/"+[]string{SyncNever: "never", SyncAlways: "always"}[policy], func(b *testing.B) {
			s.opts.Sync = policy
			for b.Loop() {
				s.mu.Lock()
				c := s.captureLocked()
				s.mu.Unlock()
				if err := s.persist(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
