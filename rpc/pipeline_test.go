// pipeline_test.go: pipelined bursts of mixed lines over pipes, against groups, helpers and the line writer: each answered once, slots all freed, backpressure, shutdown and SIGTERM mid-burst.

package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"attest-engine/assert"
	"attest-engine/provider"
	"attest-engine/providertest"
)

// burst builds pipelined request lines of every kind the read loop sorts:
// cheap batches, validate_trace_tree, notifications, broken JSON and bad
// envelopes sniffed as evaluate_batch, lines past inlineMaxBytes, and
// layer 6 batches (costly: handed to workers from groups).
type burst struct {
	trace string // the spec's refund trace
}

func newBurst(t testing.TB) burst {
	var p struct {
		Params struct{ Trace json.RawMessage }
	}
	if err := json.Unmarshal([]byte(specBatchLine(t)), &p); err != nil {
		t.Fatal(err)
	}
	return burst{trace: string(p.Params.Trace)}
}

const (
	cheapAssertion = `{"assertion_id":"c","type":"content","spec":{"target":"output.message","check":"contains","value":"refund"}}`
	judgeAssertion = `{"assertion_id":"j","type":"llm_judge","spec":{"target":"output.message","criteria":"polite","threshold":0.5}}`
)

func (b burst) batch(id, assertion string) string {
	return `{"jsonrpc":"2.0","id":"` + id + `","method":"evaluate_batch","params":{"trace":` + b.trace + `,"assertions":[` + assertion + `]}}`
}

// line is the k-th line of a mixed burst, with the id its answer carries
// ("" for none: a notification; "null" for a line whose id cannot be read).
func (b burst) line(k int, judged bool) (line, id string) {
	id = fmt.Sprintf("r%d", k)
	switch k % 11 {
	case 3:
		return `{"jsonrpc":"2.0","id":"` + id + `","method":"validate_trace_tree","params":{"trace":` + b.trace + `}}`, id
	case 5:
		return `{"jsonrpc":"2.0","method":"evaluate_batch","params":{"trace":` + b.trace + `,"assertions":[` + cheapAssertion + `]}}`, ""
	case 7:
		return `{"jsonrpc":"2.0","id":"` + id + `","method":"evaluate_batch","params":{"trace":{`, id // broken JSON: its id is still read
	case 8:
		return `{"jsonrpc":"2.0","id":{},"method":"evaluate_batch","params":{}}`, "null"
	case 9:
		if k%2 == 1 {
			// Past inlineMaxBytes: read on a worker of its own.
			pad := strings.Repeat("x", inlineMaxBytes+1000)
			return `{"jsonrpc":"2.0","id":"` + id + `","method":"evaluate_batch","params":{"pad":"` + pad + `","trace":` + b.trace + `,"assertions":[` + cheapAssertion + `]}}`, id
		}
	case 10:
		if judged {
			return b.batch(id, judgeAssertion), id
		}
	}
	return b.batch(id, cheapAssertion), id
}

// blockingJudge is an engine whose judge (the fake provider) answers
// once released.
func blockingJudge(t *testing.T) (eng *assert.Engine, release func()) {
	gate := make(chan struct{})
	judge := providertest.New(t, nil)
	judge.Reply = func(string) string {
		<-gate
		return `{"score": 0.9, "reason": "Polite."}`
	}
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release) // before the fake's own Close: its handlers wait on gate
	eng, err := assert.New(assert.Config{Settings: provider.Settings{
		Judge:      provider.Config{Provider: "openai", BaseURL: judge.URL + "/v1"},
		Getenv:     providertest.Env("OPENAI_API_KEY", providertest.Key),
		HTTPClient: judge.Client(),
	}})
	if err != nil {
		t.Fatal(err)
	}
	return eng, release
}

// answers reads out's lines until it ends, keyed by id, in order.
type answers struct {
	mu    sync.Mutex
	ids   []string // each answer's id, in the order written
	lines []string
	done  chan struct{}
}

func readAnswers(t *testing.T, out io.Reader) *answers {
	a := &answers{done: make(chan struct{})}
	go func() {
		defer close(a.done)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m struct{ ID json.RawMessage }
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("answer %.200q is not JSON: %v", sc.Text(), err)
			}
			id := strings.Trim(string(m.ID), `"`)
			a.mu.Lock()
			a.ids, a.lines = append(a.ids, id), append(a.lines, sc.Text())
			a.mu.Unlock()
		}
	}()
	return a
}

func (a *answers) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.ids)
}

