// doc.go: the package documentation: the provider clients of layers 5–6 and what they guarantee.

// Package provider calls the model APIs behind the costly assertion layers:
// embeddings (layer 5) from any OpenAI-compatible server, and chat replies
// for the LLM judge (layer 6) from an OpenAI-compatible or the Anthropic
// Messages API, over net/http. It knows nothing of assertions or of the
// protocol: package assert asks it for vectors and replies.
//
// Settings are the provider keys of the --config file; New resolves them
// against the environment (OPENAI_API_KEY, ATTEST_OPENAI_API_KEY,
// OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL) into a Client:
// its embedding and judge Endpoints, prices, and the result cache.
//
// Every call runs under the caller's context (the batch's deadline).
// HTTP 429, 5xx and network errors are retried with exponential backoff and
// jitter, honouring Retry-After, up to 3 attempts; other 4xx fail at once
// with a detail saying what to fix (httpcall.go). Response bodies are read
// through a size limit. An *Error never carries the API key: text quoted
// from a provider is scrubbed of it and of anything shaped like a key. The
// text of a successful reply (a judge's verdict, a simulated user's turn)
// is scrubbed of the endpoint's key as it is read, before any caller caches,
// answers or reports it, for a provider or gateway that echoes the key back.
// Both find the key raw, percent- or JSON-escaped, and in base64 at any of
// the three byte alignments (scrub.go).
//
// Spend (budget.go): under Settings.BudgetUSD every attempt of a paid call
// (a retry too) starts only when its largest cost (each request byte a
// token, 16 per message, the reply at most judgeMaxTokens) fits beside what
// is spent and held by calls in flight, else it is a *BudgetError and never
// sent; an attempt that may have been billed without saying for how much
// (no answer, a reply without usage) counts at that largest cost; ATTEST_JUDGE_RPM and
// ATTEST_JUDGE_BURST are a token bucket over judge requests
// (ratelimit.go); ATTEST_BUDGET_MAX_COST is read as the earlier engine read
// it, a per-batch soft-failure cap that package rpc applies.
//
// The result cache (cache.go) keeps judge verdicts and embedding vectors
// under a hash of everything that affects them (CacheKey): in memory,
// bounded in entries and bytes, and in cache_dir when set, one file per
// key written atomically, least recently used files removed past
// cache_dir_max_bytes. Claim lets concurrent callers compute a key once.
package provider
