// sink_test.go: the queue fills, lines are dropped and counted, one notice says so when it drains; Write never waits.

package logsink

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// gate is a stderr nobody reads until open is called.
type gate struct {
	opened chan struct{}
	once   sync.Once
	mu     sync.Mutex
	buf    bytes.Buffer
}

func newGate() *gate { return &gate{opened: make(chan struct{})} }

func (g *gate) Write(p []byte) (int, error) {
	<-g.opened
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.Write(p)
}

func (g *gate) open() { g.once.Do(func() { close(g.opened) }) }

func (g *gate) lines() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	l := strings.SplitAfter(g.buf.String(), "\n")
	return l[:len(l)-1] // after the last "\n"

}

// within fails the test if f does not return within d: a Write that waits
// on the gate would hang the test otherwise.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s: still blocked after %v", what, d)
	}
}

func line(i int) string { return fmt.Sprintf("{\"n\":%03d}\n", i) } // 10 bytes

func TestFullDropsCountsAndReportsOnce(t *testing.T) {
	tests := []struct {
		name        string
		reason      string
		limit       int
		writes      int
		wantKept    []int // line numbers written, in order, before the notice
		wantDropped int64
	}{
		{"fits", "everything fits: no notice", 100, 8, []int{0, 1, 2, 3, 4, 5, 6, 7}, 0},
		{"overflow", "line 0 is being written, lines 1-10 fill the 100-byte queue, 11-19 are dropped", 100, 20,
			[]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newGate()
			w := newWriter(g, tc.limit)
			within(t, 5*time.Second, "writes to an unread stderr", func() {
				for i := 0; i < tc.writes; i++ {
					if n, err := w.Write([]byte(line(i))); n != 10 || err != nil {
						t.Errorf("Write: %d, %v", n, err)
					}
					if i == 0 {
						waitTaken(t, w) // the writer holds line 0, blocked on the gate
					}
				}
			})
			if got := w.Dropped(); got != tc.wantDropped {
				t.Errorf("Dropped() = %d, want %d (%s)", got, tc.wantDropped, tc.reason)
			}
			if w.Flush(20 * time.Millisecond) {
				t.Error("Flush reported success while stderr is not read")
			}
			g.open()
			if !w.Flush(5 * time.Second) {
				t.Fatal("Flush: the queue did not drain once stderr was read")
			}
			var want []string
			for _, i := range tc.wantKept {
				want = append(want, line(i))
			}
			got := g.lines()
			if tc.wantDropped > 0 {
				notice := got[len(got)-1]
				got = got[:len(got)-1]
				var n struct {
					Level, Logger, Msg string
					Dropped            int64
				}
				if err := json.Unmarshal([]byte(notice), &n); err != nil || n.Level != "warn" || n.Logger != "engine" || n.Dropped != tc.wantDropped {
					t.Errorf("notice %q (%v): want a warn line from logger engine with dropped %d", notice, err, tc.wantDropped)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: lines written (-want +got):\n%s", tc.reason, diff)
			}
			// Once drained, lines flow again, and no second notice appears.
			w.Write([]byte(line(99)))
			w.Flush(5 * time.Second)
			after := g.lines()
			if last := after[len(after)-1]; last != line(99) {
				t.Errorf("after draining: last line %q, want %q", last, line(99))
			}
			if c := strings.Count(strings.Join(after, ""), "log lines dropped"); c > 1 {
				t.Errorf("%d notices, want at most one", c)
			}
		})
	}
}

// waitTaken waits until the writing goroutine has taken the queue.
func waitTaken(t *testing.T, w *Writer) {
	t.Helper()
	for start := time.Now(); time.Since(start) < 5*time.Second; time.Sleep(time.Millisecond) {
		w.mu.Lock()
		n := len(w.pending)
		w.mu.Unlock()
		if n == 0 {
			return
		}
	}
	t.Fatal("the writing goroutine never took the first line")
}

// TestNewQueuesAtMostLimit: docs/security.md "lines queue in at most 1 MiB": the
// writer New makes, on a stderr nobody reads, keeps 1 MiB of lines besides
// the one being written and drops the rest.
func TestNewQueuesAtMostLimit(t *testing.T) {
	if Limit != 1<<20 {
		t.Fatalf("Limit %d, docs/security.md says 1 MiB", Limit)
	}
	g := newGate()
	defer g.open()
	w := New(g)
	fit := Limit / 10 // 10-byte lines
	writes := 1 + 2*fit
	within(t, 10*time.Second, "writes to an unread stderr", func() {
		for i := range writes {
			w.Write([]byte(line(i % 1000)))
			if i == 0 {
				waitTaken(t, w) // the writer holds line 0, blocked on the gate
			}
		}
	})
	if got, want := w.Dropped(), int64(writes-1-fit); got != want {
		t.Errorf("%d lines of 10 bytes to an unread stderr: %d dropped, want %d (1 MiB kept)", writes, got, want)
	}
}

func TestLongerThanLimitDropped(t *testing.T) {
	g := newGate()
	g.open()
	w := newWriter(g, 64)
	w.Write(bytes.Repeat([]byte("x"), 65))
	w.Write([]byte(line(1)))
	w.Flush(5 * time.Second)
	got := strings.Join(g.lines(), "")
	if !strings.Contains(got, line(1)) || !strings.Contains(got, `"dropped":1}`) || strings.Contains(got, "xxx") {
		t.Errorf("a line over the limit is dropped and reported; got %q", got)
	}
}

func TestConcurrentWritersNeverBlock(t *testing.T) {
	g := newGate()
	w := newWriter(g, 1000)
	within(t, 10*time.Second, "64 goroutines logging to an unread stderr", func() {
		var wg sync.WaitGroup
		for range 64 {
			wg.Go(func() {
				for i := range 1000 {
					w.Write([]byte(line(i % 1000)))
				}
			})
		}
		wg.Wait()
	})
	g.open()
	if !w.Flush(5 * time.Second) {
		t.Fatal("no drain")
	}
	got := g.lines()
	kept := int64(0)
	var dropped int64
	for _, l := range got {
		if strings.Contains(l, "log lines dropped") {
			var n struct{ Dropped int64 }
			json.Unmarshal([]byte(l), &n)
			dropped += n.Dropped
			continue
		}
		kept++
	}
	if kept+dropped != 64*1000 || dropped != w.Dropped() {
		t.Errorf("%d lines written + %d reported dropped, want 64000 in all; Dropped() %d", kept, dropped, w.Dropped())
	}
}

// BenchmarkWrite is the cost a log call pays for its line: a copy into the
// queue, no allocation once the buffers have grown.
func BenchmarkWrite(b *testing.B) {
	w := New(io.Discard)
	l := []byte(`{"level":"info","ts":"2026-02-18T10:30:00.000Z","logger":"engine","msg":"evaluation complete","trace_id":"trc_abc123","duration_ms":0,"assertions":5}` + "\n")
	b.ReportAllocs()
	for b.Loop() {
		w.Write(l)
	}
	w.Flush(time.Second)
}