// check: every id in want answered exactly once, nulls as often as
// wanted, nothing else.
func (a *answers) check(t *testing.T, want map[string]bool, nulls int) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	seen := map[string]int{}
	for _, id := range a.ids {
		seen[id]++
	}
	for id := range want {
		if seen[id] != 1 {
			t.Errorf("id %s answered %d times, want once", id, seen[id])
		}
	}
	for id, n := range seen {
		if id != "null" && !want[id] {
			t.Errorf("unasked-for answer with id %s (%d times)", id, n)
		}
	}
	if seen["null"] != nulls {
		t.Errorf("%d answers with id null, want %d", seen["null"], nulls)
	}
}

// countingReader counts the bytes the engine has read from stdin, and
// closes ended (when set) once a read fails: the read loop is done.
type countingReader struct {
	r     io.Reader
	n     atomic.Int64
	ended chan struct{}
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	if err != nil && c.ended != nil {
		close(c.ended)
		c.ended = nil
	}
	return n, err
}

// TestPipelinedMixedBurst: bursts of every kind of line, layer 6 batches
// held by their judge while the rest goes on, then end of input: every
// request is answered once, notifications never, and every slot is
// freed.
// With a small line limit, the lines past inlineMaxBytes are too long
// instead (answered by the read loop between groups).
func TestPipelinedMixedBurst(t *testing.T) {
	for _, maxLine := range []int{MaxLineBytes, 4 << 10} {
		t.Run(fmt.Sprint(maxLine), func(t *testing.T) { mixedBurst(t, maxLine) })
	}
}

func mixedBurst(t *testing.T, maxLine int) {
	eng, release := blockingJudge(t)
	b := newBurst(t)
	s := New(Options{Engine: eng})
	s.state, s.maxLine = stateReady, maxLine
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	a := readAnswers(t, outR)
	served := make(chan error, 1)
	go func() { served <- s.Serve(context.Background(), inR, outW); outW.Close() }()
	want, nulls := map[string]bool{}, 0
	var in strings.Builder
	const n = 600
	for k := range n {
		line, id := b.line(k, k < n/2)
		switch id {
		case "":
		case "null":
			nulls++
		default:
			want[id] = true
		}
		in.WriteString(line + "\n")
		if k%97 == 96 { // a burst per write, of varied sizes
			if _, err := io.WriteString(inW, in.String()); err != nil {
				t.Fatal(err)
			}
			in.Reset()
		}
		if k == n/2 {
			go func() { time.Sleep(50 * time.Millisecond); release() }()
		}
	}
	if _, err := io.WriteString(inW, in.String()); err != nil {
		t.Fatal(err)
	}
	inW.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("Serve did not return; %d answers, %d slots taken", a.count(), len(s.sem))
	}
	<-a.done
	a.check(t, want, nulls)
	if len(s.sem) != 0 {
		t.Errorf("%d slots taken once Serve returned", len(s.sem))
	}
}

// TestPipelinedStalledReader: while the SDK does not read stdout, the
// engine stops reading stdin once every slot is taken, with a bounded
// number of answers queued (spec §1.5); once it reads again (slowly),
// every request is answered, and the shutdown that ends the burst last.
func TestPipelinedStalledReader(t *testing.T) {
	b := newBurst(t)
	s := newReadyServer(t)
	inR, inW := io.Pipe()
	in := &countingReader{r: inR}
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- s.Serve(context.Background(), in, outW); outW.Close() }()
	want, nulls := map[string]bool{}, 0
	var all strings.Builder
	const n = 2000
	longest := 0
	for k := range n {
		line, id := b.line(k, false)
		switch id {
		case "":
		case "null":
			nulls++
		default:
			want[id] = true
		}
		longest = max(longest, len(line)+1)
		all.WriteString(line + "\n")
	}
	before := maps.Clone(want)
	all.WriteString(`{"jsonrpc":"2.0","id":"sd","method":"shutdown","params":{}}` + "\n")
	want["sd"] = true
	sent := make(chan error, 1)
	go func() {
		_, err := io.WriteString(inW, all.String())
		inW.Close()
		sent <- err
	}()
	// Stdout unread: the engine's reads must come to a halt.
	last, still := int64(-1), 0
	for still < 30 {
		time.Sleep(10 * time.Millisecond)
		if got := in.n.Load(); got == last {
			still++
		} else {
			last, still = got, 0
		}
	}
	// Read: the slots' lines (one each), the read loop's buffer and the
	// one line it holds. The lines are ~2 KB but every 22nd is ~66 KB.
	bound := int64(64<<10 + (MaxInFlight+1)*longest)
	if last >= int64(all.Len()) || last > bound {
		t.Fatalf("stdout unread: the engine read %d of %d bytes, want it stopped within %d", last, all.Len(), bound)
	}
	// (Fewer than all 64 slots may be taken: the read loop may be the one
	// waiting on stdout, answering a broken line itself.)
	s.out.mu.Lock()
	pending := len(s.out.pending)
	s.out.mu.Unlock()
	if pending > MaxInFlight*4096 {
		t.Errorf("stdout unread: %d bytes of answers queued, want at most an answer per slot", pending)
	}
	// It reads again, slowly: the engine stalls and resumes over and over.
	a := readAnswers(t, &slowReader{r: outR})
	select {
	case err := <-served:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("Serve did not return once stdout was read; %d answers, %d slots taken", a.count(), len(s.sem))
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	<-a.done
	a.check(t, want, nulls)
	a.before(t, before, "sd")
}

