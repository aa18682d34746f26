package history

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzSnapshot: a summaries file from anywhere (merge and report read state
// dirs they did not write) opens to a store that answers every query, or
// fails with a clear error, never a panic; Merge adds it or refuses it; one
// that is not whole JSON is rebuilt by Open.
func FuzzSnapshot(f *testing.F) {
	seed := f.TempDir()
	s, err := Open(seed, Options{Sync: SyncNever, NoAlertFile: true, WindowTraces: 5})
	if err != nil {
		f.Fatal(err)
	}
	for _, r := range driftStream(newPRNG("history/merge-drift/v1"), 60, 30) {
		if _, err := s.Add(r); err != nil {
			f.Fatal(err)
		}
	}
	s.Close()
	b, err := os.ReadFile(filepath.Join(seed, snapshotFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"version":1,"id":"x","window":{"traces":1},"checkpoint":{"segment":1,"offset":99},"keys":{"k":{"windows":[{"window":9223372036854775807,"passes":18446744073709551615,"score_sum":18446744073709551615}]}}}`))
	f.Add([]byte(`{"version":1,"window":{"duration_ns":1},"keys":{"k":null,"":{"windows":[{"window":-9223372036854775808,"fails":3}]}}}`))
	f.Add([]byte(`{"version":1,"window":{"traces":-1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, snapshotFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := OpenReadOnly(dir)
		if err != nil {
			// A file that is not whole is rebuilt by the writer's Open.
			if errors.Is(err, errTorn) {
				w, err := Open(dir, Options{Sync: SyncNever, NoAlertFile: true, WindowTraces: 5})
				if err != nil {
					t.Fatalf("Open of a dir whose summaries are not whole: %v", err)
				}
				w.Close()
			}
			return
		}
		for _, k := range s.Keys() {
			s.Series(k)
			s.Drift(k, 3)
			s.Threshold(k)
		}
		s.Close()
		Merge(filepath.Join(t.TempDir(), "dst"), dir)
	})
}
