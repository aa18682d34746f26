// client.go: what callers use of a Client: its endpoints, calls, prices, and the result cache.

package provider

import (
	"context"
	"slices"
)

// Error is a failed embedding or judge call: PROVIDER_ERROR (2001),
// which the wire always marks retryable (spec §5 error code table).
// Transient marks the failures the engine's own attempts retry (HTTP 429,
// 5xx, network); others, such as a 401, fail at once.
type Error struct {
	Message   string // e.g. "embedding provider returned HTTP 429: rate limit exceeded"
	Detail    string
	Transient bool
	// Offline marks a call offline mode refused: a cache miss, which no
	// retry can fix.
	Offline bool
}

func (e *Error) Error() string { return e.Message }

// Embedder is the OpenAI-compatible embeddings endpoint; never nil, usable or not.
func (p *Client) Embedder() *Endpoint { return p.embedder }

// Judge is the judge endpoint; never nil, usable or not.
func (p *Client) Judge() *Endpoint { return p.judge }

// DefaultEmbeddingModel is the model an embedding assertion without one
// uses (LexicalModel for the offline one), or "" with what to configure.
func (p *Client) DefaultEmbeddingModel() (model, why string) { return p.embedDefault, p.embedWhy }

// JudgeWhy is what to configure when the judge endpoint is not usable.
func (p *Client) JudgeWhy() string { return p.judgeWhy }

// Cached is the value under key in the result cache (memory, then cache_dir).
func (p *Client) Cached(key string) ([]byte, bool) { return p.cache.get(key) }

// Store puts a value under key in the result cache.
func (p *Client) Store(key string, v []byte) { p.cache.put(key, v) }

// Claim makes the caller the one computing key: it returns release when
// the caller owns key (it must call release once the result is stored, or
// on failure), else the channel to wait on while another caller computes it.
func (p *Client) Claim(key string) (release func(), wait <-chan struct{}) {
	return p.inflight.claim(key)
}

// Kind is "openai" or "anthropic".
func (ep *Endpoint) Kind() string { return ep.kind }

// Base is the base URL, without a trailing "/" or "/v1".
func (ep *Endpoint) Base() string { return ep.base }

// Model is the endpoint's default model.
func (ep *Endpoint) Model() string { return ep.model }

// Scrub removes the endpoint's API key, and anything shaped like one, from text.
func (ep *Endpoint) Scrub(text string) string { return scrub(text, ep.key) }

// ScrubReply removes the endpoint's API key (only it, in every form a reply
// is scrubbed of) from text made from a reply after it was read: a reply
// already scrubbed can hold the key in pieces that a later edit joins (a
// simulated user's stop token removed from between them).
func (ep *Endpoint) ScrubReply(text string) string { return scrubReply(text, ep.key) }

// Embed embeds texts with an OpenAI-compatible embeddings API; vectors come
// back in the order of texts.
func (ep *Endpoint) Embed(ctx context.Context, model string, texts []string) ([][]float32, Usage, error) {
	return (&openAIClient{ep: ep, what: ep.what}).embed(ctx, model, texts)
}

// Complete asks a chat model for one reply (jsonMode asks for a JSON
// object where the API supports it), with the API of the endpoint's kind.
// Under budget_usd each attempt starts only if its largest cost fits (a
// *BudgetError otherwise; httpcall.go), and an OpenAI-compatible request
// then carries max_completion_tokens, so that its reply is bounded as
// Anthropic's is.
func (ep *Endpoint) Complete(ctx context.Context, model, system, user string, jsonMode bool) (string, Usage, error) {
	if ep.kind == "anthropic" {
		return (&anthropicClient{ep: ep, what: ep.what}).complete(ctx, model, system, user, jsonMode)
	}
	return (&openAIClient{ep: ep, what: ep.what}).complete(ctx, model, system, user, jsonMode)
}

// BatchSoftFailureCap is ATTEST_BUDGET_MAX_COST as the earlier engine read
// it: the most soft failures one batch may report (the rest are reported
// hard_fail); ok is false when it is not set or not usable (docs/judges.md).
func (p *Client) BatchSoftFailureCap() (n int64, ok bool) {
	if p.batchSoft == nil {
		return 0, false
	}
	return *p.batchSoft, true
}

// Warnings are settings from the environment that could not be used and
// so turned a feature off (env.go), for the caller to log at start.
func (p *Client) Warnings() []string { return slices.Clone(p.warnings) }
