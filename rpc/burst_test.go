// burst_test.go: what the pipelined-burst tests send and read: mixed request lines, a held judge, answers by id, slow and failing pipes.

package rpc

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
