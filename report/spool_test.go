// spool_test.go: a spooled session's report is the in-memory one, the codec keeps every field, memory stays bounded.

package report

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"attest-engine/assert"
	"attest-engine/simulate"

	"github.com/google/go-cmp/cmp"
)

// spoolSession is a session's results in the order a server records them, with what makes grouping
// hard: a trace's plugin results after other traces' batches, a trace_id sent again in a later batch,
// results without a trace_id (one trace, named by its place), text with invalid UTF-8 and controls, and
// a NaN and an infinite score.
func spoolSession(n int) []Recorded {
	var out []Recorded
	statuses := []assert.Status{assert.Pass, assert.SoftFail, assert.HardFail}
	for i := range n {
		id := fmt.Sprintf("trc_%03d", i)
		if i%7 == 3 {
			id = ""
		}
		for j := range 1 + i%4 {
			r := assert.Result{AssertionID: fmt.Sprintf("a%d", j), Status: statuses[(i+j)%3], Score: float64(i%10) / 10,
				Explanation: fmt.Sprintf("result %d.%d \xff\x1b[31m <&>", i, j), Cost: float64(j) * 0.001, DurationMS: int64(i + j),
				Skipped: (i+j)%11 == 0, RequestID: fmt.Sprintf("req_%d", i%5)}
			out = append(out, Recorded{TraceID: id, Type: "content", Suite: []string{"", "refunds"}[i%2], Spec: fmt.Sprintf(`{"n": %d}`, j), Result: r})
		}
		if i >= 2 && i%3 == 0 { // a plugin result for a trace two batches back
			out = append(out, Recorded{TraceID: fmt.Sprintf("trc_%03d", i-2), Plugin: "safety", Result: assert.Result{AssertionID: "p", Status: assert.Pass, Score: 0.5}})
		}
		if i%13 == 5 { // the first trace again
			out = append(out, Recorded{TraceID: "trc_000", Type: "content", Result: assert.Result{AssertionID: "again", Status: assert.HardFail, Score: math.NaN()}})
		}
	}
	out = append(out, Recorded{TraceID: "trc_001", Result: assert.Result{AssertionID: "inf", Status: assert.Pass, Score: math.Inf(1)}})
	return out
}

// TestSpoolSameReport: a session past the spool's memory bound gives, in every format, the report its
// results give held in memory (byTrace, then Write), byte for byte; with one entry or three sorted at
// once, so the sort's merge of chunks is used.
func TestSpoolSameReport(t *testing.T) {
	session := spoolSession(200)
	scenarios := []simulate.ScenarioSummary{{ScenarioID: "refund", Summary: simulate.Summarize(3, 2)}}
	for _, f := range []Format{FormatText, FormatJSON, FormatJUnit, FormatHTML} {
		var want bytes.Buffer
		if err := writeReport(&want, f, byTrace(session), scenarios...); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name         string
			limit, chunk int
		}{
			{"held in memory", 1 << 30, sortChunk},
			{"spilled at once, sorted whole", 0, sortChunk},
			{"spilled at once, merged from chunks of 3", 0, 3},
			{"spilled midway, merged from chunks of 1", 20 << 10, 1},
		} {
			dir := t.TempDir()
			sp := NewSpool(dir, c.limit)
			sp.chunk = c.chunk
			for _, r := range session {
				sp.Add(r)
			}
			var got bytes.Buffer
			n, err := sp.Write(&got, f, Totals{Scenarios: scenarios})
			if err != nil {
				t.Fatalf("%s, %s: %v", f, c.name, err)
			}
			spilled := sp.data != nil
			// Before Close too: a scratch file is unlinked as soon as it is made, so a SIGKILL now leaves
			// nothing (where an open file can be removed: not on Windows).
			if left, _ := os.ReadDir(dir); len(left) != 0 && runtime.GOOS != "windows" {
				t.Errorf("%s, %s: scratch files in the directory while the report is written: %v", f, c.name, left)
			}
			sp.Add(session[0]) // late: not in the report, and no failure
			sp.Close()
			if n != len(byTrace(session)) || spilled != (c.limit < 1<<30) {
				t.Errorf("%s, %s: %d traces (want %d), spilled %v", f, c.name, n, len(byTrace(session)), spilled)
			}
			if diff := cmp.Diff(want.String(), got.String()); diff != "" {
				t.Errorf("%s, %s: the report differs from the in-memory one (-memory +spool):\n%s", f, c.name, diff)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("%s, %s: scratch files left: %v", f, c.name, left)
			}
		}
	}
}

