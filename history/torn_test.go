// torn_test.go: a summaries file that a power loss left not whole is rebuilt from the log at Open, and every summaries write is synced whatever the fsync policy.

package history

import (
	"bytes"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"attest-engine/atomicfile"
	"attest-engine/safedir"
	"github.com/google/go-cmp/cmp"
)

// tornOptions: small segments, so that the records span many; no
// retention, so that every one stays on disk.
func tornOptions(log io.Writer) Options {
	return Options{Sync: SyncNever, SegmentBytes: 4 << 10, MaxBytes: -1, MaxAge: -1, NoAlertFile: true,
		Logger: slog.New(slog.NewJSONHandler(log, nil))}
}

// TestTornSummaries: summaries.json as a power loss under the fsync policy
// never could leave it (empty, cut short, zeros where the data never
// reached the disk) no longer fails Open on the whole state dir: the
// summaries are rebuilt from the segments on disk, every record counted
// once, with a warning. A file that is whole but wrong is still an error.
func TestTornSummaries(t *testing.T) {
	const n = 300
	tests := []struct {
		name, reason string
		tear         func([]byte) []byte
		wantErr      string // "" : Open rebuilds
	}{
		{"empty", "the data never reached the disk, the rename did", func([]byte) []byte { return nil }, ""},
		{"cut in half", "writeback stopped halfway", func(b []byte) []byte { return b[:len(b)/2] }, ""},
		{"last brace missing", "a file one byte short of its JSON is not whole either", func(b []byte) []byte { return b[:len(b)-2] }, ""}, // -1: the newline
		{"zeros", "the size reached the disk, none of the data", func(b []byte) []byte { return make([]byte, len(b)) }, ""},
		{"zero tail", "the size and the first pages reached the disk", func(b []byte) []byte {
			return append(b[:len(b)/2:len(b)/2], make([]byte, len(b)-len(b)/2)...)
		}, ""},
		{"another version", "a whole file of another version is refused, not rebuilt", func([]byte) []byte {
			return []byte(`{"version":2,"id":"x","window":{"traces":20},"keys":{},"checkpoint":{"segment":1,"offset":8}}` + "\n")
		}, "version 2"},
		{"not an object", "whole JSON of the wrong shape is refused, not rebuilt", func([]byte) []byte { return []byte("[]\n") }, "cannot unmarshal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeN(t, dir, tornOptions(io.Discard), 0, n)
			if segs, _ := listSegmentsAt(dir); len(segs) < 5 {
				t.Fatalf("%d segments: the test wants the records spread over several", len(segs))
			}
			path := filepath.Join(dir, snapshotFile)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tc.tear(b), 0o600); err != nil {
				t.Fatal(err)
			}
			var log bytes.Buffer
			s, err := Open(dir, tornOptions(&log))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s: Open: %v, want an error with %q", tc.reason, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: Open: %v", tc.reason, err)
			}
			if !strings.Contains(s.Recovery().SummariesRebuilt, "not whole") || !strings.Contains(log.String(), "rebuilding it from the log segments") {
				t.Errorf("%s: Recovery().SummariesRebuilt %q, log %q: want the rebuild said", tc.reason, s.Recovery().SummariesRebuilt, log.String())
			}
			if got := s.summarized(); got != n {
				t.Errorf("%s: summaries count %d results, want every segment's %d", tc.reason, got, n)
			}
			if d := cmp.Diff([]string{"assertion-0", "assertion-1", "assertion-2"}, s.Keys()); d != "" {
				t.Errorf("%s: keys (-want +got):\n%s", tc.reason, d)
			}
			writeMore := crashResult(n)
			if err := s.Record(writeMore); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want(0, n+1), readAll(t, dir)); d != "" {
				t.Errorf("%s: the log (-want +got):\n%s", tc.reason, d)
			}
			// The rebuilt summaries were written whole: the next Open reads them.
			s, err = Open(dir, tornOptions(io.Discard))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if r := s.Recovery().SummariesRebuilt; r != "" {
				t.Errorf("the summaries written after a rebuild are rebuilt again: %s", r)
			}
			if got := s.summarized(); got != n+1 {
				t.Errorf("after a restart, summaries count %d results, want %d", got, n+1)
			}
		})
	}
}

// TestTornSummariesReadOnly: a reader that may not repair the dir says
// what is wrong and how it is repaired.
func TestTornSummariesReadOnly(t *testing.T) {
	dir := t.TempDir()
	writeN(t, dir, tornOptions(io.Discard), 0, 10)
	if err := os.WriteFile(filepath.Join(dir, snapshotFile), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenReadOnly(dir); err == nil || !strings.Contains(err.Error(), "not whole") {
		t.Errorf("OpenReadOnly: %v, want the summaries said not whole", err)
	}
}

// TestSummariesSynced: every summaries write (at creation, each roll,
// Close) syncs the file and the directory, under the fsync policy never
// too: retention removes the segments a summaries write covers, and an
// unsynced file could come back empty from a power loss while the
// removals stayed.
func TestSummariesSynced(t *testing.T) {
	var asked []atomicfile.Sync
	replaceFile = func(d *safedir.Dir, name string, perm fs.FileMode, sync atomicfile.Sync, write func(io.Writer) error) error {
		asked = append(asked, sync)
		return d.WriteFile(name, perm, sync, write)
	}
	defer func() { replaceFile = (*safedir.Dir).WriteFile }()
	for _, policy := range []SyncPolicy{SyncNever, SyncInterval, SyncAlways} {
		asked = nil
		writeN(t, t.TempDir(), Options{Sync: policy, SegmentBytes: 4 << 10, NoAlertFile: true}, 0, 100)
		if len(asked) < 3 {
			t.Fatalf("policy %d: %d summaries writes, want one at creation, at each roll and at Close", policy, len(asked))
		}
		for i, s := range asked {
			if s != atomicfile.SyncAll {
				t.Errorf("policy %d: summaries write %d of %d asked for sync %d, want SyncAll (file and directory)", policy, i+1, len(asked), s)
			}
		}
	}
}
