// anthropic.go: the Anthropic Messages API client (POST /v1/messages) over net/http, for the judge.

package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// anthropicVersion is the API version header the request shape follows.
const anthropicVersion = "2023-06-01"

// judgeMaxTokens bounds a judge reply: a score and a sentence or two.
const judgeMaxTokens = 1024

type anthropicClient struct {
	ep   *Endpoint
	what string
}

type anthropicMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// anthropicRequest is the body of POST /v1/messages. Temperature has no
// omitempty: 0 is sent explicitly.
type anthropicRequest struct {
	Model       string             `json:"model"`
	MaxTokens   int                `json:"max_tokens"`
	System      string             `json:"system"`
	Messages    []anthropicMessage `json:"messages"`
	Temperature float64            `json:"temperature"`
}

type anthropicResponse struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Usage struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
	} `json:"usage"`
}

// complete asks for one reply. The Messages API has no JSON mode: the
// system prompt asks for JSON and the judge parses the first JSON object.
func (c *anthropicClient) complete(ctx context.Context, model, system, user string, _ bool) (string, Usage, error) {
	body, _ := json.Marshal(anthropicRequest{
		Model: model, MaxTokens: judgeMaxTokens, System: system,
		Messages: []anthropicMessage{{Role: "user", Content: user}},
	})
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Anthropic-Version", anthropicVersion)
	if c.ep.key != "" {
		h.Set("X-Api-Key", c.ep.key)
	}
	return post(ctx, provRequest{
		ep: c.ep, what: c.what, path: "/v1/messages", header: h, body: body, errText: anthropicErrText,
		model: model, modelKind: "a Claude model", maxIn: inputBound(system, user), maxOut: judgeMaxTokens,
		invalid: "Check that the base URL points at an Anthropic-compatible /v1/messages endpoint.",
	}, decodeAnthropic)
}

// decodeAnthropic joins the text blocks of a message and reads the usage.
func decodeAnthropic(body []byte) (string, Usage, error) {
	var r anthropicResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return "", Usage{}, fmt.Errorf("not a message: %v", err)
	}
	var b strings.Builder
	found := false
	for _, blk := range r.Content {
		if blk.Type == "text" {
			b.WriteString(blk.Text)
			found = true
		}
	}
	u := Usage{In: max(r.Usage.InputTokens, 0), Out: max(r.Usage.OutputTokens, 0)}
	if !found {
		return "", u, fmt.Errorf("the message has no text content")
	}
	return b.String(), u, nil
}

// anthropicErrText reads {"type": "error", "error": {"type", "message"}}.
func anthropicErrText(body []byte) string {
	var r struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &r) == nil && r.Error.Message != "" {
		return r.Error.Message
	}
	return plainErrText(body)
}
