// load_test.go: load and fault tests against the real binary: sustained pipelining, shutdown, end of
// input and SIGTERM in the middle of a burst, and an SDK that stops reading for a while.

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// specBatch returns the spec §2.2 evaluate_batch line of testdata/session.jsonl
// with its id replaced, so that every request is distinct.
func specBatch(t testing.TB) func(id string) string {
	t.Helper()
	data, err := os.ReadFile("testdata/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	line := lines[1]
	const old = `"id":2,`
	if !strings.Contains(line, old) {
		t.Fatalf("testdata/session.jsonl line 2 has no %s", old)
	}
	return func(id string) string { return strings.Replace(line, old, fmt.Sprintf(`"id":%q,`, id), 1) }
}

// collector reads every answer until EOF, failing on a duplicate id.
type collector struct {
	mu   sync.Mutex
	seen map[string]map[string]any
	got  chan string // ids, as they arrive
	done chan struct{}
}

func collect(t *testing.T, r *bufio.Reader) *collector {
	c := &collector{seen: map[string]map[string]any{}, got: make(chan string, 1<<20), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				if err != io.EOF {
					t.Errorf("reading answers: %v", err)
				}
				return
			}
			m := decodeAnswer(t, line)
			id := fmt.Sprint(m["id"])
			c.mu.Lock()
			if _, dup := c.seen[id]; dup {
				t.Errorf("id %s answered twice", id)
			}
			c.seen[id] = m
			c.mu.Unlock()
			c.got <- id
		}
	}()
	return c
}

// answer is the answer received for id, nil before it arrives.
func (c *collector) answer(id string) map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[id]
}

// peakRSSKB is a running engine's peak resident memory so far, from
// /proc/<pid>/status (VmHWM). The rusage of an exited child is not used:
// os/exec starts children sharing the parent's memory until exec, and Linux
// carries that high-water mark over exec, so a test process holding large
// traces would inflate the engine's figure. -1 where /proc is missing.
func peakRSSKB(cmd *exec.Cmd) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// TestBinarySustainedLoad keeps 64 requests in flight (the advertised maximum)
// for 100,000 batches: every request is answered exactly once and memory stays
// bounded.
func TestBinarySustainedLoad(t *testing.T) {
	total := 100000
	if testing.Short() {
		total = 5000
	}
	bin := buildEngine(t)
	e := start(t, bin, "--log-level=error")
	e.send(t, initLine)
	e.answer(t)
	batch := specBatch(t)
	c := collect(t, e.stdout)
	slots := make(chan struct{}, 64)
	go func() {
		w := bufio.NewWriterSize(e.stdin, 1<<16)
		for i := range total {
			slots <- struct{}{}
			w.WriteString(batch(fmt.Sprintf("b%d", i)))
			w.WriteByte('\n')
			if len(slots) == cap(slots) || i == total-1 {
				w.Flush()
			}
		}
		w.Flush()
	}()
	start := time.Now()
	for range total {
		select {
		case <-c.got:
			<-slots
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer for 10s; %d answered", len(c.seen))
		}
	}
	elapsed := time.Since(start)
	rss := peakRSSKB(e.cmd)
	e.send(t, `{"jsonrpc":"2.0","id":"bye","method":"shutdown","params":{}}`)
	<-c.got
	<-c.done
	if code := e.wait(t); code != 0 {
		t.Errorf("exit code %d", code)
	}
	if len(c.seen) != total+1 {
		t.Errorf("%d answers, want %d", len(c.seen), total+1)
	}
	t.Logf("%d batches, 64 in flight: %.0f batches/s; peak RSS %d MB", total, float64(total)/elapsed.Seconds(), rss/1024)
	if rss > 1<<20 { // 1 GiB: far above what bounded queues need
		t.Errorf("peak RSS %d KB: memory is not bounded", rss)
	}
}