// slowReader reads a little at a time, pausing before each read.
type slowReader struct{ r io.Reader }

func (r *slowReader) Read(p []byte) (int, error) {
	time.Sleep(200 * time.Microsecond)
	return r.r.Read(p[:min(len(p), 2048)])
}

// before: every id in ids was answered before last.
func (a *answers) before(t *testing.T, ids map[string]bool, last string) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	at := slices.Index(a.ids, last)
	for i, id := range a.ids {
		if ids[id] && i > at {
			t.Errorf("%s, sent before %s, answered after it", id, last)
		}
	}
}

// TestPipelinedShutdownMidBurst: a shutdown inside a burst is answered
// after every request sent before it (spec §2.3: it drains them first),
// a layer 6 batch held by its judge included, and the requests behind it
// are refused (3003).
func TestPipelinedShutdownMidBurst(t *testing.T) {
	eng, release := blockingJudge(t)
	b := newBurst(t)
	s := New(Options{Engine: eng})
	s.state = stateReady
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	a := readAnswers(t, outR)
	served := make(chan error, 1)
	go func() { served <- s.Serve(context.Background(), inR, outW); outW.Close() }()
	before, nulls := map[string]bool{}, 0
	var in strings.Builder
	for k := range 300 {
		line, id := b.line(k, true)
		switch id {
		case "":
		case "null":
			nulls++
		default:
			before[id] = true
		}
		in.WriteString(line + "\n")
	}
	in.WriteString(`{"jsonrpc":"2.0","id":"sd","method":"shutdown","params":{}}` + "\n")
	after := map[string]bool{}
	for k := range 100 {
		id := fmt.Sprintf("late%d", k)
		after[id] = true
		in.WriteString(b.batch(id, cheapAssertion) + "\n")
	}
	go func() { time.Sleep(100 * time.Millisecond); release() }()
	if _, err := io.WriteString(inW, in.String()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("Serve did not return; %d answers, %d slots taken", a.count(), len(s.sem))
	}
	inW.Close()
	<-a.done
	want := map[string]bool{"sd": true}
	for id := range before {
		want[id] = true
	}
	for id := range after {
		want[id] = true
	}
	a.check(t, want, nulls)
	a.before(t, before, "sd")
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, id := range a.ids {
		if after[id] && !strings.Contains(a.lines[i], `"code":3003`) {
			t.Errorf("%s, sent after the shutdown: %.200s; want 3003", id, a.lines[i])
		}
	}
}

// TestPipelinedSIGTERMMidBurst: a SIGTERM (ctx) in the middle of a burst
// drains what is in flight and returns: no answer twice, none broken,
// and Serve does not hang on a read loop blocked for a slot.
func TestPipelinedSIGTERMMidBurst(t *testing.T) {
	eng, release := blockingJudge(t)
	b := newBurst(t)
	s := New(Options{Engine: eng})
	s.state = stateReady
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	a := readAnswers(t, outR)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	in := &countingReader{r: inR, ended: make(chan struct{})}
	ended := in.ended
	go func() { served <- s.Serve(ctx, in, outW); outW.Close() }()
	go func() {
		for k := 0; ; k++ {
			line, _ := b.line(k, true)
			if _, err := io.WriteString(inW, line+"\n"); err != nil {
				return
			}
		}
	}()
	for a.count() < 200 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	time.Sleep(20 * time.Millisecond)
	release()
	select {
	case err := <-served:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("Serve did not return after SIGTERM; %d answers, %d slots taken", a.count(), len(s.sem))
	}
	// The read loop outlives Serve after a SIGTERM (main exits then): it
	// ends here, so that nothing of this test runs into the next.
	inW.CloseWithError(errors.New("test over"))
	<-ended
	a.mu.Lock()
	seen := map[string]bool{}
	for _, id := range a.ids {
		if id != "null" && seen[id] {
			t.Errorf("id %s answered twice", id)
		}
		seen[id] = true
	}
	a.mu.Unlock()
}

