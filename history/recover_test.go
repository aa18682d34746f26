package history

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckpointPastEndKilled recovers a dir whose last segment lost its tail
// behind the summaries' checkpoint (a power loss under SyncNever: the
// summaries reached the disk, the log's last pages did not), then records
// more and is killed before Close. Every record written after the loss
// must be in the log, readable, and summarized exactly once.
func TestCheckpointPastEndKilled(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Sync: SyncNever, NoAlertFile: true, MaxBytes: -1, MaxAge: -1}
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := s.Record(crashResult(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	seg := filepath.Join(dir, segName(1))
	var ends []int64
	if _, err := scanSegmentAt(dir, 1, 0, func(_ Result, p pos) error { ends = append(ends, p.Off); return nil }); err != nil {
		t.Fatal(err)
	}
	// The tail is lost in the middle of the sixth record.
	if err := os.Truncate(seg, ends[4]+20); err != nil {
		t.Fatal(err)
	}

	s, err = Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := s.Record(crashResult(100 + i)); err != nil {
			t.Fatal(err)
		}
	}
	// Killed: the log holds the records, the summaries file is not rewritten.
	s.log.close()
	s.unlock()

	s, err = Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.rec.Corrupt) > 0 {
		t.Errorf("corrupt: %v", s.rec.Corrupt)
	}
	var got []string
	if err := Scan(dir, func(r Result) error { got = append(got, r.TraceID); return nil }); err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 5 {
		want = append(want, crashResult(i).TraceID)
	}
	for i := range 10 {
		want = append(want, crashResult(100+i).TraceID)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("log after the loss and the kill:\n got %v\nwant %v", got, want)
	}
	// The summaries keep the 10 records summarized before the loss, plus
	// the 10 recorded after it.
	if n := s.summarized(); n != 20 {
		t.Errorf("summaries count %d results, want 20", n)
	}
}

// TestTempSnapshotsRemoved: the temporary file of a summaries write killed
// before its rename is removed at the next Open, not kept forever (one per
// crash, each as large as the summaries).
func TestTempSnapshotsRemoved(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Sync: SyncNever, NoAlertFile: true}
	writeN(t, dir, opts, 0, 5)
	// Today's name (package atomicfile's), and the one of earlier versions.
	stales := []string{filepath.Join(dir, "."+snapshotFile+".tmp123456"), filepath.Join(dir, snapshotFile+".tmp123456")}
	for _, stale := range stales {
		if err := os.WriteFile(stale, []byte(`{"version":1,"ke`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, stale := range stales {
		if _, err := os.Stat(stale); !os.IsNotExist(err) {
			t.Errorf("stale %s still there after Open (stat: %v)", filepath.Base(stale), err)
		}
	}
	if n := s.summarized(); n != 5 {
		t.Errorf("summaries count %d results, want 5", n)
	}
}
