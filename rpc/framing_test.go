// framing_test.go: the line writer combines queued answers but keeps their callers waiting.

package rpc

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// gatedWriter blocks every Write until released, and records what it got.
type gatedWriter struct {
	gate   chan struct{}
	mu     sync.Mutex
	writes [][]byte
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	<-g.gate
	g.mu.Lock()
	g.writes = append(g.writes, bytes.Clone(p))
	g.mu.Unlock()
	return len(p), nil
}

// TestLineWriterBackPressure: while one answer is being written, answers that
// queue behind it go out together in the next single write, and their
// callers do not return before that (an SDK that stops reading must stop the
// engine, not let answers pile up in memory).
func TestLineWriterBackPressure(t *testing.T) {
	g := &gatedWriter{gate: make(chan struct{})}
	lw := &lineWriter{w: g}
	first := make(chan error)
	go func() { first <- lw.write([]byte("a\n"), false) }()
	waitFor(t, lw, func() bool { return lw.writing })

	queued := make(chan error, 2)
	for _, l := range []string{"b\n", "c\n"} {
		go func() { queued <- lw.write([]byte(l), false) }()
	}
	waitFor(t, lw, func() bool { return len(lw.pending) == 4 })
	select {
	case <-queued:
		t.Fatal("a queued caller returned before its line was written")
	default:
	}
	close(g.gate) // the reader reads again
	for _, c := range []chan error{first, queued, queued} {
		if err := <-c; err != nil {
			t.Fatal(err)
		}
	}
	got := string(bytes.Join(g.writes, []byte("|")))
	if got != "a\n|b\nc\n" && got != "a\n|c\nb\n" {
		t.Errorf("writes %q: want the first line alone, then the queued two in one write", got)
	}
}

// TestLineWriterHolds: an answer ready while other requests are being
// worked on waits for theirs, and all leave in one write: when the last one
// answers, when maxHeld wait, or when the hold's time is up. Answers of the
// read loop (hold false) and of a request alone go out at once.
func TestLineWriterHolds(t *testing.T) {
	hour := time.Hour
	tests := []struct {
		name     string
		inFlight int // requests in flight, the held ones included
		holdFor  time.Duration
		held     int  // answers that are held, in turn
		last     bool // another answer with hold ends the hold
		writes   []string
	}{
		{"alone", 1, hour, 0, true, []string{"x\n"}},
		{"the last one worked on ends the hold", 4, hour, 3, true, []string{"0\n1\n2\nx\n"}},
		{"maxHeld end the hold", 100, hour, maxHeld, true, []string{strings.Repeat("h\n", maxHeld) + "x\n"}},
		{"the time bound ends the hold", 100, 50 * time.Millisecond, 2, false, []string{"0\n1\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := &gatedWriter{gate: make(chan struct{})}
			close(g.gate)
			lw := &lineWriter{w: g, inFlight: func() int { return tc.inFlight }, holdFor: tc.holdFor}
			done := make(chan error, tc.held+1)
			for i := range tc.held {
				line := fmt.Sprintf("%d\n", i)
				if tc.held == maxHeld {
					line = "h\n"
				}
				go func() { done <- lw.write([]byte(line), true) }()
				waitFor(t, lw, func() bool { return lw.queued == i+1 })
			}
			lw.mu.Lock()
			early := len(g.writes)
			lw.mu.Unlock()
			if early > 0 && tc.holdFor == hour {
				t.Fatalf("%d writes while answers are held", early)
			}
			if tc.last {
				var err error
				within(t, "the last answer's write", func() { err = lw.write([]byte("x\n"), true) })
				if err != nil {
					t.Fatal(err)
				}
			}
			for range tc.held {
				select {
				case err := <-done:
					if err != nil {
						t.Fatal(err)
					}
				case <-time.After(watchdog):
					t.Fatal("a held answer was never written")
				}
			}
			var got []string
			for _, w := range g.writes {
				got = append(got, string(w))
			}
			if d := cmp.Diff(tc.writes, got); d != "" {
				t.Errorf("writes (-want +got):\n%s", d)
			}
		})
	}
	// The read loop's answers are not held.
	g := &gatedWriter{gate: make(chan struct{})}
	close(g.gate)
	lw := &lineWriter{w: g, inFlight: func() int { return 10 }, holdFor: hour}
	var err error
	within(t, "the read loop's answer", func() { err = lw.write([]byte("r\n"), false) })
	if err != nil || len(g.writes) != 1 {
		t.Errorf("read loop's answer: %d writes, error %v; want written at once", len(g.writes), err)
	}
}

