// chat.go: a multi-turn chat call (the simulated user's), with the temperature and token bound sent as given.

package provider

import (
	"context"
	"encoding/json"
	"net/http"
)

// Message is one turn sent to a chat model: role "user" or "assistant".
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// openAIConvRequest is POST /v1/chat/completions for a conversation.
// Temperature has no omitempty: 0 is sent explicitly.
type openAIConvRequest struct {
	Model       string          `json:"model"`
	Messages    []openAIMessage `json:"messages"`
	Temperature float64         `json:"temperature"`
	MaxTokens   int             `json:"max_tokens"`
}

// Chat asks the endpoint's model for the next assistant turn of a
// conversation: a system prompt, then messages starting with a user turn.
// what names the caller in errors ("simulated user"). The endpoint's retry,
// timeout and offline rules apply as for the judge.
func (ep *Endpoint) Chat(ctx context.Context, what, model, system string, msgs []Message, temperature float64, maxTokens int) (string, Usage, error) {
	texts := []string{system}
	for _, m := range msgs {
		texts = append(texts, m.Content)
	}
	maxIn, maxOut := inputBound(texts...), int64(max(maxTokens, 0))
	if ep.kind == "anthropic" {
		am := make([]anthropicMessage, len(msgs))
		for i, m := range msgs {
			am[i] = anthropicMessage(m)
		}
		body, _ := json.Marshal(anthropicRequest{Model: model, MaxTokens: maxTokens, System: system, Messages: am, Temperature: temperature})
		h := http.Header{}
		h.Set("Content-Type", "application/json")
		h.Set("Anthropic-Version", anthropicVersion)
		if ep.key != "" {
			h.Set("X-Api-Key", ep.key)
		}
		return post(ctx, provRequest{
			ep: ep, what: what, path: "/v1/messages", header: h, body: body, errText: anthropicErrText,
			model: model, modelKind: "a Claude model", maxIn: maxIn, maxOut: maxOut,
			invalid: "Check that the base URL points at an Anthropic-compatible /v1/messages endpoint.",
		}, decodeAnthropic)
	}
	om := make([]openAIMessage, 0, len(msgs)+1)
	om = append(om, openAIMessage{Role: "system", Content: system})
	for _, m := range msgs {
		om = append(om, openAIMessage(m))
	}
	body, _ := json.Marshal(openAIConvRequest{Model: model, Messages: om, Temperature: temperature, MaxTokens: maxTokens})
	c := &openAIClient{ep: ep, what: what}
	return post(ctx, provRequest{
		ep: ep, what: what, path: "/v1/chat/completions", header: c.header(), body: body, errText: openAIErrText,
		model: model, modelKind: "a chat model", maxIn: maxIn, maxOut: maxOut,
		invalid: "Check that the base URL points at an OpenAI-compatible /v1/chat/completions endpoint.",
	}, decodeOpenAIChat)
}
