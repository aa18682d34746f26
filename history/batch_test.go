package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAddAll: recording a stream in batches of a trace's results gives the
// alerts, reports and log of recording it result by result, across segment
// rolls; a batch torn by a crash keeps its whole records.
func TestAddAll(t *testing.T) {
	stream := driftStream(newPRNG("history/addall/v1"), 3000, 1800)
	one := t.TempDir()
	want := record(t, one, stream)
	for _, size := range []int{1, 3, 7} {
		dir := t.TempDir()
		sync := SyncNever
		if size == 7 {
			sync = SyncAlways // one fsync per batch
		}
		s, err := Open(dir, Options{Sync: sync, NoAlertFile: true, SegmentBytes: 32 << 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []Alert
		for i := 0; i < len(stream); i += size {
			a, err := s.AddAll(stream[i:min(i+size, len(stream))])
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, a...)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("batches of %d: alerts (-one by one +batched):\n%s", size, diff)
		}
		if diff := cmp.Diff(reports(t, one), reports(t, dir)); diff != "" {
			t.Errorf("batches of %d: reports (-one by one +batched):\n%s", size, diff)
		}
		var logged []Result
		if err := Scan(dir, func(r Result) error { logged = append(logged, r); return nil }); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(stream, logged); diff != "" {
			t.Errorf("batches of %d: the log (-stream +logged):\n%s", size, diff)
		}
	}

	// a batch cut in its last record, as a crash during its write would
	dir := t.TempDir()
	s, err := Open(dir, Options{NoAlertFile: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddAll(stream[:5]); err != nil {
		t.Fatal(err)
	}
	s.Close()
	seg := filepath.Join(dir, segName(1))
	fi, err := os.Stat(seg)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, snapshotFile)) // the crash came before Close's snapshot
	if err := os.Truncate(seg, fi.Size()-3); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, Options{NoAlertFile: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.rec.Records != 4 || s.rec.TruncatedBytes == 0 {
		t.Errorf("recovered %d records, cut %d bytes; want the batch's 4 whole records and the torn one cut", s.rec.Records, s.rec.TruncatedBytes)
	}
}

// TestAddAllInvalid: an invalid result is left out of its batch, the others
// recorded, and the error names it.
func TestAddAllInvalid(t *testing.T) {
	s, err := Open(t.TempDir(), Options{NoAlertFile: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rs := []Result{crashResult(0), crashResult(1), crashResult(2)}
	rs[1].Score = 2
	if _, err := s.AddAll(rs); err == nil || !strings.Contains(err.Error(), "result 2 of 3 not recorded") {
		t.Errorf("AddAll: %v, want result 2 named", err)
	}
	if got := s.summarized(); got != 2 {
		t.Errorf("%d results summarized, want 2", got)
	}
	s.Close()
	if _, err := s.AddAll(rs[:1]); err != ErrClosed {
		t.Errorf("AddAll after Close: %v, want ErrClosed", err)
	}
}
