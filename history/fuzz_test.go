package history

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// FuzzDecodePayload: any bytes decode to a valid Result or a clear error,
// and a decoded Result encodes back to the same bytes.
func FuzzDecodePayload(f *testing.F) {
	for i := range 7 {
		r := crashResult(i)
		f.Add(appendPayload(nil, &r))
		r.Label = fmt.Sprintf("content {\"value\":\"%d\"}", i) // version 3
		f.Add(appendPayload(nil, &r))
	}
	f.Add([]byte{1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, p []byte) {
		r, err := decodePayload(p)
		if err != nil {
			if _, ok := err.(*DecodeError); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("decoded an invalid result: %v", err)
		}
		if back := appendPayload(nil, &r); string(back) != string(p) && canonical(p) {
			t.Fatalf("re-encoding differs:\n%x\n%x", p, back)
		}
	})
}

// canonical reports whether p uses minimal varints (the encoder's form);
// the decoder also accepts padded ones.
func canonical(p []byte) bool {
	r, _ := decodePayload(p)
	return len(appendPayload(nil, &r)) == len(p)
}

// FuzzSegment: a segment file of any content is scanned without a crash or
// hang, within its bound of work (the bytes checksummed at most 5× the
// file's bytes, 1 MiB and one frame), every record it yields is
// valid, and Open recovers the file as the last segment keeping every
// record the scan found, in order: afterwards it scans to its end with no
// invalid tail (or, past the budget, the log goes on in a new segment).
func FuzzSegment(f *testing.F) {
	var seg []byte
	seg = append(seg, segMagic...)
	for i := range 3 {
		r := crashResult(i)
		p := appendPayload(nil, &r)
		seg = binary.LittleEndian.AppendUint32(seg, uint32(len(p)))
		seg = binary.LittleEndian.AppendUint32(seg, crc32.Checksum(p, castagnoli()))
		seg = append(seg, p...)
	}
	f.Add(seg)
	f.Add(seg[:len(seg)-3])
	f.Add([]byte(segMagic))
	f.Add([]byte("ATH"))
	flipped := bytes.Clone(seg)
	flipped[len(segMagic)+20] ^= 0x40 // the first record's payload: resynchronised past
	f.Add(flipped)
	lenFlipped := bytes.Clone(seg)
	lenFlipped[len(segMagic)] ^= 0x80 // the first record's length
	f.Add(lenFlipped)
	// every tenth offset a candidate: headers claiming 64 KiB payloads of
	// version 2, in a file long enough to hold them (~13,000 of them)
	crafted := []byte(segMagic)
	for range 20_000 {
		crafted = append(crafted, 0x00, 0x00, 0x01, 0x00, 0xde, 0xad, 0xbe, 0xef, payloadVersion, 1)
	}
	f.Add(crafted)
	root := f.TempDir()
	var iter int
	f.Fuzz(func(t *testing.T, b []byte) {
		// one directory per input, in a root made once: t.TempDir per
		// input makes the fuzzer crawl
		iter++
		dir := filepath.Join(root, strconv.Itoa(iter))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, segName(1))
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var seen []Result
		res, err := scanSegmentAt(dir, 1, 0, func(r Result, _ pos) error {
			if err := r.Validate(); err != nil {
				t.Fatalf("invalid record yielded: %v", err)
			}
			seen = append(seen, r)
			return nil
		})
		if err != nil {
			return // not a segment (wrong magic): Open refuses it too
		}
		// the stated bound (docs/security.md), written out: not
		// resyncBudget, which this checks
		if bound := 5*int64(len(b)) + 1<<20 + maxPayload; res.checksummed > bound {
			t.Fatalf("%d bytes checksummed for a file of %d, over the bound %d", res.checksummed, len(b), bound)
		}
		s, err := Open(dir, Options{NoAlertFile: true, Sync: SyncNever, Verdicts: -1})
		if err != nil {
			t.Fatalf("Open after a successful scan: %v", err)
		}
		if s.rec.Records != len(seen) {
			t.Errorf("Open replayed %d records, scan saw %d", s.rec.Records, len(seen))
		}
		s.Close()
		var after []Result
		res, err = scanSegmentAt(dir, 1, 0, func(r Result, _ pos) error { after = append(after, r); return nil })
		if err != nil || res.tail != nil && !res.gaveUp {
			t.Errorf("after recovery: err %v, a tail left %+v", err, res.tail)
		}
		if len(after) != len(seen) {
			t.Fatalf("recovery kept %d of the %d records scanned", len(after), len(seen))
		}
		for i := range seen {
			if seen[i] != after[i] {
				t.Fatalf("record %d changed by recovery: %+v, was %+v", i, after[i], seen[i])
			}
		}
	})
}
