// httpcall.go: one provider HTTP call with retry, backoff, Retry-After, size limits and key-safe errors.

package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"attest-engine/clip"
)

// Limits of provider calls.
const (
	// maxAttempts is spec §5's "exponential backoff internally up to 3
	// attempts before surfacing this error".
	maxAttempts = 3
	// defaultRetryBase is the first backoff delay; each retry doubles it,
	// plus up to half of it again as jitter.
	defaultRetryBase = 500 * time.Millisecond
	// maxRetryAfter caps a provider's Retry-After: a provider asking for
	// minutes must not hold a batch that long (the batch deadline still
	// applies on top).
	maxRetryAfter = 20 * time.Second
	// maxResponseBytes bounds every provider response body we read.
	maxResponseBytes = 4 << 20
	// maxErrorText bounds the provider's error message quoted in errors.
	maxErrorText = 300
)

// retryDetail is spec §5's PROVIDER_ERROR detail, to the letter.
const retryDetail = "Wait and retry. The engine applies exponential backoff internally up to 3 attempts before surfacing this error."

// httpDoer sends provider requests. Safe for concurrent use.
type httpDoer struct {
	// client is the HTTP client, made on the first call: a session that
	// never calls a provider does not pay for a transport at start-up.
	client    func() *http.Client
	retryBase time.Duration // tests set a tiny one
	offline   bool          // no request is ever sent
}

// provRequest is one provider call, described independently of the provider.
type provRequest struct {
	ep     *Endpoint // base URL, key (scrubbed from anything quoted back) and the doer
	what   string    // "embedding" or "judge": spec §5 "embedding provider returned HTTP 429: ..."
	path   string    // "/v1/embeddings", ...
	header http.Header
	body   []byte
	// errText extracts the provider's error message from an error body.
	errText func(body []byte) string
	// model and modelKind ("an embedding model") say what to fix after a 4xx.
	model, modelKind string
	// invalid is the detail when a 2xx reply does not decode: the endpoint it should have come from.
	invalid string
	// maxIn and maxOut bound the tokens one attempt can be billed for
	// (budget.go): under budget_usd every attempt holds their cost first.
	maxIn, maxOut int64
}

// post sends r and decodes a 2xx reply with decode. A reply that does not
// decode is an error the engine does not retry; what it quotes of the reply (a refusal)
// is key-scrubbed, as error bodies are. A reply that decodes is scrubbed of
// the endpoint's key too (scrubReply), before the caller caches or shows it.
//
// Under budget_usd the reply's usage settles what the attempt held; a
// reply that reports none (no input tokens: no real call has none) or does
// not decode was billed all the same, for all the provider said, so it
// counts at its largest cost.
func post[T any](ctx context.Context, r provRequest, decode func([]byte) (T, Usage, error)) (T, Usage, error) {
	var zero T
	body, settle, err := r.ep.http.do(ctx, r)
	if err != nil {
		return zero, Usage{}, err
	}
	v, u, err := decode(body)
	if u.In > 0 {
		settle(u)
	} else {
		settle(Usage{In: r.maxIn, Out: r.maxOut})
	}
	if err != nil {
		return zero, Usage{}, &Error{Message: scrub(fmt.Sprintf("%s provider returned an invalid response: %v", r.what, err), r.ep.key), Detail: r.invalid}
	}
	return scrubReply(v, r.ep.key), u, nil
}

// do sends r, retrying 429, 5xx and network errors, and returns the body
// of a 2xx response, with the settle of its budget hold for the caller to
// call with the reply's usage. Errors are *Error, a *BudgetError, or the
// context's error (context.DeadlineExceeded when the batch deadline
// expired: 3002 TIMEOUT).
//
// budget_usd (budget.go) holds every attempt's largest cost before it is
// sent, a retry too: a provider may bill each attempt it received. An
// attempt answered with an HTTP error status, or whose connection was never
// made, was not billed and releases its hold; one whose answer never
// arrived (a timeout, a dropped connection, the batch deadline) may have
// been billed, so it counts at its largest cost.
func (h *httpDoer) do(ctx context.Context, r provRequest) ([]byte, func(Usage), error) {
	if h.offline {
		return nil, nil, &Error{Offline: true,
			Message: fmt.Sprintf("offline: no %s result for model %q in the cache, and offline mode makes no network call", r.what, r.model),
			Detail:  "Record the result once with the same config and cache_dir without offline (or --offline), then replay offline."}
	}
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		// ATTEST_JUDGE_RPM: every request sent, a retry too, takes a token.
		if err := r.ep.limiter.wait(ctx); err != nil {
			return nil, nil, err
		}
		settle, err := r.ep.spend.reserve(r.model, r.maxIn, r.maxOut)
		if err != nil {
			return nil, nil, err
		}
		body, retryAfter, unbilled, pe := h.once(ctx, r)
		if pe == nil {
			return body, settle, nil
		}
		if unbilled {
			settle(Usage{})
		} else {
			settle(Usage{In: r.maxIn, Out: r.maxOut})
		}
		// A call cut short by the context failed because of it.
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if !pe.Transient || attempt == maxAttempts {
			return nil, nil, pe
		}
		if err := sleepCtx(ctx, h.backoff(attempt, retryAfter)); err != nil {
			return nil, nil, err
		}
	}
}

