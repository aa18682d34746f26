package watch

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFollowTruncated: --follow on a file truncated in place (copytruncate
// log rotation) reads it again from its start, as tail -F does, instead of
// waiting past the old end for bytes that never come.
func TestFollowTruncated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(path, []byte("first line, longer than the next\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r := bufio.NewReader(&follower{f: f, stop: ctx})
	if line, err := r.ReadString('\n'); err != nil || line != "first line, longer than the next\n" {
		t.Fatalf("first read: %q, %v", line, err)
	}
	if err := os.WriteFile(path, []byte("second\n"), 0o644); err != nil { // truncates, then writes
		t.Fatal(err)
	}
	if line, err := r.ReadString('\n'); err != nil || line != "second\n" {
		t.Fatalf("after truncation: %q, %v; want \"second\\n\"", line, err)
	}
}
