package history

import (
	"testing"
	"time"
)

// TestRollWritesOutsideLock: while a roll's summaries are being written,
// other callers record and query; the summaries then on disk and the log
// after their checkpoint hold every record once.
func TestRollWritesOutsideLock(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{NoAlertFile: true, SegmentBytes: 4 << 10, MaxBytes: -1, MaxAge: -1})
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	paused := false // set and read by the rolling goroutine only
	s.snapPause = func() {
		paused = true
		entered <- struct{}{}
		<-release
	}
	rolled := make(chan int, 1)
	go func() {
		for i := 0; ; i++ {
			if err := s.Record(crashResult(i)); err != nil {
				t.Error(err)
			}
			if paused {
				rolled <- i + 1
				return
			}
		}
	}()
	select {
	case <-entered:
	case <-time.After(30 * time.Second):
		t.Fatal("no roll")
	}
	// Ten records fill less than the new 4 KiB segment: no second roll.
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		for i := 1_000_000; i < 1_000_010; i++ {
			if err := s.Record(crashResult(i)); err != nil {
				t.Error(err)
			}
		}
		s.Keys()
		s.Drift("assertion-0", 0)
	}()
	select {
	case <-answered:
	case <-time.After(30 * time.Second):
		t.Fatal("Record and queries waited for the roll's summaries write")
	}
	close(release)
	n := <-rolled + 10
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	var total uint64
	for _, k := range r.Keys() {
		sr, _ := r.Series(k)
		for _, w := range sr.Windows {
			total += w.N()
		}
	}
	if total != uint64(n) {
		t.Errorf("summaries count %d results, want %d", total, n)
	}
}

// TestStaleCaptureNotWritten: summaries captured before a later write are
// not written over it (persist runs outside the store's lock, so a roll's
// write can come after Close's).
func TestStaleCaptureNotWritten(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{NoAlertFile: true})
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	stale := s.captureLocked()
	s.mu.Unlock()
	for i := range 5 {
		if err := s.Record(crashResult(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.persist(stale); err != nil {
		t.Fatal(err)
	}
	snap, err := readSnapshotAt(dir, maxSnapshot())
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Keys) != 3 || snap.Checkpoint.Off == 0 {
		t.Errorf("summaries on disk: %d keys, checkpoint %+v; want Close's: 3 keys, a checkpoint after the 5 records", len(snap.Keys), snap.Checkpoint)
	}
}
