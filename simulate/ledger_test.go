package simulate

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLedgerHoldsWhatItCounts: MaxLedgerBytes bounds what the ledgers keep, not only what they count. The
// heap a session's recorded calls retain (each call's args decoded from its own request, as the server
// does, and a fault that fires on every call) is at most the bytes the Simulator counted for them. It
// failed when an entry kept the request's decoded args map (about three times its canonical text).
func TestLedgerHoldsWhatItCounts(t *testing.T) {
	tb := table(t, `{"mocks": [{"id": "m", "tool": "lookup_*", "result": {"ok": true}}],
		"faults": [{"id": "slow", "tool": "lookup_*", "kind": "latency", "min_ms": 1, "max_ms": 900}]}`)
	const n = 20_000
	// The calls' requests are decoded after the first measure and dropped once answered: what is
	// retained at the second is what the ledgers keep.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	args := make([]any, n)
	for i := range args {
		args[i] = decode(t, fmt.Sprintf(`{"order": {"id": "A%d", "items": [1, 2, 3], "note": "x"}, "n": %d, "ok": true}`, i, i))
	}
	sim := New()
	for i := range args {
		c := Call{ScenarioID: fmt.Sprintf("s%d", i%8), Seed: "7", Tool: fmt.Sprintf("lookup_%d", i%3), Args: args[i]}
		args[i] = nil // the request is done with once answered
		if _, err := sim.Call(tb, c); err != nil {
			t.Fatal(err)
		}
	}
	args = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	sim.mu.Lock()
	counted := int64(sim.ledgerBytes)
	sim.mu.Unlock()
	t.Logf("%d calls: %d bytes held, %d counted (%.0f and %.0f per call)", n, held, counted, float64(held)/n, float64(counted)/n)
	if held > counted {
		t.Errorf("the ledgers hold %d bytes for %d calls, more than the %d bytes counted against MaxLedgerBytes", held, n, counted)
	}
	if e, _ := sim.Ledger("s1"); len(e) != n/8 {
		t.Errorf("scenario s1 has %d entries, want %d", len(e), n/8)
	}
}

// TestTableHoldsWhatItCounts: MaxTableBytes bounds what a parsed table keeps, not only what it counts.
// A table of payloads and a subset match of many tiny values ("{}" is 2 bytes of canonical text), its
// request decoded and dropped as the server does, holds at most 64 KiB more than it counts. It failed
// when a mock kept the request's decoded values, counted as their canonical text: 3.3 MB of payloads
// held 74 MB (8 MiB, a table's bound, held 172 MB; a session keeps 64 tables).
func TestTableHoldsWhatItCounts(t *testing.T) {
	tiny := func(n int) string { return "[" + strings.Repeat("{},", n-1) + "{}]" }
	text := `{"mocks": [
		{"id": "r", "tool": "a", "result": ` + tiny(300_000) + `},
		{"id": "e", "tool": "b", "error": ` + tiny(300_000) + `},
		{"id": "s", "tool": "c", "sequence": [` + tiny(100_000) + `, ` + tiny(100_000) + `]},
		{"id": "m", "tool": "d", "match": {"subset": {"list": ` + tiny(40_000) + `}}, "result": 1}]}`
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tb := table(t, text)
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("a table counted as %d bytes (%d of canonical payloads) holds %d", tb.bytes, 2*len(tiny(300_000))+2*len(tiny(100_000)), held)
	if held > int64(tb.bytes)+64<<10 {
		t.Errorf("the table holds %d bytes and counts %d (want at most 64 KiB more)", held, tb.bytes)
	}
	runtime.KeepAlive(tb)
	runtime.KeepAlive(text) // alive before and after: not in what is measured
}

// TestLedgerPage: pages follow each other without a gap or an overlap, stop at limit entries or before the
// entry that would take them past maxBytes, and always hold one entry when one is left.
func TestLedgerPage(t *testing.T) {
	tb := table(t, `{"mocks": [{"id": "m", "tool": "*", "result": "ok"}]}`)
	sim := New()
	for i := range 10 {
		pad := strings.Repeat("x", 100*(i+1))
		if _, err := sim.Call(tb, Call{ScenarioID: "s", Seed: "1", Tool: "t", Args: map[string]any{"p": pad}}); err != nil {
			t.Fatal(err)
		}
	}
	seqs := func(es []Entry) (out []int) {
		for _, e := range es {
			out = append(out, e.Seq)
		}
		return out
	}
	for _, c := range []struct {
		name                    string
		offset, limit, maxBytes int
		want                    []int
	}{
		{"all", 0, MaxCalls, -1, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"from an offset", 7, MaxCalls, -1, []int{8, 9, 10}},
		{"a limit", 2, 3, -1, []int{3, 4, 5}},
		{"past the end", 10, MaxCalls, -1, nil},
		// entry i (from 1) takes 100·i bytes of padding, its other texts and entryWire.
		{"bytes: as many as fit", 0, MaxCalls, 3 * (entryWire + 130), []int{1, 2}},
		{"bytes: one that does not fit is a page alone", 9, MaxCalls, 10, []int{10}},
	} {
		es, total, ok := sim.LedgerPage("s", c.offset, c.limit, c.maxBytes)
		if !ok || total != 10 {
			t.Errorf("%s: total %d, ok %v", c.name, total, ok)
		}
		if diff := cmp.Diff(c.want, seqs(es)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
	if _, _, ok := sim.LedgerPage("nope", 0, 1, -1); ok {
		t.Error("an unknown scenario reported as existing")
	}
}

// TestLedgerPageWireBytes: a page's entries, written as the answer writes them (canonical JSON), take at
// most maxBytes, however their tool names and rule ids are escaped: a tool of 256 control characters is
// 1,536 bytes on the wire. It failed when a page counted a tool and a rule id by their raw bytes (254 KB of
// entries for a bound of 64 KiB).
func TestLedgerPageWireBytes(t *testing.T) {
	for _, tc := range []struct{ name, tool, rule string }{
		{"control characters", strings.Repeat("\x01", MaxIDText), "m"},
		{"quotes and backslashes", strings.Repeat(`"\`, MaxIDText/2), "m"},
		{"a rule id escaped", "t", strings.Repeat("\x1f", 128)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rule, _ := Canonical(tc.rule)
			tb := table(t, `{"mocks": [{"id": `+string(rule)+`, "tool": "*", "result": "ok"}]}`)
			sim := New()
			for i := range 2000 {
				if _, err := sim.Call(tb, Call{ScenarioID: "s", Seed: "1", Tool: tc.tool, Args: map[string]any{"i": fmt.Sprint(i)}}); err != nil {
					t.Fatal(err)
				}
			}
			const maxBytes = 64 << 10
			for offset := 0; offset < 2000; {
				es, _, _ := sim.LedgerPage("s", offset, MaxCalls, maxBytes)
				list := make([]any, len(es))
				for i := range es {
					list[i] = es[i].Wire()
				}
				c, err := Canonical(list)
				if err != nil {
					t.Fatal(err)
				}
				if len(es) > 1 && len(c) > maxBytes {
					t.Fatalf("the page at offset %d: %d entries take %d bytes of answer, more than %d", offset, len(es), len(c), maxBytes)
				}
				offset += len(es)
			}
		})
	}
}
