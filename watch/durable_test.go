package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"attest-engine/ingest"
)

// TestLedger: the first unsettled item, with where it starts, whatever
// order items settle in; a gap in the numbering holds nothing.
func TestLedger(t *testing.T) {
	l := newLedger(5, 100, 7)
	type low struct {
		seq         uint64
		start, mark int64
	}
	get := func() low { s, o, m := l.low(); return low{s, o, m} }
	if g := get(); g != (low{5, 100, 7}) {
		t.Fatalf("empty: %v", g)
	}
	l.add(5, 2)
	l.read(110, 8)
	l.add(6, 0)
	l.read(120, 9)
	l.add(7, 1)
	l.read(130, 10)
	l.add(9, 1) // 8 never came: a gap
	l.read(140, 11)
	if g := get(); g != (low{5, 100, 7}) {
		t.Errorf("nothing settled: %v", g)
	}
	l.settle([]ingest.SeqCount{{Seq: 7, N: 1}, {Seq: 5, N: 1}})
	if g := get(); g != (low{5, 100, 7}) {
		t.Errorf("item 5 half settled: %v", g)
	}
	l.settle([]ingest.SeqCount{{Seq: 5, N: 1}})
	if g := get(); g != (low{9, 130, 10}) {
		t.Errorf("5 and 7 settled (6 and 8 held nothing): %v, want item 9 at 130", g)
	}
	l.settle([]ingest.SeqCount{{Seq: 9, N: 1}, {Seq: 42, N: 1}}) // 42: not an item of this ledger
	if g := get(); g != (low{10, 140, 11}) {
		t.Errorf("all settled: %v, want the next item, at the end of the last", g)
	}
}

// TestCutTornLine: a last line without its newline (a write cut short) is
// cut off the result file; a whole file is left as it is.
func TestCutTornLine(t *testing.T) {
	long := strings.Repeat("x", maxTornLine+10)
	for _, tc := range []struct{ name, in, want string }{
		{"whole", "{\"a\":1}\n{\"b\":2}\n", "{\"a\":1}\n{\"b\":2}\n"},
		{"torn", "{\"a\":1}\n{\"b\":", "{\"a\":1}\n"},
		{"one torn line", "{\"b\":", ""},
		{"empty", "", ""},
		{"no newline in the last MiB: kept, a newline added", "{}\n" + long, "{}\n" + long + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out")
			os.WriteFile(path, []byte(tc.in), 0o644)
			f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := cutTornLine(f); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if got, _ := os.ReadFile(path); string(got) != tc.want {
				t.Errorf("got %.40q…, want %.40q…", got, tc.want)
			}
		})
	}
}

// TestLedgerBounded: one item held unsettled (a trace left open) while a
// million later items come and settle: the ledger keeps the unsettled
// items, not one entry per item read since the held one.
func TestLedgerBounded(t *testing.T) {
	l := newLedger(1, 0, 0)
	l.add(1, 1)
	l.read(10, 0)
	const n = 1_000_000
	for seq := uint64(2); seq <= n; seq++ {
		l.add(seq, 2)
		l.read(int64(seq)*10, 0)
		l.settle([]ingest.SeqCount{{Seq: seq, N: 2}})
	}
	if s, start, _ := l.low(); s != 1 || start != 0 {
		t.Errorf("low: item %d at %d; want the held item 1 at 0", s, start)
	}
	if len(l.items) > 4096 {
		t.Errorf("the ledger holds %d entries for 1 unsettled item after %d items; want at most 4096", len(l.items), n)
	}
	l.settle([]ingest.SeqCount{{Seq: 1, N: 1}})
	if s, start, _ := l.low(); s != n+1 || start != n*10 {
		t.Errorf("all settled: low item %d at %d; want %d at %d", s, start, n+1, n*10)
	}
}

// TestLedgerChunks: a long line or request comes as chunks of one Seq
// (ingest.Item.Part, More); its spans are counted as each chunk comes, and
// it does not settle before its last chunk is counted, even when every
// span counted so far is settled.
func TestLedgerChunks(t *testing.T) {
	d := &durable{led: newLedger(1, 0, 0)}
	low := func() uint64 { s, _, _ := d.led.low(); return s }
	d.item(ingest.Item{Seq: 1, Part: 0, More: true, Spans: make([]ingest.Span, 3)})
	d.led.settle([]ingest.SeqCount{{Seq: 1, N: 3}})
	if got := low(); got != 1 {
		t.Fatalf("the first chunk's spans settled, more to come: first unsettled item %d, want 1", got)
	}
	d.item(ingest.Item{Seq: 1, Part: 1, More: true, Spans: make([]ingest.Span, 2)})
	d.item(ingest.Item{Seq: 1, Part: 2, More: false, Spans: make([]ingest.Span, 1)})
	d.led.settle([]ingest.SeqCount{{Seq: 1, N: 2}})
	if got := low(); got != 1 {
		t.Fatalf("one span of the last chunk unsettled: first unsettled item %d, want 1", got)
	}
	d.led.settle([]ingest.SeqCount{{Seq: 1, N: 1}})
	if got := low(); got != 2 {
		t.Errorf("every span settled: first unsettled item %d, want 2", got)
	}

	// Behind an unsettled item (2), a chunked item (3) settles once its
	// last chunk is counted, and is dropped with the others behind 2.
	d.item(ingest.Item{Seq: 2, Spans: make([]ingest.Span, 1)})
	d.item(ingest.Item{Seq: 3, Part: 0, More: true, Spans: make([]ingest.Span, 2)})
	d.led.settle([]ingest.SeqCount{{Seq: 3, N: 2}})
	d.item(ingest.Item{Seq: 3, Part: 1, More: false})
	d.led.settle([]ingest.SeqCount{{Seq: 2, N: 1}})
	if got := low(); got != 4 {
		t.Errorf("items 2 and 3 settled, 3's last chunk empty: first unsettled item %d, want 4", got)
	}
}
