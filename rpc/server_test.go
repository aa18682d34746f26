// server_test.go: a fault while a request is worked on is answered to that request, and leaves no count behind.

package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"attest-engine/assert"
	"attest-engine/provider"

	"github.com/google/go-cmp/cmp"
)

// TestPanicAnswered: a panic in a worker is answered 3001 with the id of the
// request it hit, whichever path the request took, and a notification is
// not answered at all. A server without an engine panics in every
// evaluation. Before the fix the fast path (decoded on the worker) answered
// with id null, even a notification, and a large request's panic left it
// counted in largeInFlight for good.
func TestPanicAnswered(t *testing.T) {
	spec := specBatchLine(t)
	const init = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"sdk_name":"t","sdk_version":"0","protocol_version":1,"required_capabilities":[],"preferred_encoding":"json"}}`
	withID := func(id string) string { return strings.Replace(spec, `"id":2,`, `"id":`+id+`,`, 1) }
	large := strings.Replace(withID(`"large"`), `"user_message":"`, `"padding":"`+strings.Repeat("x", collectAfterBytes)+`","user_message":"`, 1)
	tests := []struct {
		name, line, reason string
		want               []string // ids answered, in order
	}{
		{"inline", withID(`"inline"`), "the read loop decodes and evaluates a lone small batch itself", []string{`"inline"`}},
		{"worker", withID(`"worker"`) + "\n" + withID(`"next"`), "a pipelined batch is decoded on a worker", []string{`"next"`, `"worker"`}},
		{"notification", strings.Replace(spec, `"id":2,`, ``, 1), "a notification gets no answer, not even a fault's", nil},
		{"escaped method", strings.Replace(withID(`"escaped"`), `"evaluate_batch"`, `"evaluate\u005fbatch"`, 1), "the read loop decodes a line it cannot sniff", []string{`"escaped"`}},
		{"large", large, "a large request is handed over whole", []string{`"large"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.line == spec {
				t.Fatal("testdata/session.jsonl: the batch has no id 2 to change")
			}
			s := New(Options{})
			var out strings.Builder
			if err := s.Serve(context.Background(), strings.NewReader(init+"\n"+tc.line+"\n"), &out); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range strings.Split(normalize(t, []byte(out.String())), "\n") {
				if l == "" || strings.Contains(l, `"result"`) { // initialize's answer
					continue
				}
				if !strings.Contains(l, `"code":3001`) {
					t.Errorf("answer %.200s: want a 3001", l)
				}
				_, rest, _ := strings.Cut(l, `"id":`)
				id, _, _ := strings.Cut(rest, `,"error"`)
				got = append(got, id)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("%s: ids answered (-want +got):\n%s", tc.reason, d)
			}
			if n := s.largeInFlight.Load(); n != 0 {
				t.Errorf("%d large requests still counted after serving", n)
			}
		})
	}
}

// TestSpawnAfterShutdown: a request that the read loop found ready just
// before a SIGTERM's drain began (Serve sets the state, then waits for what
// is in flight) is refused with the session error, not run behind the
// drain's back: adding to the in-flight count once the wait may have begun
// is a WaitGroup misuse, and its answer could come after Serve returned.
func TestSpawnAfterShutdown(t *testing.T) {
	for _, undecoded := range []bool{false, true} {
		s := newReadyServer(t)
		var out strings.Builder
		s.out = &lineWriter{w: &out}
		line := []byte(specBatchLine(t))
		c := &call{line: line, fn: (*Server).evaluate}
		if !undecoded {
			req, perr := parse(line)
			if perr != nil {
				t.Fatal(perr)
			}
			c = &call{req: req, fn: (*Server).evaluate}
		}
		s.setState(stateShutdown)
		s.spawn(c, true)
		s.inflight.Wait()
		got := out.String()
		if !strings.Contains(got, `"code":3003`) || !strings.Contains(got, `evaluate_batch called after shutdown`) || len(s.sem) != 0 {
			t.Errorf("undecoded %v: answer %.200s, %d slots taken; want the session error and no slot", undecoded, got, len(s.sem))
		}
		if !strings.Contains(got, `"id":2`) {
			t.Errorf("undecoded %v: answer %.200s; want it to carry the request's id", undecoded, got)
		}
	}
}

