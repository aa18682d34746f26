// hostile_test.go: generated hostile state dirs are opened by a reader (report), Merge and a writer within a stated memory and time: every bound applies while the dir is read.

package history

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// hostileSnapshot writes a summaries file whose "keys" member is keys and
// whose other members are extra (a JSON fragment, "" none).
func hostileSnapshot(t *testing.T, dir string, keys func(b *bytes.Buffer), extra string) int64 {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"version":1,"id":"0123456789abcdef","window":{"traces":20},"checkpoint":{"segment":1,"offset":0},`)
	b.WriteString(extra)
	b.WriteString(`"keys":{`)
	keys(&b)
	b.WriteString("}}\n")
	if err := os.WriteFile(filepath.Join(dir, snapshotFile), b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return int64(b.Len())
}

// hostileSegment writes segment 1 of n records made by rec.
func hostileSegment(t *testing.T, dir string, n int, rec func(i int) Result) int64 {
	t.Helper()
	b := []byte(segMagic)
	for i := range n {
		r := rec(i)
		p := appendPayload(nil, &r)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(p)))
		b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(p, castagnoli()))
		b = append(b, p...)
	}
	if err := os.WriteFile(filepath.Join(dir, segName(1)), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return int64(len(b))
}

// window is one full window's JSON, as a store writes it.
func window(w int) string {
	return fmt.Sprintf(`{"window":%d,"passes":1,"fails":0,"errors":0,"skipped":0,"fractional":0,"score_sum":1000000,"score_sq":[0,1000000000000],"hist":[0,0,0,0,0,0,0,0,0,1]}`, w)
}

// TestHostileDirs opens generated hostile state dirs with OpenReadOnly
// (what report does), Merge (as a source) and Open (a writer), and checks
// each within the stated budget: at most DefaultMaxKeys assertions held,
// at most lateWindows + 1,000 windows moved in memory per log record,
// memory allocated during the open (all of it, garbage included) at most
// 32× the dir's bytes and 32 MiB, a watchdog of 30 s (each takes well
// under a second). Each dir defeats a decoder that checks its bounds only
// after decoding: "{}" windows take ~50× the file in memory (a 44 MiB
// file, 2 GiB), 300,000 windows take minutes in a bound that drops one
// window at a time, 200,000 new assertions in the log make as many series
// for a reader without a key bound, records against window order move
// every window for each record (80,000 records: 11 s), and so does each new
// window past the bound when the bound drops one window at a time (80,000:
// 29 s).
func TestHostileDirs(t *testing.T) {
	if raceOn {
		t.Skip("single-goroutine decoding of tens of MiB, allocations counted: run without -race")
	}
	tests := []struct {
		name    string
		make    func(t *testing.T, dir string) int64
		want    string // the error every opener gives, "" none
		records int    // in the log
	}{
		{"2,000,000 empty windows", func(t *testing.T, dir string) int64 {
			return hostileSnapshot(t, dir, func(b *bytes.Buffer) {
				b.WriteString(`"k":{"windows":[`)
				b.WriteString(strings.Repeat("{},", 2_000_000))
				b.WriteString("{}]}")
			}, "")
		}, "a window of 2 bytes", 0},
		{"300,000 windows", func(t *testing.T, dir string) int64 {
			return hostileSnapshot(t, dir, func(b *bytes.Buffer) {
				b.WriteString(`"k":{"windows":[`)
				for w := range 300_000 {
					if w > 0 {
						b.WriteByte(',')
					}
					b.WriteString(window(w))
				}
				b.WriteString("]}")
			}, "")
		}, "more than 8192 windows", 0},
		{"1,000,000 keys", func(t *testing.T, dir string) int64 {
			return hostileSnapshot(t, dir, func(b *bytes.Buffer) {
				for k := range 1_000_000 {
					if k > 0 {
						b.WriteByte(',')
					}
					fmt.Fprintf(b, `"k%d":{}`, k)
				}
			}, "")
		}, "more than 1024 assertions", 0},
		{"1,000,000 null keys", func(t *testing.T, dir string) int64 {
			return hostileSnapshot(t, dir, func(b *bytes.Buffer) {
				for k := range 1_000_000 {
					if k > 0 {
						b.WriteByte(',')
					}
					fmt.Fprintf(b, `"k%d":null`, k)
				}
			}, "")
		}, "more than 1024 assertions", 0},
		{"1,000,000 merged ids", func(t *testing.T, dir string) int64 {
			var m bytes.Buffer
			m.WriteString(`"merged":[`)
			for i := range 1_000_000 {
				if i > 0 {
					m.WriteByte(',')
				}
				fmt.Fprintf(&m, `"%016x"`, i)
			}
			m.WriteString("],")
			return hostileSnapshot(t, dir, func(b *bytes.Buffer) {}, m.String())
		}, "more than 65536 merged state dirs", 0},
		{"a 64 MiB type", func(t *testing.T, dir string) int64 {
			return hostileSnapshot(t, dir, func(b *bytes.Buffer) {
				b.WriteString(`"k":{"type":"` + strings.Repeat("x", 64<<20) + `"}`)
			}, "")
		}, "longer than 1048576 bytes", 0},
		{"60 members of 1 MiB a later version would read", func(t *testing.T, dir string) int64 {
			var m strings.Builder
			for i := range 60 {
				fmt.Fprintf(&m, `"x%d":"%s",`, i, strings.Repeat("x", 1<<20-64))
			}
			return hostileSnapshot(t, dir, func(b *bytes.Buffer) {
				b.WriteString(`"k":{` + m.String() + `"windows":[]}`)
			}, m.String())
		}, "members not read of more than 1048576 bytes", 0},
		{"64 MiB of white space", func(t *testing.T, dir string) int64 {
			return hostileSnapshot(t, dir, func(b *bytes.Buffer) {
				b.WriteString(`"k":` + strings.Repeat(" ", 64<<20) + `{}`)
			}, "")
		}, "longer than 1048576 bytes", 0},
		{"the same key twice", func(t *testing.T, dir string) int64 {
			return hostileSnapshot(t, dir, func(b *bytes.Buffer) { b.WriteString(`"k":{},"k":{}`) }, "")
		}, `member "k" twice`, 0},
		{"200,000 new assertions in the log", func(t *testing.T, dir string) int64 {
			size := hostileSnapshot(t, dir, func(b *bytes.Buffer) {}, "")
			return size + hostileSegment(t, dir, 200_000, func(i int) Result {
				return Result{TraceID: "t", Assertion: fmt.Sprint("a", i), Status: Pass, Score: 1, Seq: 1, ResultID: fmt.Sprint("r", i)}
			})
		}, "", 200_000},
		{"100,000 records, each a new window", func(t *testing.T, dir string) int64 {
			size := hostileSnapshot(t, dir, func(b *bytes.Buffer) {}, "")
			return size + hostileSegment(t, dir, 100_000, func(i int) Result {
				return Result{TraceID: fmt.Sprint("t", i), Assertion: "a", Status: Pass, Score: 1, Seq: uint64(20*i + 1), ResultID: fmt.Sprint("r", i)}
			})
		}, "", 100_000},
		{"100,000 records against window order", func(t *testing.T, dir string) int64 {
			size := hostileSnapshot(t, dir, func(b *bytes.Buffer) {}, "")
			return size + hostileSegment(t, dir, 100_000, func(i int) Result {
				return Result{TraceID: fmt.Sprint("t", i), Assertion: "a", Status: Pass, Score: 1, Seq: uint64(20 * (100_000 - i)), ResultID: fmt.Sprint("r", i)}
			})
		}, "", 100_000},
	}
	// Each opener reports the assertions it holds, at most DefaultMaxKeys,
	// and the windows it moved in memory (not counted for merge).
	openers := []struct {
		name string
		open func(dir string) (int, uint64, error)
	}{
		{"report", func(dir string) (int, uint64, error) {
			s, err := OpenReadOnly(dir)
			if err != nil {
				return 0, 0, err
			}
			return len(s.Keys()), s.moves(), nil
		}},
		{"merge", func(dir string) (int, uint64, error) {
			dst := filepath.Join(filepath.Dir(dir), "merged")
			if err := Merge(dst, dir); err != nil {
				return 0, 0, err
			}
			s, err := OpenReadOnly(dst)
			if err != nil {
				return 0, 0, err
			}
			return len(s.Keys()), 0, nil
		}},
		{"writer", func(dir string) (int, uint64, error) {
			s, err := Open(dir, Options{NoAlertFile: true})
			if err != nil {
				return 0, 0, err
			}
			n, m := len(s.Keys()), s.moves()
			return n, m, s.Close()
		}},
	}
	for _, tc := range tests {
		for _, o := range openers {
			t.Run(tc.name+"/"+o.name, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "state")
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				size := tc.make(t, dir)
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				type opened struct {
					keys  int
					moves uint64
					err   error
				}
				done := make(chan opened, 1)
				go func() { k, m, err := o.open(dir); done <- opened{k, m, err} }()
				var res opened
				select {
				case res = <-done:
				case <-time.After(30 * time.Second):
					t.Fatalf("%s of a dir of %d bytes still running after 30 s", o.name, size)
				}
				runtime.ReadMemStats(&after)
				err := res.err
				if res.keys > DefaultMaxKeys {
					t.Errorf("%s holds %d assertions, over the bound of %d", o.name, res.keys, DefaultMaxKeys)
				}
				// a record moves at most lateWindows windows to be
				// inserted, and its share of the bound's drops (a drop of
				// 512 windows moves the ~7,000 kept after them)
				if budget := uint64(tc.records) * (lateWindows + 1000); res.moves > budget {
					t.Errorf("%s moved %d windows for %d records, over the budget of %d", o.name, res.moves, tc.records, budget)
				}
				if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
					t.Errorf("%s: %v, want %q", o.name, err, tc.want)
				}
				alloc := int64(after.TotalAlloc - before.TotalAlloc)
				if budget := 32*size + 32<<20; alloc > budget {
					t.Errorf("%s of a dir of %d bytes allocated %d bytes, over its budget of %d", o.name, size, alloc, budget)
				}
				t.Logf("%s: %d bytes, %d allocated, %d windows moved: %v", o.name, size, alloc, res.moves, err)
			})
		}
	}
}

// TestMergedCap: a merge whose destination would list more than MaxMerged
// merged dirs is refused, and the destination left as it was.
func TestMergedCap(t *testing.T) {
	root := t.TempDir()
	var src []string
	for i := range 2 {
		// a source that lists MaxMerged/2 merged dirs of its own
		var b bytes.Buffer
		fmt.Fprintf(&b, `{"version":1,"id":"s%d","window":{"traces":20},"checkpoint":{"segment":1,"offset":0},"keys":{},"merged":[`, i)
		for j := range MaxMerged / 2 {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"%016x"`, i*MaxMerged+j)
		}
		b.WriteString("]}\n")
		dir := filepath.Join(root, fmt.Sprint("src", i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, snapshotFile), b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		src = append(src, dir)
	}
	dst := filepath.Join(root, "dst")
	err := Merge(dst, src...)
	if err == nil || !strings.Contains(err.Error(), "more than the 65536 a state dir holds") {
		t.Fatalf("Merge: %v, want a refusal past MaxMerged", err)
	}
	if err := Merge(dst, src[0]); err != nil {
		t.Fatalf("merging one source after the refusal: %v", err)
	}
}