// backoff is the delay before retry number attempt (1-based): exponential
// with jitter, but never shorter than the provider's Retry-After (capped).
func (h *httpDoer) backoff(attempt int, retryAfter time.Duration) time.Duration {
	base := h.retryBase
	if base <= 0 {
		base = defaultRetryBase
	}
	d := base << (attempt - 1)
	d += time.Duration(rand.Int64N(int64(d)/2 + 1))
	if retryAfter > d {
		d = min(retryAfter, maxRetryAfter)
	}
	return d
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// once sends r one time. A failure worth another attempt has Transient set; the
// message is already the one to surface. A failure while ctx is done is
// reported by do as the context's error. An endpoint with a timeout
// (ATTEST_JUDGE_TIMEOUT_S) bounds the attempt: one that runs out is retried.
// unbilled reports a failed attempt the provider cannot have billed: it
// answered with an HTTP error status, or the request was never sent.
func (h *httpDoer) once(ctx context.Context, r provRequest) (body []byte, retryAfter time.Duration, unbilled bool, _ *Error) {
	if r.ep.timeout <= 0 {
		return h.attempt(ctx, r)
	}
	actx, cancel := context.WithTimeout(ctx, r.ep.timeout)
	defer cancel()
	body, retryAfter, unbilled, pe := h.attempt(actx, r)
	if pe != nil && actx.Err() != nil && ctx.Err() == nil {
		pe = &Error{Transient: true, Detail: retryDetail,
			Message: fmt.Sprintf("%s provider did not answer within %v (%s)", r.what, r.ep.timeout, envJudgeTimeout)}
	}
	return body, retryAfter, unbilled, pe
}

// attempt is once without the endpoint's own timeout.
func (h *httpDoer) attempt(ctx context.Context, r provRequest) (body []byte, retryAfter time.Duration, unbilled bool, _ *Error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.ep.base+r.path, bytes.NewReader(r.body))
	if err != nil {
		return nil, 0, true, &Error{Message: fmt.Sprintf("%s provider request could not be built: %s", r.what, scrub(err.Error(), r.ep.key)),
			Detail: "Check the provider base_url in the --config file or the *_BASE_URL environment variable."}
	}
	req.Header = r.header.Clone()
	resp, err := h.client().Do(req)
	if err != nil {
		// A connection that was never made sent nothing; any other
		// failure may have come after the provider had the request.
		var oe *net.OpError
		return nil, 0, errors.As(err, &oe) && oe.Op == "dial", &Error{Transient: true, Detail: retryDetail,
			Message: fmt.Sprintf("%s provider unreachable: %s", r.what, scrub(netErrText(err), r.ep.key))}
	}
	defer resp.Body.Close()
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if readErr != nil {
		return nil, 0, false, &Error{Transient: true, Detail: retryDetail,
			Message: fmt.Sprintf("%s provider response could not be read: %s", r.what, scrub(netErrText(readErr), r.ep.key))}
	}
	if len(body) > maxResponseBytes {
		return nil, 0, false, &Error{
			Message: fmt.Sprintf("%s provider response exceeds %d bytes", r.what, maxResponseBytes),
			Detail:  "The provider sent an unexpectedly large response; check that base_url points at an OpenAI- or Anthropic-compatible API."}
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return body, 0, false, nil
	}
	msg := providerMessage(r, resp.StatusCode, body)
	text := fmt.Sprintf("%s provider returned HTTP %d: %s", r.what, resp.StatusCode, msg)
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		return nil, parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()), true,
			&Error{Message: text, Detail: retryDetail, Transient: true}
	}
	return nil, 0, true, &Error{Message: text, Detail: fix4xx(r, resp.StatusCode)}
}

// fix4xx says what to change after a 4xx, which the engine does not retry.
func fix4xx(r provRequest, status int) string {
	ep, what, model := r.ep, r.what, r.model
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		if ep.key == "" {
			return fmt.Sprintf("The %s provider at %s wants an API key: set %s.", what, ep.base, ep.keyEnv)
		}
		return fmt.Sprintf("The %s provider rejected the API key from %s: set it to a valid key with access to model '%s'.", what, ep.keyEnv, model)
	case http.StatusNotFound:
		return fmt.Sprintf("The %s provider at %s does not know model '%s' (or the endpoint): fix the assertion's model or %s.model, and the base URL.", what, ep.base, model, what)
	}
	return fmt.Sprintf("The %s provider rejected the request for model '%s': check that it is %s, and the assertion spec.", what, model, r.modelKind)
}

// providerMessage is the provider's own error message, key-scrubbed and
// bounded, or a plain description of the status when the body has none.
func providerMessage(r provRequest, status int, body []byte) string {
	msg := ""
	if r.errText != nil {
		msg = r.errText(body)
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if msg == "" {
		if status == http.StatusTooManyRequests {
			return "rate limit exceeded" // spec §5's wording
		}
		msg = strings.ToLower(http.StatusText(status))
		if msg == "" {
			msg = "unexpected status"
		}
	}
	return clip.String(scrub(msg, r.ep.key), maxErrorText)
}

// netErrText drops the "Post <url>:" prefix of a transport error.
func netErrText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// parseRetryAfter reads Retry-After as delay-seconds or an HTTP date (RFC
// 9110 §10.2.3); anything else, or a time in the past, is zero.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		if secs > int64(maxRetryAfter/time.Second) {
			return maxRetryAfter
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return min(d, maxRetryAfter)
		}
	}
	return 0
}

// newHTTPClient is the engine's shared client: deadlines come from each
// request's context; the transport keeps a few idle connections per host for
// the bounded concurrency of a batch (assert runs at most 8 provider calls
// of a batch at once: twice that).
func newHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = idleConnsPerHost
	// A redirect is answered as it is, never followed: the engine connects
	// only to the endpoints the config or environment names (docs/security.md)
	// , and a 3xx fails the call like any other non-2xx answer.
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// idleConnsPerHost: idle connections kept per provider host.
const idleConnsPerHost = 16
