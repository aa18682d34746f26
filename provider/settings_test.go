// settings_test.go: a fake OpenAI and Anthropic server for the client tests, and provider resolution from config and env.

package provider

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
	vectors map[string][]float64 // embedding of a text; default: [1, its length]
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
				vec = []float64{1, float64(len(text))}
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

// fakeClient is a Client whose endpoints are the fake, through OPENAI_BASE_URL.
func fakeClient(t *testing.T, f *fakeProvider) *Client {
	t.Helper()
	c, err := New(Settings{Getenv: envOf("OPENAI_API_KEY", testKey, "OPENAI_BASE_URL", f.URL+"/v1"), RetryBase: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestProviderResolution(t *testing.T) {
	type want struct {
		EmbedDefault, EmbedBase, EmbedKeyEnv string
		JudgeKind, JudgeBase, JudgeModel     string
		Usable                               bool
	}
	tests := []struct {
		name   string
		reason string
		env    func(string) string
		cfg    Settings
		want   want
	}{
		{"nothing", "no key, no config: layers 5–6 not advertised", envOf(),
			Settings{}, want{"", "https://api.openai.com", "OPENAI_API_KEY", "openai", "https://api.openai.com", "gpt-4.1-mini", false}},
		{"openai key", "OPENAI_API_KEY alone enables both layers", envOf("OPENAI_API_KEY", "k"),
			Settings{}, want{"text-embedding-3-small", "https://api.openai.com", "OPENAI_API_KEY", "openai", "https://api.openai.com", "gpt-4.1-mini", true}},
		{"attest key", "ATTEST_OPENAI_API_KEY is what SDK users set", envOf("ATTEST_OPENAI_API_KEY", "k"),
			Settings{}, want{"text-embedding-3-small", "https://api.openai.com", "ATTEST_OPENAI_API_KEY", "openai", "https://api.openai.com", "gpt-4.1-mini", true}},
		{"local server", "a base URL needs no key; /v1 and trailing slash trimmed", envOf("OPENAI_BASE_URL", "http://localhost:11434/v1/"),
			Settings{}, want{"text-embedding-3-small", "http://localhost:11434", "OPENAI_API_KEY", "openai", "http://localhost:11434", "gpt-4.1-mini", true}},
		{"anthropic judge only", "Anthropic key: judge usable, but no embedding model", envOf("ANTHROPIC_API_KEY", "k"),
			Settings{}, want{"", "https://api.openai.com", "OPENAI_API_KEY", "anthropic", "https://api.anthropic.com", "claude-haiku-4-5", false}},
		{"anthropic judge and lexical", "lexical default + Anthropic judge: both layers usable offline for embeddings", envOf("ANTHROPIC_API_KEY", "k"),
			Settings{Embedding: Config{Provider: "lexical"}}, want{"lexical", "https://api.openai.com", "OPENAI_API_KEY", "anthropic", "https://api.anthropic.com", "claude-haiku-4-5", true}},
		{"config wins", "config base_url, model and api_key_env override the env defaults", envOf("MY_KEY", "k", "OPENAI_BASE_URL", "http://ignored"),
			Settings{Embedding: Config{BaseURL: "https://gw.example.com/openai/v1", Model: "emb-x", APIKeyEnv: "MY_KEY"},
				Judge: Config{Provider: "openai", Model: "judge-x"}},
			want{"emb-x", "https://gw.example.com/openai", "MY_KEY", "openai", "http://ignored", "judge-x", true}},
		{"bad env base url", "a bad OPENAI_BASE_URL makes the provider unusable, not the engine", envOf("OPENAI_BASE_URL", "localhost:11434"),
			Settings{}, want{"", "", "OPENAI_API_KEY", "openai", "", "gpt-4.1-mini", false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Getenv = tc.env
			p, err := New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := want{p.embedDefault, p.embedder.base, p.embedder.keyEnv, p.judge.kind, p.judge.base, p.judge.model, p.Usable()}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

func TestProviderConfigErrors(t *testing.T) {
	tests := []struct {
		name, reason string
		cfg          Settings
		want         string
	}{
		{"embedding provider", "anthropic has no embeddings API", Settings{Embedding: Config{Provider: "anthropic"}}, `config embedding.provider "anthropic"`},
		{"judge provider", "lexical cannot judge", Settings{Judge: Config{Provider: "lexical"}}, `config judge.provider "lexical"`},
		{"base url scheme", "a base URL must be http(s)", Settings{Judge: Config{BaseURL: "ftp://x"}}, `config judge.base_url`},
		{"base url credentials", "credentials in a URL would be logged", Settings{Embedding: Config{BaseURL: "https://u:p@x"}}, "must not carry credentials"},
		{"negative price", "prices are non-negative", Settings{Prices: map[string]Price{"m": {Input: -1}}}, `config prices["m"]`},
		{"negative cache", "cache_size is a count", Settings{CacheSize: -1}, "config cache_size"},
	}
	for _, tc := range tests {
		tc.cfg.Getenv = envOf()
		_, err := New(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s (%s): error %v, want it to contain %q", tc.name, tc.reason, err, tc.want)
		}
	}
}

func TestCostFromPrices(t *testing.T) {
	p, err := New(Settings{Getenv: envOf(), Prices: map[string]Price{"gpt-4.1": {Input: 1, Output: 2}, "local": {}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		model  string
		u      Usage
		want   float64
		reason string
	}{
		{"gpt-4.1", Usage{1000, 500}, 0.002, "config overrides the built-in price"},
		{"text-embedding-3-small", Usage{2_000_000, 0}, 0.04, "built-in list price"},
		{"unknown-model", Usage{1000, 1000}, 0, "a model with no price costs 0"},
		{"local", Usage{1000, 1000}, 0, "a zero price marks a free model"},
	}
	for _, tc := range tests {
		if got := p.Cost(tc.model, tc.u); got != tc.want {
			t.Errorf("cost(%s) = %v, want %v: %s", tc.model, got, tc.want, tc.reason)
		}
	}
}
