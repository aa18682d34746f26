//go:build linux

package history

import (
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAddAllAllOrNothing: a batch larger than one write call whose second
// write fails (the file size limit, as a full disk would) leaves the log as
// it was: no record of the batch is in the log when AddAll reports it
// unrecorded, so the summaries, then a restart's replay, agree.
func TestAddAllAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Sync: SyncNever, NoAlertFile: true, SegmentBytes: 64 << 20}
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Record(crashResult(0)); err != nil {
		t.Fatal(err)
	}
	var batch []Result
	for i := range 200 { // about 1.6 MiB: two write calls
		r := crashResult(1 + i)
		r.TraceID, r.ResultID = strings.Repeat("t", MaxField), strings.Repeat("r", MaxField)
		batch = append(batch, r)
	}
	seg := filepath.Join(dir, segName(1))
	fi, err := os.Stat(seg)
	if err != nil {
		t.Fatal(err)
	}
	signal.Ignore(syscall.SIGXFSZ)
	defer signal.Reset(syscall.SIGXFSZ)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	lim := old
	lim.Cur = uint64(fi.Size()) + maxBatchWrite + maxBatchWrite/4
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skip("cannot lower the file size limit:", err)
	}
	_, err = s.AddAll(batch)
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old)
	if err == nil {
		t.Fatal("AddAll past the file size limit succeeded")
	}
	if got := s.summarized(); got != 1 {
		t.Errorf("summaries count %d results after the failed batch, want 1", got)
	}
	s.log.close() // killed: no Close, the log is all there is
	s.unlock()
	if after, _ := os.Stat(seg); after.Size() != fi.Size() {
		t.Errorf("the log grew from %d to %d bytes by a batch reported unrecorded", fi.Size(), after.Size())
	}
	s, err = Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.summarized(); got != 1 {
		t.Errorf("after a restart the summaries count %d results, want 1", got)
	}
}