// TestProviderErrorsRetryable: every PROVIDER_ERROR is marked retryable on
// the wire, as the spec §5 error code table has it, a 4xx the engine did not
// retry itself (an invalid API key) included.
func TestProviderErrorsRetryable(t *testing.T) {
	s := newReadyServer(t)
	for _, pe := range []*provider.Error{
		{Message: "judge provider returned HTTP 401: invalid x-api-key", Detail: "Check the key."},
		{Message: "judge provider returned HTTP 429: rate limit", Transient: true},
	} {
		line := string(encodeError(json.Number("7"), s.toWire(pe)))
		if !strings.Contains(line, `"code":2001`) || !strings.Contains(line, `"retryable":true`) {
			t.Errorf("%s: want 2001, retryable", line)
		}
	}
}

// TestCostlyBatchNotInline: a lone batch with a layer 5–6 assertion, its
// type written plainly or with an escape, is decoded by the read loop but
// evaluated on a worker: the read loop returns while the judge has not
// answered, so that a request sent behind it is read (spec §1.5). A lone
// batch of cheap assertions is evaluated by the read loop itself.
func TestCostlyBatchNotInline(t *testing.T) {
	release := make(chan struct{})
	judge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		http.Error(w, "gone", http.StatusServiceUnavailable)
	}))
	// No worker of this test outlives it (run last: after the judge is
	// released below): a request still running when a later test starts
	// would count in that test's tally of held tapes (TestTapeLifetime).
	var servers []*Server
	defer func() {
		for _, s := range servers {
			s.inflight.Wait()
		}
	}()
	defer judge.Close()
	defer close(release)
	eng, err := assert.New(assert.Config{Settings: provider.Settings{
		Judge:      provider.Config{Provider: "openai", BaseURL: judge.URL},
		Embedding:  provider.Config{Provider: "openai", BaseURL: judge.URL},
		Getenv:     func(string) string { return "" },
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
	batch := func(assertions string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"evaluate_batch","params":{"trace":` + string(p.Params.Trace) + `,"assertions":` + assertions + `}}`)
	}
	const judged = `{"assertion_id":"j","type":"llm_judge","spec":{"rubric":"helpfulness"}}`
	const cheap = `{"assertion_id":"c","type":"content","spec":{"target":"output.message","check":"contains","value":"refund"}}`
	tests := []struct {
		name   string
		line   []byte
		inline bool
	}{
		{"judge", batch(`[` + cheap + `,` + judged + `]`), false},
		{"escaped type", batch(`[` + strings.Replace(judged, "llm_judge", `llm\u005fjudge`, 1) + `]`), false},
		{"read through maps", batch(`[` + strings.Replace(judged, `"spec"`, `"note":1,"spec"`, 1) + `]`), false},
		{"embedding", batch(`[{"assertion_id":"e","type":"embedding","spec":{"target":"output.message","reference":"x","threshold":0.5}}]`), false},
		{"cheap", batch(`[` + cheap + `]`), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Options{Engine: eng})
			s.state = stateReady
			servers = append(servers, s)
			var out lockedBuffer
			s.out = &lineWriter{w: &out}
			returned := make(chan struct{})
			go func() {
				s.handleLine(tc.line, len(tc.line), false)
				close(returned)
			}()
			select {
			case <-returned:
				if tc.inline != (len(s.sem) == 0) {
					t.Errorf("read loop returned with %d in flight; evaluated inline: want %v (answer %.300s)", len(s.sem), tc.inline, out.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the read loop waits on the judge")
			}
		})
	}
}

// failingOut fails every write, as a stdout the SDK has closed does.
type failingOut struct{}

func (failingOut) Write([]byte) (int, error) { return 0, errors.New("write |1: broken pipe") }

// TestClosedStdoutLoggedOnce: once stdout fails, every pending answer fails
// too; the first failure is logged, the rest are not (one line, not one
// per request).
func TestClosedStdoutLoggedOnce(t *testing.T) {
	eng, err := assert.New(assert.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	s := New(Options{Engine: eng, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	in := strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"no_such_method","params":{}}`+"\n", 20)
	_ = s.Serve(context.Background(), strings.NewReader(in), failingOut{})
	if n := strings.Count(logs.String(), "writing stdout"); n != 1 {
		t.Errorf("%d log lines about writing stdout, want 1:\n%s", n, logs.String())
	}
}
