// group_test.go: pipelined requests answered in groups: each once, in few writes, slots freed only once written.

package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"attest-engine/assert"
	"attest-engine/provider"
)

// countingWriter records every Write.
type countingWriter struct {
	mu     sync.Mutex
	writes int
	b      bytes.Buffer
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	return w.b.Write(p)
}

// TestGroupsAnswerEachOnce: a pipelined stream of batches, each with its
// own id, is answered once per request, in far fewer writes than answers
// (a group's answers leave in one write), and every slot is given back.
// (TestTapeLifetime counts the tapes, through groups too.)
func TestGroupsAnswerEachOnce(t *testing.T) {
	lines := sdkWorkloadLines(t, 256)
	var in bytes.Buffer
	in.WriteString(sessionLines(t)[0] + "\n")
	for i, l := range lines {
		in.Write(bytes.Replace(l, []byte(`"id":2,`), fmt.Appendf(nil, `"id":%d,`, 100+i), 1))
		in.WriteByte('\n')
	}
	s := newServer(t)
	var out countingWriter
	if err := s.Serve(context.Background(), &in, &out); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(out.b.String()), "\n") {
		var a struct {
			ID     json.RawMessage
			Result *struct{ Results []any }
		}
		if err := json.Unmarshal([]byte(l), &a); err != nil || a.Result == nil {
			t.Fatalf("answer %.300s: want a result (%v)", l, err)
		}
		if seen[string(a.ID)] {
			t.Errorf("id %s answered twice", a.ID)
		}
		seen[string(a.ID)] = true
		if string(a.ID) != "1" && len(a.Result.Results) != 5 {
			t.Errorf("id %s: %d results, want 5", a.ID, len(a.Result.Results))
		}
	}
	if len(seen) != len(lines)+1 {
		t.Errorf("%d answers, want %d", len(seen), len(lines)+1)
	}
	// A group hands its answers on two or more at a time but for its last
	// (answerGroup; a slow machine or -race splits groups by time).
	if out.writes > len(lines)*3/4 {
		t.Errorf("%d writes for %d pipelined answers: want them grouped (at most %d)", out.writes, len(lines), len(lines)*3/4)
	}
	if len(s.sem) != 0 {
		t.Errorf("%d slots still taken once every answer is written", len(s.sem))
	}
}

// TestHandDoesNotWait: a group's answers handed to the writer while a
// write is in progress do not wait for it (the group's goroutine goes on
// with other work), but their slots are freed only once they are written,
// in the writer's next write (spec §1.5: an SDK that stops reading stops
// the engine reading). When stdout fails, the slots are freed all the same.
func TestHandDoesNotWait(t *testing.T) {
	g := &gatedWriter{gate: make(chan struct{})}
	var mu sync.Mutex
	freed := 0
	lw := &lineWriter{w: g, freed: func(n int) { mu.Lock(); freed += n; mu.Unlock() }}
	first := make(chan error)
	go func() { first <- lw.write([]byte("a\n"), false) }()
	waitFor(t, lw, func() bool { return lw.writing })
	handed := make(chan struct{})
	go func() {
		lw.hand([]byte("b\nc\n"), 2)
		close(handed)
	}()
	select {
	case <-handed:
	case <-time.After(10 * time.Second):
		t.Fatal("hand waited for the write in progress")
	}
	mu.Lock()
	early := freed
	mu.Unlock()
	if early != 0 {
		t.Fatalf("%d slots freed before their answers were written", early)
	}
	close(g.gate)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	waitFor(t, lw, func() bool { return !lw.writing })
	mu.Lock()
	defer mu.Unlock()
	if got := string(bytes.Join(g.writes, []byte("|"))); got != "a\n|b\nc\n" || freed != 2 {
		t.Errorf("writes %q, %d slots freed: want the handed answers in the next write, then 2 freed", got, freed)
	}

	freed = 0
	lw = &lineWriter{w: failingOut{}, freed: func(n int) { freed += n }}
	lw.hand([]byte("x\n"), 3)
	lw.hand([]byte("y\n"), 1)
	if freed != 4 || lw.failed() == nil {
		t.Errorf("failing stdout: %d slots freed, error %v; want 4 and the write's error", freed, lw.failed())
	}
}