// TestLineWriterSpareBounded: the queued-lines buffer is kept for reuse
// only while it is small: a burst of large answers does not leave its
// buffer behind for the rest of the session.
func TestLineWriterSpareBounded(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int
		kept bool
	}{
		{"small", 100, true},
		{"large", maxSpare + 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &gatedWriter{gate: make(chan struct{})}
			lw := &lineWriter{w: g}
			first := make(chan error)
			go func() { first <- lw.write([]byte("a\n"), false) }()
			waitFor(t, lw, func() bool { return lw.writing })
			queued := make(chan error)
			line := append(bytes.Repeat([]byte("b"), tc.size-1), '\n')
			go func() { queued <- lw.write(line, false) }()
			waitFor(t, lw, func() bool { return len(lw.pending) == len(line) })
			close(g.gate)
			for _, c := range []chan error{first, queued} {
				if err := <-c; err != nil {
					t.Fatal(err)
				}
			}
			lw.mu.Lock()
			defer lw.mu.Unlock()
			if kept := lw.spare != nil; kept != tc.kept {
				t.Errorf("a %d-byte queued batch: buffer kept %v, want %v", len(line), kept, tc.kept)
			}
		})
	}
}

func waitFor(t *testing.T, lw *lineWriter, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(watchdog)
	for {
		if time.Now().After(deadline) {
			t.Fatalf("the line writer did not reach the state waited for within %v", watchdog)
		}
		lw.mu.Lock()
		ok := cond()
		lw.mu.Unlock()
		if ok {
			return
		}
		runtime.Gosched()
	}
}

// TestLineReader: lines of every size class come back byte for byte: small
// ones, ones gathered in chunks and joined, ones read into the hint's buffer
// after a detached line, and ones past the limit (prefix and size only).
func TestLineReader(t *testing.T) {
	pattern := func(n int, seed byte) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'a' + (seed+byte(i%23))%26
		}
		return b
	}
	const max = 5 * chunkLen
	tests := []struct {
		name   string
		sizes  []int // lines, in order
		detach bool  // hand each line over, as the server does for large ones
	}{
		{"small", []int{0, 1, 100, 70 << 10}, false},
		{"chunked", []int{chunkLen - 1, chunkLen, chunkLen + 1, 3*chunkLen + 12345, 10}, false},
		{"hinted", []int{2 * chunkLen, 2*chunkLen + 5, 3 * chunkLen, chunkLen + 7}, true},
		{"limit", []int{max, max + 1, 7 * chunkLen, 3}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in bytes.Buffer
			var want [][]byte
			for i, n := range tc.sizes {
				l := pattern(n, byte(i))
				want = append(want, l)
				in.Write(l)
				in.WriteByte('\n')
			}
			lr := newLineReader(&in, max)
			for i, w := range want {
				line, size, tooLong, err := lr.next()
				if err != nil {
					t.Fatalf("line %d: %v", i, err)
				}
				if size != len(w) {
					t.Errorf("line %d: size %d, want %d", i, size, len(w))
				}
				if wantLong := len(w) > max; tooLong != wantLong {
					t.Errorf("line %d (%d bytes): tooLong %v", i, len(w), tooLong)
				}
				if tooLong {
					if !bytes.Equal(line, w[:prefixLen]) {
						t.Errorf("line %d: prefix of %d bytes differs from the line's first %d", i, len(line), prefixLen)
					}
					continue
				}
				if !bytes.Equal(line, w) {
					t.Errorf("line %d (%d bytes): read back %d bytes that differ", i, len(w), len(line))
				}
				if tc.detach {
					lr.detach()
				}
			}
			if _, _, _, err := lr.next(); err != io.EOF {
				t.Errorf("after the last line: %v, want EOF", err)
			}
		})
	}
}

// TestInlineOnlyWhenNothingFollows: the read loop answers a small batch
// itself only when no further input has arrived; a pipelined stream goes to
// the workers, or the whole stream would be evaluated on one thread.
func TestInlineOnlyWhenNothingFollows(t *testing.T) {
	s := New(Options{})
	s.lines = newLineReader(bytes.NewReader([]byte("{\"a\":1}\n{\"b\":2}\n")), 1<<20)
	line, _, _, err := s.lines.next()
	if err != nil {
		t.Fatal(err)
	}
	if s.inline(line) {
		t.Error("first of two buffered lines: answered inline, want a worker")
	}
	if line, _, _, err = s.lines.next(); err != nil {
		t.Fatal(err)
	}
	if !s.inline(line) {
		t.Error("last line with nothing in flight: want it answered inline")
	}
	s.sem <- struct{}{}
	if s.inline(line) {
		t.Error("a request in flight: want a worker")
	}
}
