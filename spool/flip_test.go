// flip_test.go: a byte damaged in the middle of a segment costs the request whose frame holds it, no other.

package spool

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"attest-engine/testseed"
)

// flipSeed is the seed of TestSpoolFlippedByte's offsets: SPOOL_SEED, or 1.
func flipSeed(t *testing.T) uint64 { return testseed.Uint64(t, "SPOOL_SEED", 1) }

// TestSpoolFlippedByte: a byte flipped at seeded offsets of a segment's
// frames, before its last frame, in the active segment and in a sealed one,
// costs only the request whose frame holds it: every request after it is
// replayed (nothing acknowledged is cut as a torn tail), the damage is
// reported in Corrupt, and an append after the reopen follows the last
// request on. Rerun with SPOOL_SEED=n for other offsets.
func TestSpoolFlippedByte(t *testing.T) {
	const n = 30
	rng := rand.New(rand.NewPCG(flipSeed(t), 26))
	for _, sealed := range []bool{false, true} {
		for trial := range 40 {
			d, path := openDir(t)
			s, err := Open(d, Options{})
			if err != nil {
				t.Fatal(err)
			}
			ends := []int64{int64(len(magic))}
			for i := range n {
				if _, err := s.Append(JSON, body(i)); err != nil {
					t.Fatal(err)
				}
				ends = append(ends, s.Bytes())
			}
			if sealed {
				// a second segment after it: segment 1 is sealed
				if err := s.create(n + 1); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Append(JSON, body(n)); err != nil {
					t.Fatal(err)
				}
			}
			s.Close()
			name := filepath.Join(path, segName(1))
			seg, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			// a byte of any frame but the last
			off := ends[0] + rng.Int64N(ends[n-1]-ends[0])
			seg[off] ^= byte(1 + rng.IntN(255))
			if err := os.WriteFile(name, seg, 0o644); err != nil {
				t.Fatal(err)
			}
			hit := 0 // the request whose frame holds off (0-based)
			for ends[hit+1] <= off {
				hit++
			}
			s, err = Open(d, Options{})
			if err != nil {
				t.Fatalf("sealed %v, trial %d, byte %d: %v", sealed, trial, off, err)
			}
			got := replay(t, s)
			want := n - 1
			if sealed {
				want++
			}
			if len(got) != want || s.TornBytes != 0 || len(s.Corrupt) == 0 {
				t.Fatalf("sealed %v, trial %d: byte %d (request %d) flipped: %d requests replayed, want %d; torn bytes %d; corrupt %q",
					sealed, trial, off, hit+1, len(got), want, s.TornBytes, s.Corrupt)
			}
			for _, r := range got {
				if r.Seq == uint64(hit+1) {
					t.Fatalf("sealed %v, trial %d: the damaged request %d replayed", sealed, trial, hit+1)
				}
				if i := int(r.Seq) - 1; string(r.Body) != string(body(i)) {
					t.Fatalf("sealed %v, trial %d: request %d holds %q", sealed, trial, r.Seq, r.Body)
				}
			}
			next := uint64(n + 1)
			if sealed {
				next++
			}
			if seq, err := s.Append(JSON, []byte("after")); err != nil || seq != next {
				t.Fatalf("sealed %v, trial %d: appended as %d (%v), want %d", sealed, trial, seq, err, next)
			}
			if got2 := replay(t, s); len(got2) != want+1 {
				t.Fatalf("sealed %v, trial %d: after an append, %d requests, want %d", sealed, trial, len(got2), want+1)
			}
			s.Close()
		}
	}
}

// TestSpoolResyncBudget: a segment crafted so that every offset looks like
// the header of a 16 MiB frame (bytes 0x01: a length of 16,843,009,
// version 1, sequence number 1, protobuf) is not checksummed at each of
// them: the search stops once it has checksummed 4× the segment and 1 MiB,
// reports it, keeps the segment whole and goes on in a new one. Without the
// budget it checksums 16 MiB at each of a million offsets.
func TestSpoolResyncBudget(t *testing.T) {
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			panic("TestSpoolResyncBudget: the search was not bounded (10 s watchdog)")
		}
	}()
	d, path := openDir(t)
	name := filepath.Join(path, segName(1))
	if err := os.WriteFile(name, append([]byte(magic), bytes.Repeat([]byte{1}, 17<<20)...), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(name)
	s, err := Open(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.Corrupt) != 1 || !strings.Contains(s.Corrupt[0], "budget") || s.TornBytes != 0 {
		t.Fatalf("corrupt %q, torn bytes %d; want the search's budget reported, nothing cut", s.Corrupt, s.TornBytes)
	}
	if fi2, _ := os.Stat(name); fi2.Size() != fi.Size() {
		t.Errorf("the segment went from %d to %d bytes: a segment not searched to its end is left whole", fi.Size(), fi2.Size())
	}
	if got := replay(t, s); len(got) != 0 {
		t.Errorf("%d requests replayed, want 0", len(got))
	}
	if seq, err := s.Append(JSON, []byte("after")); err != nil || seq != 2 {
		t.Errorf("appended as %d (%v), want 2, in a new segment", seq, err)
	}
	if _, err := os.Stat(filepath.Join(path, segName(2))); err != nil {
		t.Errorf("no new segment: %v", err)
	}
}