// TestSpoolMemoryBounded: past its bound a spool holds no more memory however many results it gets:
// 200,000 results (about 70 MB as Recorded values) held under 2 MiB above a 1 MiB bound, and the
// report written from them has them all.
func TestSpoolMemoryBounded(t *testing.T) {
	const n, limit = 200_000, 1 << 20
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	sp := NewSpool(t.TempDir(), limit)
	defer sp.Close()
	counted := 0
	for i := range n {
		r := Recorded{TraceID: fmt.Sprintf("trc_%d", i/5), Type: "content", Result: assert.Result{
			AssertionID: fmt.Sprintf("a%d", i%5), Status: assert.Pass, Score: 1, Explanation: fmt.Sprintf("output.message contains 'refund' (%d)", i)}}
		counted += recordSize(&r)
		sp.Add(r)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	held := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
	t.Logf("%d results (%d bytes held in memory): the spool holds %d bytes", n, counted, held)
	if held > limit+2<<20 {
		t.Errorf("the spool holds %d bytes for %d results, want at most %d", held, n, limit+2<<20)
	}
	var out bytes.Buffer
	traces, err := sp.Write(&out, FormatText, Totals{})
	if err != nil || traces != n/5 || !bytes.Contains(out.Bytes(), []byte("(199999)")) {
		t.Errorf("%d traces, error %v; want %d and the last result", traces, err, n/5)
	}
}

// TestSpoolFailure: a spool that cannot make its scratch file (the report's directory is missing) fails
// the report with the reason, and takes no more memory.
func TestSpoolFailure(t *testing.T) {
	sp := NewSpool(t.TempDir()+"/missing", 0)
	defer sp.Close()
	sp.Add(Recorded{TraceID: "t", Result: assert.Result{AssertionID: "a", Status: assert.Pass}})
	sp.Add(Recorded{TraceID: "t", Result: assert.Result{AssertionID: "b", Status: assert.Pass}})
	if _, err := sp.Write(&bytes.Buffer{}, FormatJSON, Totals{}); err == nil || len(sp.mem) != 0 {
		t.Errorf("error %v, %d results held; want the spooling error and none", err, len(sp.mem))
	}
}

// TestSpoolCodecEveryField: every field of Recorded and of its assert.Result survives the spool, set to
// values JSON could not carry (invalid UTF-8, NaN with a payload): a field added to either and not to
// the codec fails here.
func TestSpoolCodecEveryField(t *testing.T) {
	var r Recorded
	fill(t, reflect.ValueOf(&r).Elem(), 1)
	got, err := roundTrip(&r)
	if err != nil {
		t.Fatal(err)
	}
	if math.Float64bits(got.Result.Score) != math.Float64bits(r.Result.Score) || math.Float64bits(got.Result.Cost) != math.Float64bits(r.Result.Cost) {
		t.Errorf("scores and costs spooled as %x %x, read back as %x %x", math.Float64bits(r.Result.Score), math.Float64bits(r.Result.Cost),
			math.Float64bits(got.Result.Score), math.Float64bits(got.Result.Cost))
	}
	r.Result.Score, r.Result.Cost, got.Result.Score, got.Result.Cost = 0, 0, 0, 0 // NaNs are never equal
	if diff := cmp.Diff(r, got); diff != "" {
		t.Errorf("a record read back differs (-spooled +read):\n%s", diff)
	}
	var zero Recorded
	if got, err := roundTrip(&zero); err != nil || !reflect.DeepEqual(got, zero) {
		t.Errorf("the zero record read back as %+v, %v", got, err)
	}
	if _, err := decodeRecord([]byte{200}); err == nil {
		t.Error("a truncated record was read")
	}
}

func roundTrip(r *Recorded) (Recorded, error) {
	b := appendRecord(nil, r)
	n, k := binary.Uvarint(b)
	if k <= 0 || int(n) != len(b)-k {
		return Recorded{}, fmt.Errorf("frame length %d, body %d", n, len(b)-k)
	}
	return decodeRecord(b[k:])
}

// fill sets every field of v to a value of its own, distinct from zero.
func fill(t *testing.T, v reflect.Value, seed int) int {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			seed = fill(t, v.Field(i), seed+1)
		}
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d \xff\x00", seed))
	case reflect.Float64:
		v.SetFloat(math.Float64frombits(0x7ff8000000000000 | uint64(seed))) // a NaN with a payload
	case reflect.Int64:
		v.SetInt(-int64(seed) * 1e12)
	case reflect.Int:
		v.SetInt(-int64(seed) * 1e9)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		seed = fill(t, v.Elem(), seed)
	case reflect.Bool:
		v.SetBool(true)
	default:
		t.Fatalf("a field of kind %s: teach the spool codec and this test about it", v.Kind())
	}
	return seed
}

