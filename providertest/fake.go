// fake.go: the fake OpenAI and Anthropic server, its canned responses and the recorded requests.

package providertest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Key is the dummy API key of the fake; no error or explanation may ever
// contain it.
const Key = "sk-test-SECRET-0123456789abcdef"

// Call is one request the fake received.
type Call struct {
	Path   string
	Header http.Header
	Body   map[string]any
}

// Canned is a canned response, served before the default behaviour.
type Canned struct {
	Status int
	Header map[string]string
	Body   string
	Delay  time.Duration
}

// Server reproduces the request and response shapes of the OpenAI
// (/v1/embeddings, /v1/chat/completions) and Anthropic (/v1/messages) APIs.
// Set its fields before the requests they are to affect.
type Server struct {
	*httptest.Server
	Vectors map[string][]float64     // the embedding of a text; default: embed's
	Reply   func(user string) string // the model's reply to the last user message
	Delay   time.Duration            // of every default response

	embed  func(text string) []float64
	mu     sync.Mutex
	calls  []Call
	script []Canned
}

// New starts a fake, closed when the test ends. embed is the embedding of
// a text not in Vectors; nil means [1, its length in bytes].
func New(t testing.TB, embed func(text string) []float64) *Server {
	if embed == nil {
		embed = func(text string) []float64 { return []float64{1, float64(len(text))} }
	}
	f := &Server{Vectors: map[string][]float64{}, embed: embed,
		Reply: func(string) string { return `{"score": 0.9, "reason": "Clear and complete."}` }}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// Push queues canned responses, served in order before the default ones.
func (f *Server) Push(c ...Canned) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script = append(f.script, c...)
}

// Requests are the requests received so far, in order.
func (f *Server) Requests() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.calls...)
}

// Env is an injectable environment of name, value pairs.
func Env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// wait sleeps d, or until the client gives up on r (false).
func wait(r *http.Request, d time.Duration) bool {
	select {
	case <-time.After(d):
		return true
	case <-r.Context().Done():
		return false
	}
}

func (f *Server) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	f.calls = append(f.calls, Call{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	var c *Canned
	if len(f.script) > 0 {
		c = &f.script[0]
		f.script = f.script[1:]
	}
	reply, delay := f.Reply, f.Delay
	f.mu.Unlock()
	if c != nil {
		if c.Delay > 0 && !wait(r, c.Delay) {
			return
		}
		for k, v := range c.Header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(c.Status)
		io.WriteString(w, c.Body)
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
				vec = f.embed(text)
			}
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": vec})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": body["model"],
			"usage": map[string]any{"prompt_tokens": tokens, "total_tokens": tokens}})
	case "/v1/chat/completions":
		json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": reply(lastUser(body))}}},
			"usage": map[string]any{"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050}})
	case "/v1/messages":
		json.NewEncoder(w).Encode(map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
			"content":     []any{map[string]any{"type": "text", "text": reply(lastUser(body))}},
			"stop_reason": "end_turn", "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 1000, "output_tokens": 50}})
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"message":"Unknown path","type":"invalid_request_error","param":null,"code":null}}`)
	}
}

// lastUser is the text of a chat request's last message.
func lastUser(body map[string]any) string {
	msgs, _ := body["messages"].([]any)
	if len(msgs) == 0 {
		return ""
	}
	last, _ := msgs[len(msgs)-1].(map[string]any)
	user, _ := last["content"].(string)
	return user
}

func (f *Server) vector(text string) ([]float64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.Vectors[text]
	return v, ok
}
