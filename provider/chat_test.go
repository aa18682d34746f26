// chat_test.go: the multi-turn chat call of both APIs, and offline mode, against loopback servers.

package provider

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestChatBodies(t *testing.T) {
	msgs := []Message{{"user", "Hi, how can I help?"}, {"assistant", "Refund ORD-1"}, {"user", "Which amount?"}}
	cases := []struct {
		name, kind, reply string
		env               func(url string) func(string) string
		want              map[string]any
	}{
		{"openai", "openai", `{"choices":[{"message":{"content":"89.99"}}],"usage":{"prompt_tokens":10,"completion_tokens":2}}`,
			func(u string) func(string) string { return envOf("OPENAI_BASE_URL", u) },
			map[string]any{"model": "m", "temperature": 0.0, "max_tokens": 50.0, "messages": []any{
				map[string]any{"role": "system", "content": "You are Dana."},
				map[string]any{"role": "user", "content": "Hi, how can I help?"},
				map[string]any{"role": "assistant", "content": "Refund ORD-1"},
				map[string]any{"role": "user", "content": "Which amount?"}}}},
		{"anthropic", "anthropic", `{"content":[{"type":"text","text":"89.99"}],"usage":{"input_tokens":10,"output_tokens":2}}`,
			func(u string) func(string) string { return envOf("ANTHROPIC_BASE_URL", u) },
			map[string]any{"model": "m", "temperature": 0.0, "max_tokens": 50.0, "system": "You are Dana.", "messages": []any{
				map[string]any{"role": "user", "content": "Hi, how can I help?"},
				map[string]any{"role": "assistant", "content": "Refund ORD-1"},
				map[string]any{"role": "user", "content": "Which amount?"}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got map[string]any
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				_ = json.Unmarshal(b, &got)
				w.Write([]byte(c.reply))
			}))
			defer srv.Close()
			p, err := New(Settings{Getenv: c.env(srv.URL)})
			if err != nil {
				t.Fatal(err)
			}
			if p.Judge().Kind() != c.kind {
				t.Fatalf("judge kind %s", p.Judge().Kind())
			}
			text, u, err := p.Judge().Chat(context.Background(), "simulated user", "m", "You are Dana.", msgs, 0, 50)
			if err != nil || text != "89.99" || u != (Usage{10, 2}) {
				t.Fatalf("Chat = %q, %+v, %v", text, u, err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("request body (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOfflineMakesNoCall(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	p, err := New(Settings{Getenv: envOf("OPENAI_BASE_URL", srv.URL), Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = p.Judge().Chat(context.Background(), "simulated user", "m", "s", []Message{{"user", "x"}}, 0, 5)
	pe, ok := err.(*Error)
	if !ok || !pe.Offline || pe.Transient || !strings.Contains(pe.Message, `offline: no simulated user result for model "m"`) {
		t.Errorf("offline Chat error = %#v", err)
	}
	if _, _, err := p.Judge().Complete(context.Background(), "m", "s", "u", true); err == nil {
		t.Error("offline Complete succeeded")
	}
	if _, _, err := p.Embedder().Embed(context.Background(), "e", []string{"x"}); err == nil {
		t.Error("offline Embed succeeded")
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("offline mode sent %d requests", n)
	}
}
