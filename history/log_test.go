package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func writeN(t *testing.T, dir string, opts Options, from, n int) {
	t.Helper()
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := from; i < from+n; i++ {
		if err := s.Record(crashResult(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func readAll(t *testing.T, dir string) []Result {
	t.Helper()
	var got []Result
	if err := Scan(dir, func(r Result) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

func want(from, n int) []Result {
	var rs []Result
	for i := from; i < from+n; i++ {
		rs = append(rs, crashResult(i))
	}
	return rs
}

// TestTornTail damages the last record of the last segment in each way a
// crash or a bad disk can, and checks that reopening keeps every earlier
// record, cuts only the damaged one, and that writing then goes on.
func TestTornTail(t *testing.T) {
	opts := Options{NoAlertFile: true, Sync: SyncNever}
	frame := len(appendPayload(nil, ptr(crashResult(9)))) + frameHeader
	tests := []struct {
		name   string
		damage func(b []byte) []byte
		reason string
	}{
		{"cut in the header", func(b []byte) []byte { return b[:len(b)-frame+3] }, "torn frame header"},
		{"cut after the header", func(b []byte) []byte { return b[:len(b)-frame+frameHeader] }, "torn frame payload"},
		{"cut one byte short", func(b []byte) []byte { return b[:len(b)-1] }, "torn frame payload"},
		{"payload bit flipped", func(b []byte) []byte { b[len(b)-5] ^= 0x10; return b }, "checksum mismatch"},
		{"length zeroed", func(b []byte) []byte { copy(b[len(b)-frame:], []byte{0, 0, 0, 0}); return b }, "frame length 0"},
		{"length huge", func(b []byte) []byte { copy(b[len(b)-frame:], []byte{0xff, 0xff, 0xff, 0x7f}); return b }, "frame length 2147483647"},
		{"zeros appended (preallocated tail)", func(b []byte) []byte { return append(b, make([]byte, 100)...) }, "frame length 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeN(t, dir, opts, 0, 10)
			path := filepath.Join(dir, segName(1))
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b = tc.damage(b)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			// the snapshot covers all ten: remove it so the log is replayed
			os.Remove(filepath.Join(dir, snapshotFile))
			s, err := Open(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			kept := 9
			if strings.HasPrefix(tc.name, "zeros") {
				kept = 10
			}
			if s.rec.Records != kept || s.rec.TornReason != tc.reason || s.rec.TruncatedBytes == 0 {
				t.Errorf("recovery = %+v, want %d records and a cut %q", s.rec, kept, tc.reason)
			}
			if got := s.summarized(); got != uint64(kept) {
				t.Errorf("summaries hold %d results, want %d", got, kept)
			}
			for i := kept; i < kept+3; i++ {
				if err := s.Record(crashResult(i)); err != nil {
					t.Fatal(err)
				}
			}
			s.Close()
			if d := cmp.Diff(want(0, kept+3), readAll(t, dir)); d != "" {
				t.Errorf("records (-want +got):\n%s", d)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestSealedCorruption: a bad frame inside a sealed segment is reported and
// its segment left untouched; later segments are still read.
func TestSealedCorruption(t *testing.T) {
	dir := t.TempDir()
	opts := Options{NoAlertFile: true, Sync: SyncNever, SegmentBytes: 1024, MaxBytes: -1}
	writeN(t, dir, opts, 0, 40)
	segs, _ := listSegmentsAt(dir)
	if len(segs) < 3 {
		t.Fatalf("%d segments, want 3 or more", len(segs))
	}
	path := filepath.Join(dir, segName(segs[0]))
	b, _ := os.ReadFile(path)
	b[len(segMagic)+frameHeader+2] ^= 1
	os.WriteFile(path, b, 0o644)
	os.Remove(filepath.Join(dir, snapshotFile))
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.rec.Corrupt) != 1 || !strings.Contains(s.rec.Corrupt[0], "checksum mismatch") {
		t.Errorf("Corrupt = %q, want one checksum mismatch", s.rec.Corrupt)
	}
	if after, _ := os.ReadFile(path); string(after) != string(b) {
		t.Error("the sealed segment was modified")
	}
	if s.rec.Records == 0 || s.rec.Records >= 40 {
		t.Errorf("%d records replayed, want the later segments' (0 < n < 40)", s.rec.Records)
	}
}

// TestRetention: sealed segments go, oldest first, past the size bound and
// past the age bound; the summaries keep counting what they held.
func TestRetention(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		opts     Options
		age      time.Duration // sealed segments' mtime before now
		wantSegs int
	}{
		{"size", Options{SegmentBytes: 1024, MaxBytes: 3000, MaxAge: -1}, 0, 3},
		{"age", Options{SegmentBytes: 1024, MaxBytes: -1, MaxAge: time.Hour}, 2 * time.Hour, 2}, // the active one and the one sealed last
		{"young", Options{SegmentBytes: 1024, MaxBytes: -1, MaxAge: time.Hour}, time.Minute, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			opts := tc.opts
			opts.NoAlertFile, opts.Sync = true, SyncNever
			opts.Now = func() time.Time { return now }
			s, err := Open(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 100 {
				if err := s.Record(crashResult(i)); err != nil {
					t.Fatal(err)
				}
				if tc.age > 0 { // age every sealed segment
					segs, _ := listSegmentsAt(dir)
					for _, n := range segs[:len(segs)-1] {
						os.Chtimes(filepath.Join(dir, segName(n)), now.Add(-tc.age), now.Add(-tc.age))
					}
				}
			}
			segs, _ := listSegmentsAt(dir)
			if tc.wantSegs > 0 && len(segs) > tc.wantSegs || tc.wantSegs == 0 && len(segs) < 5 {
				t.Errorf("%d segments left, want %d (0: all kept)", len(segs), tc.wantSegs)
			}
			if got := s.summarized(); got != 100 {
				t.Errorf("summaries hold %d results, want 100", got)
			}
			s.Close()
			s2, err := Open(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s2.Close()
			if got := s2.summarized(); got != 100 {
				t.Errorf("reopened summaries hold %d results, want 100", got)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	ok := crashResult(1)
	tests := []struct {
		name string
		edit func(r *Result)
		want string
	}{
		{"no assertion", func(r *Result) { r.Assertion = "" }, "needs its assertion name"},
		{"status 0", func(r *Result) { r.Status = 0 }, "invalid status 0"},
		{"score NaN", func(r *Result) { r.Score = nan() }, "outside 0..1"},
		{"score 1.5", func(r *Result) { r.Score = 1.5 }, "outside 0..1"},
		{"long trace id", func(r *Result) { r.TraceID = strings.Repeat("x", MaxField+1) }, "trace_id is 4097 bytes"},
		{"bad utf-8", func(r *Result) { r.Type = "\xff" }, "type is not valid UTF-8"},
	}
	dir := t.TempDir()
	s, err := Open(dir, Options{NoAlertFile: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range tests {
		r := ok
		tc.edit(&r)
		if err := s.Record(r); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	if got := s.summarized(); got != 0 {
		t.Errorf("%d invalid results summarized", got)
	}
}

func TestLockedDir(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{NoAlertFile: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := Open(dir, Options{NoAlertFile: true}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("second Open: err = %v, want in use", err)
	}
}

// TestCheckpointPastEnd: a segment shorter than the snapshot's checkpoint
// (its tail lost to a power loss) is appended to at its end, not past it.
func TestCheckpointPastEnd(t *testing.T) {
	dir := t.TempDir()
	opts := Options{NoAlertFile: true, Sync: SyncNever}
	writeN(t, dir, opts, 0, 10)
	path := filepath.Join(dir, segName(1))
	fi, _ := os.Stat(path)
	frame := int64(len(appendPayload(nil, ptr(crashResult(9)))) + frameHeader)
	os.Truncate(path, fi.Size()-frame) // the last record lost; the snapshot counted it
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if s.rec.TornReason != "segment shorter than its checkpoint" {
		t.Errorf("recovery %+v", s.rec)
	}
	if err := s.Record(crashResult(10)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if d := cmp.Diff(append(want(0, 9), crashResult(10)), readAll(t, dir)); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
}