// TestGroupCostlyHandedOn: a batch of layer 5–6 assertions gathered into a
// group with cheap ones behind it goes to a worker of its own: the cheap
// batches are answered while its judge call is held (spec §1.5: a request
// must not wait on a provider call of another).
func TestGroupCostlyHandedOn(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 1)
	judge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		select {
		case arrived <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"{\"score\": 0.9, \"reason\": \"Polite.\"}"}}],"usage":{"prompt_tokens":10,"completion_tokens":5}}`)
	}))
	defer judge.Close()
	var once sync.Once
	releaseAll := func() { once.Do(func() { close(release) }) }
	defer releaseAll()
	eng, err := assert.New(assert.Config{Settings: provider.Settings{
		Judge:      provider.Config{Provider: "openai", BaseURL: judge.URL + "/v1"},
		Getenv:     func(k string) string { return map[string]string{"OPENAI_API_KEY": "test-key"}[k] },
		HTTPClient: judge.Client(),
	}})
	if err != nil {
		t.Fatal(err)
	}
	spec := specBatchLine(t)
	var p struct {
		Params struct{ Trace json.RawMessage }
	}
	if err := json.Unmarshal([]byte(spec), &p); err != nil {
		t.Fatal(err)
	}
	batch := func(id, assertion string) string {
		return `{"jsonrpc":"2.0","id":"` + id + `","method":"evaluate_batch","params":{"trace":` + string(p.Params.Trace) + `,"assertions":[` + assertion + `]}}` + "\n"
	}
	const judged = `{"assertion_id":"j","type":"llm_judge","spec":{"target":"output.message","criteria":"polite","threshold":0.5}}`
	const cheap = `{"assertion_id":"c","type":"content","spec":{"target":"output.message","check":"contains","value":"refund"}}`

	s := New(Options{Engine: eng})
	s.state = stateReady
	pr, pw := io.Pipe()
	var out lockedBuffer
	served := make(chan error, 1)
	go func() { served <- s.Serve(context.Background(), pr, &out) }()
	// One write: the read loop finds all three buffered behind the first.
	if _, err := io.WriteString(pw, batch("judged", judged)+batch("cheap-1", cheap)+batch("cheap-2", cheap)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-arrived:
	case <-time.After(10 * time.Second):
		t.Fatalf("the judge call never reached the provider; answers so far:\n%.500s", out.String())
	}
	for deadline := time.Now().Add(10 * time.Second); strings.Count(out.String(), `"id":"cheap-`) < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the cheap batches were not answered while the judge call was held:\n%.500s", out.String())
		}
	}
	if strings.Contains(out.String(), `"id":"judged"`) {
		t.Fatal("the judged batch was answered before its judge call returned")
	}
	releaseAll()
	pw.Close()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"id":"judged","result"`) {
		t.Errorf("the judged batch's answer: want a result once the judge answered:\n%.1000s", out.String())
	}
}

// TestGroupPanicAnswered: a panic in a grouped request's work is answered
// 3001 with the request's id, and its slot is freed all the same.
func TestGroupPanicAnswered(t *testing.T) {
	s := newReadyServer(t)
	var out lockedBuffer
	s.out = &lineWriter{w: &out, freed: s.free}
	if !s.acquire(false) {
		t.Fatal("no slot")
	}
	g := groups.Get().(*group)
	g.add([]byte(specBatchLine(t)), func(*Server, context.Context, *request) ([]byte, error) { panic("boom") })
	s.answerGroup(g)
	if got := out.String(); !strings.Contains(got, `"id":2,`) || !strings.Contains(got, `"code":3001`) {
		t.Errorf("answer %.300s: want 3001 with id 2", got)
	}
	if len(s.sem) != 0 {
		t.Errorf("%d slots taken after the panic was answered", len(s.sem))
	}
}

// TestGroupHoldBounded: the answers of a group whose requests take long
// are handed on once they have waited maxHoldFor, while the group is
// still at work, not all when it ends: the first two, then the third.
func TestGroupHoldBounded(t *testing.T) {
	s := newReadyServer(t)
	var out countingWriter
	s.out = &lineWriter{w: &out, freed: s.free}
	writes := func() int {
		out.mu.Lock()
		defer out.mu.Unlock()
		return out.writes
	}
	g := groups.Get().(*group)
	for k := range 3 {
		slow := func(s *Server, ctx context.Context, req *request) ([]byte, error) {
			if k == 2 && writes() != 1 {
				t.Errorf("the third request starts with %d writes done; want the first two answers written", writes())
			}
			if k > 0 {
				time.Sleep(2 * maxHoldFor)
			}
			return s.evaluate(ctx, req)
		}
		if !s.acquire(false) {
			t.Fatal("no slot")
		}
		g.add([]byte(specBatchLine(t)), slow)
	}
	s.answerGroup(g)
	if writes() != 2 || len(s.sem) != 0 {
		t.Errorf("%d writes, %d slots taken: want 2, every slot freed", writes(), len(s.sem))
	}
}

// TestGroupWriteFailureLogged: when stdout fails under a group's answers,
// the failure is counted and logged once, as a caller's failed write is
// (send): a group hands its answers to the writer instead of writing them.
func TestGroupWriteFailureLogged(t *testing.T) {
	var logs bytes.Buffer
	s := newReadyServer(t)
	s.log = slog.New(slog.NewJSONHandler(&logs, nil))
	s.out = &lineWriter{w: failingOut{}, freed: s.free}
	g := groups.Get().(*group)
	for _, line := range sdkWorkloadLines(t, 3) {
		if !s.acquire(false) {
			t.Fatal("no slot free")
		}
		g.add(line, (*Server).evaluate)
	}
	s.answerGroup(g)
	if n := strings.Count(logs.String(), "writing stdout"); n != 1 || s.writeFailed.Load() == 0 {
		t.Errorf("%d log lines about writing stdout (%d failures counted), want 1:\n%s", n, s.writeFailed.Load(), logs.String())
	}
	if n := len(s.sem); n != 0 {
		t.Errorf("%d slots still taken after the failed write", n)
	}
}
