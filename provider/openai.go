// openai.go: the OpenAI-compatible client (POST /v1/embeddings, POST /v1/chat/completions) over net/http.

package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"

	"attest-engine/clip"
)

// openAIClient speaks the OpenAI API, which OpenAI and many servers share
// (Ollama, vLLM, llama.cpp, LM Studio, gateways). what is "embedding" or
// "judge", for spec §5's messages.
type openAIClient struct {
	ep   *Endpoint
	what string
}

func (c *openAIClient) header() http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	if c.ep.key != "" {
		h.Set("Authorization", "Bearer "+c.ep.key)
	}
	return h
}

// openAIEmbedRequest is the body of POST /v1/embeddings. Vectors come as
// JSON floats, the API's default encoding.
type openAIEmbedRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type openAIEmbedResponse struct {
	Data []struct {
		Index     *int      `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
	Usage struct {
		PromptTokens int64 `json:"prompt_tokens"`
		TotalTokens  int64 `json:"total_tokens"`
	} `json:"usage"`
}

// maxEmbeddingDims bounds a vector's dimension (the largest public models
// have a few thousand).
const maxEmbeddingDims = 1 << 16

func (c *openAIClient) embed(ctx context.Context, model string, texts []string) ([][]float32, Usage, error) {
	body, _ := json.Marshal(openAIEmbedRequest{Model: model, Input: texts})
	return post(ctx, provRequest{
		ep: c.ep, what: c.what, path: "/v1/embeddings", header: c.header(), body: body, errText: openAIErrText,
		model: model, modelKind: "an embedding model", maxIn: inputBound(texts...),
		invalid: "Check that the base URL points at an OpenAI-compatible /v1/embeddings endpoint and that '" + model + "' is an embedding model.",
	}, func(b []byte) ([][]float32, Usage, error) { return decodeOpenAIEmbeddings(b, len(texts)) })
}

// decodeOpenAIEmbeddings decodes an embeddings response for n inputs:
// exactly one finite vector per input index, all of one dimension.
func decodeOpenAIEmbeddings(body []byte, n int) ([][]float32, Usage, error) {
	var r openAIEmbedResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, Usage{}, fmt.Errorf("not an embeddings response: %v", err)
	}
	if len(r.Data) != n {
		return nil, Usage{}, fmt.Errorf("%d embeddings for %d inputs", len(r.Data), n)
	}
	out := make([][]float32, n)
	dims := -1
	for i, d := range r.Data {
		idx := i
		if d.Index != nil {
			idx = *d.Index
		}
		if idx < 0 || idx >= n || out[idx] != nil {
			return nil, Usage{}, fmt.Errorf("embedding index %d is out of range or repeated", idx)
		}
		if len(d.Embedding) == 0 || len(d.Embedding) > maxEmbeddingDims {
			return nil, Usage{}, fmt.Errorf("embedding %d has %d dimensions", idx, len(d.Embedding))
		}
		if dims >= 0 && len(d.Embedding) != dims {
			return nil, Usage{}, fmt.Errorf("embeddings of different dimensions (%d and %d)", dims, len(d.Embedding))
		}
		dims = len(d.Embedding)
		v := make([]float32, dims)
		for j, x := range d.Embedding {
			f := float32(x)
			if math.IsInf(float64(f), 0) || math.IsNaN(float64(f)) {
				return nil, Usage{}, fmt.Errorf("embedding %d has a non-finite value", idx)
			}
			v[j] = f
		}
		out[idx] = v
	}
	in := r.Usage.PromptTokens
	if in <= 0 {
		in = r.Usage.TotalTokens
	}
	return out, Usage{In: max(in, 0)}, nil
}

type openAIMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type openAIFormat struct {
	Type string `json:"type"`
}

// openAIChatRequest is the body of POST /v1/chat/completions. Temperature
// has no omitempty: 0 is sent explicitly, for repeatable verdicts.
type openAIChatRequest struct {
	Model          string          `json:"model"`
	Messages       []openAIMessage `json:"messages"`
	Temperature    float64         `json:"temperature"`
	ResponseFormat *openAIFormat   `json:"response_format,omitempty"`
	// MaxCompletionTokens bounds the reply under budget_usd only: sent
	// always, it would change what today's requests ask of servers that
	// know only max_tokens.
	MaxCompletionTokens int `json:"max_completion_tokens,omitempty"`
}

type openAIChatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

func (c *openAIClient) complete(ctx context.Context, model, system, user string, jsonMode bool) (string, Usage, error) {
	req := openAIChatRequest{
		Model:    model,
		Messages: []openAIMessage{{Role: "system", Content: system}, {Role: "user", Content: user}},
	}
	if jsonMode {
		req.ResponseFormat = &openAIFormat{Type: "json_object"}
	}
	if c.ep.spend != nil && c.ep.spend.limit > 0 {
		req.MaxCompletionTokens = judgeMaxTokens
	}
	body, _ := json.Marshal(req)
	return post(ctx, provRequest{
		ep: c.ep, what: c.what, path: "/v1/chat/completions", header: c.header(), body: body, errText: openAIErrText,
		model: model, modelKind: "a chat model that accepts temperature 0 and JSON mode", maxIn: inputBound(system, user), maxOut: judgeMaxTokens,
		invalid: "Check that the base URL points at an OpenAI-compatible /v1/chat/completions endpoint.",
	}, decodeOpenAIChat)
}

// decodeOpenAIChat returns the first choice's text and the usage.
func decodeOpenAIChat(body []byte) (string, Usage, error) {
	var r openAIChatResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return "", Usage{}, fmt.Errorf("not a chat completion: %v", err)
	}
	if len(r.Choices) == 0 {
		return "", Usage{}, fmt.Errorf("no choices in the chat completion")
	}
	u := Usage{In: max(r.Usage.PromptTokens, 0), Out: max(r.Usage.CompletionTokens, 0)}
	m := r.Choices[0].Message
	switch {
	case m.Content != nil:
		return *m.Content, u, nil
	case m.Refusal != nil:
		return "", u, fmt.Errorf("the model refused: %s", clip.String(*m.Refusal, maxErrorText))
	}
	return "", u, fmt.Errorf("the first choice has no content")
}

// openAIErrText reads {"error": {"message", "type", "param", "code"}}, or
// the {"error": "text"} some compatible servers send.
func openAIErrText(body []byte) string {
	var r struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &r) == nil && len(r.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(r.Error, &obj) == nil && obj.Message != "" {
			return obj.Message
		}
		var s string
		if json.Unmarshal(r.Error, &s) == nil {
			return s
		}
	}
	return plainErrText(body)
}

// plainErrText uses a short plain-text body as the message; HTML pages and
// JSON of unknown shape are not quoted.
func plainErrText(body []byte) string {
	s := strings.TrimSpace(string(body))
	if len(s) > maxErrorText || strings.ContainsAny(s, "<{") {
		return ""
	}
	return s
}