// TestBinaryFaultsMidBurst stops the engine in the middle of a burst in each
// way an SDK can: shutdown, closing stdin, SIGTERM. Nothing accepted is lost
// or answered twice, and the engine exits 0.
func TestBinaryFaultsMidBurst(t *testing.T) {
	bin := buildEngine(t)
	batch := specBatch(t)
	for _, how := range []string{"shutdown", "close-stdin", "sigterm"} {
		t.Run(how, func(t *testing.T) {
			e := start(t, bin, "--log-level=error")
			e.send(t, initLine)
			e.answer(t)
			c := collect(t, e.stdout)
			const before = 300
			var lines []string
			for i := range before {
				lines = append(lines, batch(fmt.Sprintf("a%d", i)))
			}
			switch how {
			case "shutdown":
				lines = append(lines, `{"jsonrpc":"2.0","id":"bye","method":"shutdown","params":{}}`)
				for i := range 50 {
					lines = append(lines, batch(fmt.Sprintf("late%d", i)))
				}
			}
			io.WriteString(e.stdin, strings.Join(lines, "\n")+"\n")
			switch how {
			case "close-stdin":
				e.stdin.Close()
			case "sigterm":
				<-c.got // the burst is being served
				e.cmd.Process.Signal(syscall.SIGTERM)
			}
			<-c.done
			if code := e.wait(t); code != 0 {
				t.Errorf("exit code %d, want 0", code)
			}
			answered := 0
			for i := range before {
				if m, ok := c.seen[fmt.Sprintf("a%d", i)]; ok {
					answered++
					if m["result"] == nil && m["error"] == nil {
						t.Errorf("answer without result or error: %v", m)
					}
				}
			}
			switch how {
			case "shutdown", "close-stdin":
				if answered != before {
					t.Errorf("%d of %d requests before the stop were answered", answered, before)
				}
			case "sigterm":
				if answered == 0 {
					t.Errorf("nothing answered")
				}
			}
			if how == "shutdown" {
				if _, ok := c.seen["bye"]; !ok {
					t.Errorf("shutdown not answered")
				}
				for i := range 50 {
					if m, ok := c.seen[fmt.Sprintf("late%d", i)]; ok {
						if code := fmt.Sprint(m["error"].(map[string]any)["code"]); code != "3003" {
							t.Errorf("request after shutdown answered %v, want 3003", m)
						}
					}
				}
			}
		})
	}
}

// TestBinarySlowReader: an SDK that stops reading stdout for a while. The
// engine blocks on its writes, stops reading at 64 in flight, and answers
// everything once the SDK reads again.
func TestBinarySlowReader(t *testing.T) {
	bin := buildEngine(t)
	batch := specBatch(t)
	e := start(t, bin, "--log-level=error")
	e.send(t, initLine)
	e.answer(t)
	const n = 3000
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := range n {
			if _, err := io.WriteString(e.stdin, batch(fmt.Sprintf("s%d", i))+"\n"); err != nil {
				t.Errorf("write: %v", err)
				return
			}
		}
	}()
	// Not reading: the answers fill the stdout pipe, the workers block on
	// writing them, the 64 slots stay taken and the engine stops reading,
	// so the writes of 3,000 requests (~4 MB) cannot all be taken: the
	// pipes and the engine's buffers hold a few hundred answers and
	// requests at most. An engine that took them all would be queueing
	// answers, or reading past its bound, without limit.
	select {
	case <-sent:
		t.Fatal("all requests were accepted while stdout was not read: the engine buffers without bound")
	case <-time.After(2 * time.Second):
	}
	c := collect(t, e.stdout)
	for range n {
		select {
		case <-c.got:
		case <-time.After(10 * time.Second):
			t.Fatalf("stalled after %d answers", len(c.seen))
		}
	}
	<-sent
	e.stdin.Close()
	<-c.done
	if code := e.wait(t); code != 0 {
		t.Errorf("exit code %d", code)
	}
	if len(c.seen) != n {
		t.Errorf("%d answers, want %d", len(c.seen), n)
	}
}
