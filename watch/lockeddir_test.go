//go:build unix

// lockeddir_test.go: the spool and the input checkpoint go in the directory the history locked, not in whatever its path names later.

package watch

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

// TestDurableUsesLockedDir: the state dir's path is made to name another
// directory, one others can write, after the history opened (checked it
// private, locked it); the spool then opened for --listen goes in the
// directory the history locked. Opening the path a second time put it in
// the other one, unchecked and unlocked.
func TestDurableUsesLockedDir(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "state")
	log := slog.New(slog.DiscardHandler)
	rec, err := OpenHistory(HistoryConfig{Dir: dir}, log)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	locked := dir + ".locked"
	if err := os.Rename(dir, locked); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777)
	c := &command{rec: rec, log: log}
	c.o.history.Dir = dir
	d := &durable{c: c}
	if err := d.openSpool(); err != nil {
		t.Fatal(err)
	}
	d.close()
	if names, _ := filepath.Glob(filepath.Join(dir, "spool-*")); len(names) != 0 {
		t.Errorf("the spool went in the directory the path names now: %v", names)
	}
	if names, _ := filepath.Glob(filepath.Join(locked, "spool-*")); len(names) != 1 {
		t.Errorf("spool segments in the locked directory: %v, want 1", names)
	}
	// the history's directory is still open: a result is recorded
	if err := rec.Record([]Result{{TraceID: "t", Assertion: "a", Type: "regex", Status: "pass", Score: 1, Seq: 1, ResultID: "r1"}}); err != nil {
		t.Errorf("recording after the spool was closed: %v", err)
	}
}
