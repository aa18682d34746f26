// fake_provider_test.go: fake OpenAI and Anthropic servers for the layer 5–6 tests of the evaluators.

package assert

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"attest-engine/provider"
	"attest-engine/trace"
)

// testKey is the dummy API key of the fakes; no error or explanation may
// ever contain it.
const testKey = "sk-test-SECRET-0123456789abcdef"

// fakeCall is one request a fake server received.
type fakeCall struct {
	Path   string
	Header http.Header
	Body   map[string]any
}

// scripted is a canned response, served before the default behaviour.
type scripted struct {
	status int
	header map[string]string
	body   string
	delay  time.Duration
}

// fakeProvider reproduces the request and response shapes of the OpenAI
// (/v1/embeddings, /v1/chat/completions) and Anthropic (/v1/messages) APIs.
type fakeProvider struct {
	*httptest.Server
	mu      sync.Mutex
	calls   []fakeCall
	script  []scripted
	vectors map[string][]float64 // embedding of a text; default: its lexical vector
	reply   func(user string) string
	delay   time.Duration // of every default response
}

func newFake(t testing.TB) *fakeProvider {
	f := &fakeProvider{vectors: map[string][]float64{},
		reply: func(string) string { return `{"score": 0.9, "reason": "Clear and complete."}` }}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeProvider) push(s ...scripted) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script = append(f.script, s...)
}

func (f *fakeProvider) requests() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeCall(nil), f.calls...)
}

func wait(r *http.Request, d time.Duration) bool {
	select {
	case <-time.After(d):
		return true
	case <-r.Context().Done():
		return false
	}
}

func (f *fakeProvider) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	f.calls = append(f.calls, fakeCall{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	var s *scripted
	if len(f.script) > 0 {
		s = &f.script[0]
		f.script = f.script[1:]
	}
	reply, delay := f.reply, f.delay
	f.mu.Unlock()
	if s != nil {
		if s.delay > 0 && !wait(r, s.delay) {
			return
		}
		for k, v := range s.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(s.status)
		io.WriteString(w, s.body)
		return
	}
	if delay > 0 && !wait(r, delay) {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/v1/embeddings":
		var data []map[string]any
		tokens := 0
		inputs, _ := body["input"].([]any)
		for i, in := range inputs {
			text, _ := in.(string)
			tokens += len(strings.Fields(text))
			vec, ok := f.vector(text)
			if !ok {
				for _, x := range lexicalVector(text) {
					vec = append(vec, float64(x))
				}
			}
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": vec})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": body["model"],
			"usage": map[string]any{"prompt_tokens": tokens, "total_tokens": tokens}})
	case "/v1/chat/completions":
		msgs, _ := body["messages"].([]any)
		last, _ := msgs[len(msgs)-1].(map[string]any)
		user, _ := last["content"].(string)
		json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": reply(user)}}},
			"usage": map[string]any{"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050}})
	case "/v1/messages":
		msgs, _ := body["messages"].([]any)
		last, _ := msgs[len(msgs)-1].(map[string]any)
		user, _ := last["content"].(string)
		json.NewEncoder(w).Encode(map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
			"content":     []any{map[string]any{"type": "text", "text": reply(user)}},
			"stop_reason": "end_turn", "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 1000, "output_tokens": 50}})
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"message":"Unknown path","type":"invalid_request_error","param":null,"code":null}}`)
	}
}

func (f *fakeProvider) vector(text string) ([]float64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.vectors[text]
	return v, ok
}

// envOf is an injectable environment.
func envOf(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// fakeEngine is an Engine whose providers are the fake, through OPENAI_BASE_URL.
func fakeEngine(t *testing.T, f *fakeProvider, mod func(*provider.Settings)) *Engine {
	t.Helper()
	ps := provider.Settings{Getenv: envOf("OPENAI_API_KEY", testKey, "OPENAI_BASE_URL", f.URL+"/v1"), RetryBase: time.Millisecond}
	if mod != nil {
		mod(&ps)
	}
	e, err := New(Config{Settings: ps})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// refund56 is the spec §2.2 trace.
func refund56(t testing.TB) map[string]any {
	t.Helper()
	b, err := os.ReadFile("../testdata/tracecheck/traces/refund.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := trace.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return v.(map[string]any)
}
