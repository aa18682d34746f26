package history

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// FuzzSnapshot: a summaries file from anywhere (merge and report read state
// dirs they did not write) opens to a store that answers every query, or
// fails with a clear error, never a panic; Merge adds it or refuses it; one
// that is not whole JSON is rebuilt by Open. The bounds hold while it is
// decoded: what is accepted holds at most DefaultMaxKeys assertions of at
// most DefaultMaxWindows windows in order, names of at most MaxField
// bytes, at most MaxMerged merged ids; decoding allocates at most 16× the
// file's bytes and 256 KiB, accepted or not.
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
	f.Add([]byte(`{"version":1,"id":"x","window":{"traces":1},"keys":{"k":{"windows":[{},{},{}]}}}`))
	f.Add([]byte(`{"version":1,"id":"x","window":{"traces":1},"merged":["a","a"],"keys":{"k":{},"k":{}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		snap, err := decodeSnapshot(bytes.NewReader(data), defaultLimits)
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16*uint64(len(data))+256<<10 {
			t.Fatalf("decoding %d bytes allocated %d", len(data), alloc)
		}
		if err == nil {
			if len(snap.Keys) > DefaultMaxKeys || len(snap.Merged) > MaxMerged || len(snap.ID) > maxIDLen {
				t.Fatalf("%d keys, %d merged ids, an id of %d bytes accepted", len(snap.Keys), len(snap.Merged), len(snap.ID))
			}
			for k, sr := range snap.Keys {
				if len(k) > MaxField || len(sr.Type) > MaxField || len(sr.Latest.ResultID) > MaxField || len(sr.Windows) > DefaultMaxWindows {
					t.Fatalf("key %q: a name, type or result id over MaxField, or %d windows, accepted", k, len(sr.Windows))
				}
				for i := 1; i < len(sr.Windows); i++ {
					if sr.Windows[i].Window <= sr.Windows[i-1].Window {
						t.Fatalf("key %q: windows out of order accepted", k)
					}
				}
			}
		}
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