// closingWriter fails every write after the first few, as a stdout the
// SDK closed.
type closingWriter struct {
	mu   sync.Mutex
	left int
}

func (w *closingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.left == 0 {
		// Slow to fail, so that answers queue behind the failing write.
		time.Sleep(time.Millisecond)
		return 0, errors.New("write |1: broken pipe")
	}
	w.left--
	return len(p), nil
}

// TestPipelinedStdoutClosed: stdout failing in the middle of a burst
// frees every slot (handed, held and queued answers alike), so that the
// read loop never waits for a slot forever and Serve returns at end of
// input.
func TestPipelinedStdoutClosed(t *testing.T) {
	b := newBurst(t)
	for _, left := range []int{0, 1, 5, 40} {
		s := newReadyServer(t)
		var in strings.Builder
		for k := range 1000 {
			line, _ := b.line(k, false)
			in.WriteString(line + "\n")
		}
		served := make(chan error, 1)
		go func() {
			served <- s.Serve(context.Background(), strings.NewReader(in.String()), &closingWriter{left: left})
		}()
		select {
		case err := <-served:
			if err == nil {
				t.Errorf("%d writes then broken: Serve returned no error", left)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%d writes then broken: Serve did not return; %d slots taken", left, len(s.sem))
		}
		if len(s.sem) != 0 {
			t.Errorf("%d writes then broken: %d slots taken once Serve returned", left, len(s.sem))
		}
	}
}

// jitterWriter records whole writes, sleeping now and then (a slow
// reader), and fails every write from the failAt-th on (0: never).
type jitterWriter struct {
	mu     sync.Mutex
	n      int
	failAt int
	b      strings.Builder
}

func (w *jitterWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.n++
	n := w.n
	w.mu.Unlock()
	if n%7 == 0 {
		time.Sleep(50 * time.Microsecond)
	}
	if w.failAt > 0 && n >= w.failAt {
		// Slow to fail, so that answers queue behind the failing write.
		time.Sleep(2 * time.Millisecond)
		return 0, errors.New("write |1: broken pipe")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	return len(p), nil
}

// TestLineWriterMixedCallers: writers that wait (held or not) and groups
// that hand their answers on, all at once against a slow stdout, and one
// that breaks: every caller returns, every line is written once and whole,
// and every handed slot is freed exactly once, whether written or not.
func TestLineWriterMixedCallers(t *testing.T) {
	for _, failAt := range []int{0, 1, 30} {
		w := &jitterWriter{failAt: failAt}
		var inFlight, freed atomic.Int64
		lw := &lineWriter{w: w, inFlight: func() int { return int(inFlight.Load()) }, freed: func(n int) { freed.Add(int64(n)) }, holdFor: 100 * time.Microsecond}
		const callers, each = 8, 200
		var handed, lines atomic.Int64
		var wg sync.WaitGroup
		for c := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					line := fmt.Sprintf("c%d-%d\n", c, i)
					lines.Add(1)
					switch i % 3 {
					case 0:
						lw.write([]byte(line), false)
					case 1:
						inFlight.Add(1)
						lw.write([]byte(line), true)
						inFlight.Add(-1)
					default:
						// A group of two answers and a notification.
						handed.Add(3)
						lines.Add(1)
						lw.hand([]byte(line+fmt.Sprintf("c%d-%db\n", c, i)), 3)
					}
				}
			}()
		}
		finished := make(chan struct{})
		go func() { wg.Wait(); close(finished) }()
		select {
		case <-finished:
		case <-time.After(30 * time.Second):
			t.Fatalf("fail at %d: callers still waiting on the writer", failAt)
		}
		waitFor(t, lw, func() bool { return !lw.writing })
		if freed.Load() != handed.Load() {
			t.Errorf("fail at %d: %d handed slots freed, want %d", failAt, freed.Load(), handed.Load())
		}
		w.mu.Lock()
		got := w.b.String()
		w.mu.Unlock()
		seen := map[string]int{}
		for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if l != "" {
				seen[l]++
			}
		}
		for l, n := range seen {
			if n != 1 {
				t.Errorf("fail at %d: line %q written %d times", failAt, l, n)
			}
		}
		if want := int(lines.Load()); failAt == 0 && len(seen) != want {
			t.Errorf("%d lines written, want %d", len(seen), want)
		}
	}
}
