// openai_test.go: decoding OpenAI-compatible responses, and fuzzing those decoders.

package provider

import (
	"strings"
	"testing"
)

func TestDecodeOpenAIEmbeddings(t *testing.T) {
	tests := []struct {
		body, why string
		n         int
		ok        bool
	}{
		{`{"object":"list","data":[{"object":"embedding","index":1,"embedding":[0,1]},{"object":"embedding","index":0,"embedding":[1,0]}],"model":"m","usage":{"prompt_tokens":8,"total_tokens":8}}`, "out of order, by index", 2, true},
		{`{"data":[{"embedding":[1,0]}]}`, "no index, no usage (some local servers)", 1, true},
		{`{"data":[{"index":0,"embedding":[1,0]}]}`, "fewer vectors than inputs", 2, false},
		{`{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`, "repeated index", 2, false},
		{`{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[1,2]}]}`, "mixed dimensions", 2, false},
		{`{"data":[{"index":0,"embedding":[]}]}`, "empty vector", 1, false},
		{`{"data":[{"index":0,"embedding":[1e300]}]}`, "beyond float32", 1, false},
		{`{"data":[{"index":0,"embedding":"AAAA"}]}`, "base64 is not requested, so not accepted", 1, false},
		{`[]`, "not an object", 1, false},
	}
	for _, tc := range tests {
		vecs, _, err := decodeOpenAIEmbeddings([]byte(tc.body), tc.n)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v", tc.why, err)
		}
		if tc.ok && tc.n == 2 && (vecs[0][0] != 1 || vecs[1][1] != 1) {
			t.Errorf("%s: vectors %v", tc.why, vecs)
		}
	}
}

func TestDecodeOpenAIChat(t *testing.T) {
	tests := []struct {
		body, want, why string
		ok              bool
		u               Usage
	}{
		{`{"choices":[{"index":0,"message":{"role":"assistant","content":"{\"score\":1}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}`, `{"score":1}`, "content and usage", true, Usage{10, 3}},
		{`{"choices":[]}`, "", "no choices", false, Usage{}},
		{`{"choices":[{"message":{"content":null,"refusal":"I can't"}}]}`, "", "a refusal is an error", false, Usage{}},
		{`{"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":-5}}`, "x", "negative usage clamps to 0", true, Usage{}},
	}
	for _, tc := range tests {
		got, u, err := decodeOpenAIChat([]byte(tc.body))
		if (err == nil) != tc.ok || got != tc.want || (tc.ok && u != tc.u) {
			t.Errorf("%s: %q %v %v", tc.why, got, u, err)
		}
	}
}

func TestOpenAIErrText(t *testing.T) {
	tests := []struct{ body, want, why string }{
		{`{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`, "Rate limit reached", "OpenAI's error body"},
		{`{"error":"model not found"}`, "model not found", "string error (Ollama and others)"},
		{`upstream timeout`, "upstream timeout", "short plain text"},
		{`<html><body>502</body></html>`, "", "HTML is not quoted"},
		{strings.Repeat("x", 1000), "", "long text is not quoted"},
	}
	for _, tc := range tests {
		if got := openAIErrText([]byte(tc.body)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.why, got, tc.want)
		}
	}
}

func FuzzOpenAIDecoders(f *testing.F) {
	for _, s := range []string{
		`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2]}],"model":"m","usage":{"prompt_tokens":8,"total_tokens":8}}`,
		`{"choices":[{"index":0,"message":{"role":"assistant","content":"{\"score\":0.5}"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`,
		`{"error":{"message":"m","type":"t","param":null,"code":"c"}}`,
		`{"data":[{"index":5,"embedding":[1]}]}`, `null`, `{"data":null}`,
	} {
		f.Add([]byte(s), 1)
	}
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		n = n%4 + 1
		if n < 1 {
			n = 1
		}
		vecs, _, err := decodeOpenAIEmbeddings(body, n)
		if err == nil {
			if len(vecs) != n {
				t.Fatalf("%d vectors for %d inputs", len(vecs), n)
			}
			for _, v := range vecs {
				if len(v) == 0 || len(v) != len(vecs[0]) {
					t.Fatalf("bad vectors %v", vecs)
				}
			}
		}
		decodeOpenAIChat(body)
		if msg := openAIErrText(body); len(msg) > len(body) {
			t.Fatalf("error text longer than the body")
		}
	})
}
