// resync_test.go: a frame-shaped text inside a damaged payload whose header is whole is never taken for a record.

package history

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// frame is r's frame in the log.
func frame(r Result) []byte {
	p := appendPayload(nil, &r)
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(p)))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(p, castagnoli()))
	return append(b, p...)
}

// TestResyncFrameInsidePayload: the middle record's trace id holds a
// whole valid frame (of a record "forged"), and a byte of that record's
// payload outside it is damaged, its header whole. The scan skips the
// damaged frame to the valid frame where its header says it ends, and
// never takes the frame inside it for a record (valid frames do not lead
// from it to that end). Taking the first valid frame found byte by byte
// would add the forged record.
func TestResyncFrameInsidePayload(t *testing.T) {
	forged := crashResult(99)
	forged.TraceID = "forged"
	r1, r3 := crashResult(1), crashResult(3)
	r2 := crashResult(2)
	r2.TraceID = "pre-" + string(frame(forged)) + "-post"
	seg := []byte(segMagic)
	seg = append(seg, frame(r1)...)
	at2 := len(seg)
	seg = append(seg, frame(r2)...)
	seg = append(seg, frame(r3)...)
	// damage r2's trace id prefix ("pre-"): after its header and payload
	// version, status and score, well before the forged frame
	i := bytes.Index(seg[at2:], []byte("pre-"))
	if i < 0 {
		t.Fatal("no trace id in the frame")
	}
	seg[at2+i] ^= 0x20
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, segName(1)), seg, 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	res, err := scanSegmentAt(dir, 1, 0, func(r Result, _ pos) error {
		got = append(got, r.TraceID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{r1.TraceID, r3.TraceID}, got); diff != "" {
		t.Errorf("records scanned (-want +got):\n%s", diff)
	}
	if len(res.skipped) != 1 || res.skipped[0].Off != int64(at2) || res.tail != nil {
		t.Errorf("skipped %+v, tail %+v; want one run at %d, no tail", res.skipped, res.tail, at2)
	}
}