// BenchmarkSpool: a session of 100,000 results (20,000 batches of 5, a plugin result for every tenth trace
// a batch later) added and its JSON report written, held in memory and spooled.
func BenchmarkSpool(b *testing.B) {
	for _, c := range []struct {
		name  string
		limit int
	}{{"memory", 1 << 30}, {"spooled", 0}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sp := NewSpool(b.TempDir(), c.limit)
				for i := range 20_000 {
					id := fmt.Sprintf("trc_%d", i)
					for j := range 5 {
						sp.Add(Recorded{TraceID: id, Type: "content", Result: assert.Result{AssertionID: fmt.Sprintf("a%d", j), Status: assert.Pass, Score: 1,
							Explanation: "output.message contains 'refund'."}})
					}
					if i%10 == 1 {
						sp.Add(Recorded{TraceID: fmt.Sprintf("trc_%d", i-1), Plugin: "safety", Result: assert.Result{AssertionID: "p", Status: assert.Pass}})
					}
				}
				if _, err := sp.Write(io.Discard, FormatJSON, Totals{}); err != nil {
					b.Fatal(err)
				}
				sp.Close()
			}
		})
	}
}

// failWriter fails every write, as a full disk does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestSpoolFailureFreesScratch: once spooling fails (a full disk), the spool lets go of its scratch files
// at once rather than when serving ends: the space they take on a full disk is freed for the rest of the
// session, and the report then fails with the reason.
func TestSpoolFailureFreesScratch(t *testing.T) {
	sp := NewSpool(t.TempDir(), 0)
	defer sp.Close()
	sp.Add(Recorded{TraceID: "t", Result: assert.Result{AssertionID: "a", Status: assert.Pass}})
	data, runs := sp.data, sp.runs
	if data == nil {
		t.Fatal("the spool did not spill past a bound of 0")
	}
	sp.dw = bufio.NewWriterSize(failWriter{}, 16) // the disk is full from now on
	sp.Add(Recorded{TraceID: "t", Result: assert.Result{AssertionID: "b", Status: assert.Pass, Explanation: "longer than the buffer"}})
	for _, f := range []*os.File{data, runs} {
		if _, err := f.Stat(); !errors.Is(err, os.ErrClosed) {
			t.Errorf("scratch file %s still open after spooling failed (stat: %v)", f.Name(), err)
		}
	}
	if _, err := sp.Write(&bytes.Buffer{}, FormatJSON, Totals{}); err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Errorf("report error %v, want the spooling failure", err)
	}
}
