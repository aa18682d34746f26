package spool

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"attest-engine/safedir"

	"github.com/google/go-cmp/cmp"
)

func openDir(t testing.TB) (*safedir.Dir, string) {
	t.Helper()
	path := t.TempDir()
	d, err := safedir.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, path
}

func body(i int) []byte {
	return []byte(fmt.Sprintf("request %d %s", i, bytes.Repeat([]byte{'x'}, i%50)))
}

func replay(t *testing.T, s *Spool) []Record {
	t.Helper()
	var out []Record
	if err := s.Replay(func(r Record) error {
		r.Body = bytes.Clone(r.Body)
		out = append(out, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSpool: appended records replay in order across segments and a
// reopen; Undo takes back the latest; Release removes settled segments
// and keeps the numbering; a full spool refuses with ErrFull.
func TestSpool(t *testing.T) {
	d, path := openDir(t)
	s, err := Open(d, Options{SegmentBytes: 256})
	if err != nil {
		t.Fatal(err)
	}
	var want []Record
	for i := range 40 {
		seq, err := s.Append(JSON, body(i))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, Record{Seq: seq, Encoding: JSON, Body: body(i)})
	}
	seq, _ := s.Append(Protobuf, []byte("taken back"))
	if err := s.Undo(seq); err != nil {
		t.Fatal(err)
	}
	if err := s.Undo(seq - 1); err == nil {
		t.Error("Undo of a record that is not the latest succeeded")
	}
	s.Close()
	if s, err = Open(d, Options{SegmentBytes: 256}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, replay(t, s)); d != "" {
		t.Fatalf("replay after reopen (-want +got):\n%s", d)
	}
	if s.Next() != 41 || want[0].Seq != 1 {
		t.Errorf("numbering: first %d, next %d; want 1 and 41", want[0].Seq, s.Next())
	}
	if err := s.Release(21); err != nil {
		t.Fatal(err)
	}
	got := replay(t, s)
	if len(got) == 0 || got[0].Seq > 21 || got[len(got)-1].Seq != 40 {
		t.Errorf("after Release(21): records %d..%d, want from at most 21 to 40", got[0].Seq, got[len(got)-1].Seq)
	}
	if err := s.Release(41); err != nil {
		t.Fatal(err)
	}
	if got := replay(t, s); len(got) != 0 {
		t.Errorf("after releasing all: %d records left", len(got))
	}
	files, _ := filepath.Glob(filepath.Join(path, "spool-*.seg"))
	if len(files) != 1 {
		t.Errorf("after releasing all: %d segment files, want the new active one", len(files))
	}
	s.Close()
	if s, err = Open(d, Options{MaxBytes: 200}); err != nil {
		t.Fatal(err)
	}
	if seq, err := s.Append(JSON, []byte("next")); err != nil || seq != 41 {
		t.Errorf("the numbering after an empty spool is reopened: seq %d, %v; want 41", seq, err)
	}
	if _, err := s.Append(JSON, bytes.Repeat([]byte{'x'}, 200)); !errors.Is(err, ErrFull) {
		t.Errorf("past MaxBytes: %v, want ErrFull", err)
	}
	s.Close()
}

// TestSpoolTorn: a spool cut at every byte of its last frames (a crash in
// the middle of a write) reopens holding exactly the whole frames before
// the cut, and appends after them.
func TestSpoolTorn(t *testing.T) {
	d, path := openDir(t)
	s, err := Open(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ends []int64
	for i := range 3 {
		if _, err := s.Append(JSON, body(i)); err != nil {
			t.Fatal(err)
		}
		ends = append(ends, s.Bytes())
	}
	s.Close()
	name := filepath.Join(path, segName(1))
	whole, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	for cut := int64(0); cut < int64(len(whole)); cut++ {
		if err := os.WriteFile(name, whole[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(d, Options{})
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		n := 0
		for _, e := range ends {
			if e <= cut {
				n++
			}
		}
		if got := replay(t, s); len(got) != n {
			t.Errorf("cut at %d: %d records, want %d", cut, len(got), n)
		}
		if seq, err := s.Append(JSON, []byte("after")); err != nil || seq != uint64(n+1) {
			t.Errorf("cut at %d: appended as %d (%v), want %d", cut, seq, err, n+1)
		}
		if got := replay(t, s); len(got) != n+1 {
			t.Errorf("cut at %d: after an append, %d records, want %d", cut, len(got), n+1)
		}
		s.Close()
	}
}

// TestSpoolPlanted: a segment name that is a link is refused, not followed.
func TestSpoolPlanted(t *testing.T) {
	d, path := openDir(t)
	outside := filepath.Join(t.TempDir(), "target")
	os.WriteFile(outside, []byte(magic), 0o644)
	if err := os.Symlink(outside, filepath.Join(path, segName(1))); err != nil {
		t.Skip(err)
	}
	if _, err := Open(d, Options{}); err == nil {
		t.Error("a segment that is a link was opened")
	}
}

// FuzzSegment: a segment of any content opens without a panic or a hang;
// what it yields replays, and an append after it replays too.
func FuzzSegment(f *testing.F) {
	d, path := openDir(f)
	s, _ := Open(d, Options{})
	s.Append(JSON, []byte(`{"resourceSpans":[]}`))
	s.Append(Protobuf, []byte{0x0a, 0x00})
	s.Close()
	seed, _ := os.ReadFile(filepath.Join(path, segName(1)))
	f.Add(seed)
	f.Add([]byte(magic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		d, path := openDir(t)
		os.WriteFile(filepath.Join(path, segName(7)), data, 0o644)
		s, err := Open(d, Options{MaxBody: 1 << 16})
		if err != nil {
			return
		}
		defer s.Close()
		before := replay(t, s)
		if _, err := s.Append(JSON, []byte("x")); err != nil {
			t.Fatal(err)
		}
		if got := replay(t, s); len(got) != len(before)+1 {
			t.Fatalf("%d records after an append to %d", len(got), len(before))
		}
	})
}

// TestSpoolEncodings: every encoding (trace and log requests, protobuf and
// JSON) replays as it was appended, after a reopen.
func TestSpoolEncodings(t *testing.T) {
	d, _ := openDir(t)
	s, err := Open(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var want []Record
	for i, enc := range []byte{Protobuf, JSON, LogsProtobuf, LogsJSON} {
		seq, err := s.Append(enc, body(i))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, Record{Seq: seq, Encoding: enc, Body: body(i)})
	}
	s.Close()
	if s, err = Open(d, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if d := cmp.Diff(want, replay(t, s)); d != "" {
		t.Fatalf("replay (-want +got):\n%s", d)
	}
}
