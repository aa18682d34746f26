// flip_test.go: a byte flipped anywhere in the log costs its one record: Open resynchronises on the next valid frame, keeps every later one, and reports what it skipped.

package history

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFlippedByte writes 300 records over several segments (the last one
// active, the writer killed), then, at 150 offsets drawn from the seed
// ($HISTORY_SEED), flips one byte of the log (XOR with a drawn nonzero
// mask) and reopens it. Every record but the one whose frame holds the
// byte must be replayed and kept, in order, the summaries must count them,
// what was skipped must be reported (Recovery and a warning), and records
// written after must follow. A flip in a segment's 8-byte magic makes it
// no segment (an error) and is not drawn. Cutting the active segment at
// the first bad frame would lose every record after it, silently.
func TestFlippedByte(t *testing.T) {
	const n = 300
	template := t.TempDir()
	opts := Options{NoAlertFile: true, SegmentBytes: 12 << 10, MaxBytes: -1, MaxAge: -1}
	s, err := Open(template, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := s.Record(crashResult(i)); err != nil {
			t.Fatal(err)
		}
	}
	s.log.close() // killed: the active segment's records are not in the summaries
	s.unlock()
	segs, _ := listSegmentsAt(template)
	if len(segs) < 3 {
		t.Fatalf("%d segments, want 3 or more", len(segs))
	}
	// Each record's segment and frame span, from the intact log.
	type span struct {
		seg        uint64
		start, end int64
	}
	var spans []span
	files := map[uint64][]byte{}
	for _, sg := range segs {
		b, err := os.ReadFile(filepath.Join(template, segName(sg)))
		if err != nil {
			t.Fatal(err)
		}
		files[sg] = b
		start := int64(len(segMagic))
		if _, err := scanSegmentAt(template, sg, 0, func(_ Result, p pos) error {
			spans = append(spans, span{sg, start, p.Off})
			start = p.Off
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if len(spans) != n {
		t.Fatalf("%d frames, want %d", len(spans), n)
	}
	var total int64
	for _, sg := range segs {
		total += int64(len(files[sg]) - len(segMagic))
	}

	r := newPRNG("history/flipped-byte/" + testSeed(t))
	for run := range 150 {
		// An offset over the frames of all segments, and a mask.
		at := int64(r.Intn(int(total)))
		var seg uint64
		for _, sg := range segs {
			if l := int64(len(files[sg]) - len(segMagic)); at >= l {
				at -= l
				continue
			}
			seg = sg
			break
		}
		off := at + int64(len(segMagic))
		mask := byte(1 + r.Intn(255))
		lost := -1
		for i, sp := range spans {
			if sp.seg == seg && off >= sp.start && off < sp.end {
				lost = i
			}
		}
		name := fmt.Sprintf("run %d: segment %d offset %d ^ %#02x (record %d)", run, seg, off, mask, lost)

		dir := t.TempDir()
		for _, sg := range segs {
			b := bytes.Clone(files[sg])
			if sg == seg {
				b[off] ^= mask
			}
			if err := os.WriteFile(filepath.Join(dir, segName(sg)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var logged bytes.Buffer
		o := opts
		o.Logger = slog.New(slog.NewJSONHandler(&logged, nil))
		s, err := Open(dir, o)
		if err != nil {
			t.Fatalf("%s: Open: %v", name, err)
		}
		rec := s.Recovery()
		if rec.Records != n-1 || s.summarized() != n-1 {
			t.Errorf("%s: %d records replayed, %d summarized, want %d", name, rec.Records, s.summarized(), n-1)
		}
		frame := spans[lost].end - spans[lost].start
		lastFrame := lost == n-1
		switch {
		case lastFrame && (rec.TruncatedBytes != frame || len(rec.Corrupt) != 0):
			t.Errorf("%s: the last frame: recovery %+v, want it cut (%d bytes)", name, rec, frame)
		case !lastFrame && (rec.SkippedBytes != frame || len(rec.Corrupt) != 1 || rec.TruncatedBytes != 0):
			t.Errorf("%s: recovery %+v, want one corrupt run of %d bytes skipped", name, rec, frame)
		}
		if want := map[bool]string{true: "torn record was cut", false: "corrupt log frames were skipped"}[lastFrame]; !strings.Contains(logged.String(), want) {
			t.Errorf("%s: no warning %q logged: %s", name, want, logged.String())
		}
		for i := range 3 {
			if err := s.Record(crashResult(n + i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		expect := append(append(want(0, lost), want(lost+1, n-lost-1)...), want(n, 3)...)
		if d := cmp.Diff(expect, readAll(t, dir)); d != "" {
			t.Fatalf("%s: the log after recovery (-want +got):\n%s", name, d)
		}
	}
}

// TestFlippedByteReader: a reader (report) skips the corrupt run too, keeps
// the records after it, and reports it in Recovery; it changes nothing.
func TestFlippedByteReader(t *testing.T) {
	dir := t.TempDir()
	writeN(t, dir, Options{NoAlertFile: true}, 0, 20)
	path := filepath.Join(dir, segName(1))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(segMagic)+frameHeader+3] ^= 0x5a // the first record's payload
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, snapshotFile)) // replay the whole log
	writeSnapshotAt(t, dir)
	s, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rec := s.Recovery(); rec.Records != 19 || len(rec.Corrupt) != 1 || !strings.Contains(rec.Corrupt[0], "checksum mismatch") {
		t.Errorf("recovery %+v, want 19 records and one corrupt run", rec)
	}
	if s.summarized() != 19 {
		t.Errorf("%d results summarized, want 19", s.summarized())
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, b) {
		t.Error("the reader changed the segment")
	}
}
