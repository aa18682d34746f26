// httpcall_test.go: retries, backoff, Retry-After, deadlines, size limits and key-safe errors of provider calls.

package provider

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"attest-engine/providertest"

	"github.com/google/go-cmp/cmp"
)

func TestProviderCallErrors(t *testing.T) {
	openAIErr := func(msg, code string) string {
		return `{"error":{"message":"` + msg + `","type":"invalid_request_error","param":null,"code":"` + code + `"}}`
	}
	tests := []struct {
		name     string
		reason   string
		judge    bool // a judge call, else an embedding call
		script   []providertest.Canned
		want     *Error // nil: success
		attempts int
	}{
		{"429 then ok", "a rate limit is retried, honouring Retry-After", false,
			[]providertest.Canned{{Status: 429, Header: map[string]string{"Retry-After": "0"}, Body: openAIErr("Rate limit reached", "rate_limit_exceeded")}}, nil, 2},
		{"500 twice then ok", "server errors are retried up to 3 attempts", true,
			[]providertest.Canned{{Status: 500, Body: openAIErr("boom", "")}, {Status: 502, Body: "bad gateway"}}, nil, 3},
		{"429 three times", "spec §5's message and detail, to the letter", false,
			[]providertest.Canned{{Status: 429}, {Status: 429}, {Status: 429, Body: openAIErr("rate limit exceeded", "rate_limit_exceeded")}},
			&Error{Message: "embedding provider returned HTTP 429: rate limit exceeded", Detail: retryDetail, Transient: true}, 3},
		{"500 three times", "the judge's message quotes the provider's error message", true,
			[]providertest.Canned{{Status: 500}, {Status: 500}, {Status: 500, Body: openAIErr("The server had an error while processing your request.", "")}},
			&Error{Message: "judge provider returned HTTP 500: The server had an error while processing your request.", Detail: retryDetail, Transient: true}, 3},
		{"429 without body", "no message from the provider: spec §5's wording", false,
			[]providertest.Canned{{Status: 429}, {Status: 429}, {Status: 429, Body: "<html>busy</html>"}},
			&Error{Message: "embedding provider returned HTTP 429: rate limit exceeded", Detail: retryDetail, Transient: true}, 3},
		{"401 bad key", "a rejected key fails at once, names the env var, never shows the key", true,
			[]providertest.Canned{{Status: 401, Body: openAIErr("Incorrect API key provided: "+testKey+". You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_api_key")}},
			&Error{Message: "judge provider returned HTTP 401: Incorrect API key provided: [redacted]. You can find your API key at https://platform.openai.com/account/api-keys.",
				Detail: "The judge provider rejected the API key from OPENAI_API_KEY: set it to a valid key with access to model 'gpt-4.1-mini'."}, 1},
		{"401 partial key echo", "a provider's masked echo of the key is scrubbed too", false,
			[]providertest.Canned{{Status: 401, Body: openAIErr("Incorrect API key provided: sk-test-S***cdef.", "invalid_api_key")}},
			&Error{Message: "embedding provider returned HTTP 401: Incorrect API key provided: sk-[redacted].",
				Detail: "The embedding provider rejected the API key from OPENAI_API_KEY: set it to a valid key with access to model 'text-embedding-3-small'."}, 1},
		{"404 model", "an unknown model fails at once and says what to fix", false,
			[]providertest.Canned{{Status: 404, Body: openAIErr("The model `nope` does not exist or you do not have access to it.", "model_not_found")}},
			&Error{Message: "embedding provider returned HTTP 404: The model `nope` does not exist or you do not have access to it.",
				Detail: "The embedding provider at BASE does not know model 'text-embedding-3-small' (or the endpoint): fix the assertion's model or embedding.model, and the base URL."}, 1},
		{"400", "a rejected request is not retried", true,
			[]providertest.Canned{{Status: 400, Body: `{"error":"json: cannot unmarshal"}`}},
			&Error{Message: "judge provider returned HTTP 400: json: cannot unmarshal",
				Detail: "The judge provider rejected the request for model 'gpt-4.1-mini': check that it is a chat model that accepts temperature 0 and JSON mode, and the assertion spec."}, 1},
		{"huge body", "bodies are read through a size limit", false,
			[]providertest.Canned{{Status: 200, Body: strings.Repeat(" ", maxResponseBytes+10)}},
			&Error{Message: "embedding provider response exceeds 4194304 bytes",
				Detail: "The provider sent an unexpectedly large response; check that base_url points at an OpenAI- or Anthropic-compatible API."}, 1},
		{"malformed json", "an unreadable 200 is an error, not a pass", false,
			[]providertest.Canned{{Status: 200, Body: `{"data": [`}},
			&Error{Message: "embedding provider returned an invalid response: not an embeddings response: unexpected end of JSON input",
				Detail: "Check that the base URL points at an OpenAI-compatible /v1/embeddings endpoint and that 'text-embedding-3-small' is an embedding model."}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.Push(tc.script...)
			p := fakeClient(t, f)
			ep := p.embedder
			var err error
			if tc.judge {
				_, _, err = (&openAIClient{ep: p.judge, what: "judge"}).complete(context.Background(), "gpt-4.1-mini", "s", "u", true)
			} else {
				_, _, err = (&openAIClient{ep: ep, what: "embedding"}).embed(context.Background(), "text-embedding-3-small", []string{"a"})
			}
			if n := len(f.Requests()); n != tc.attempts {
				t.Errorf("%s: %d attempts, want %d", tc.reason, n, tc.attempts)
			}
			if tc.want == nil {
				if err != nil {
					t.Fatalf("%s: %v", tc.reason, err)
				}
				return
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("%s: error %T %v, want *Error", tc.reason, err, err)
			}
			tc.want.Detail = strings.ReplaceAll(tc.want.Detail, "BASE", f.URL)
			if diff := cmp.Diff(tc.want, pe); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.reason, diff)
			}
			if strings.Contains(pe.Message+pe.Detail, testKey) {
				t.Errorf("the API key leaked: %+v", pe)
			}
		})
	}
}

// TestProviderNoRedirect: a provider that redirects is not followed to the
// other address, and the call fails saying what came back.
func TestProviderNoRedirect(t *testing.T) {
	elsewhere := newFake(t)
	f := newFake(t)
	f.Push(providertest.Canned{Status: 307, Header: map[string]string{"Location": elsewhere.URL + "/v1/embeddings"}})
	p := fakeClient(t, f)
	_, _, err := (&openAIClient{ep: p.embedder, what: "embedding"}).embed(context.Background(), "text-embedding-3-small", []string{"a"})
	var pe *Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "HTTP 307") {
		t.Errorf("error %v, want the 307 answered as a failure", err)
	}
	if n := len(elsewhere.Requests()); n != 0 {
		t.Errorf("the redirect was followed: %d requests elsewhere", n)
	}
}

func TestProviderNetworkErrorRetried(t *testing.T) {
	f := newFake(t)
	p := fakeClient(t, f)
	f.Close() // nothing listens any more
	_, _, err := (&openAIClient{ep: p.embedder, what: "embedding"}).embed(context.Background(), "m", []string{"a"})
	var pe *Error
	if !errors.As(err, &pe) || !pe.Transient || !strings.HasPrefix(pe.Message, "embedding provider unreachable: ") || pe.Detail != retryDetail {
		t.Fatalf("a refused connection is a retryable provider error after 3 attempts, got %#v", err)
	}
	if strings.Contains(pe.Message, testKey) {
		t.Error("key leaked")
	}
}

func TestProviderDeadline(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		script []providertest.Canned
	}{
		{"slow response", "a provider slower than the batch deadline: 3002 TIMEOUT, not a provider error",
			[]providertest.Canned{{Status: 200, Delay: 10 * time.Second}}},
		{"long Retry-After", "backoff sleeps end when the deadline does",
			[]providertest.Canned{{Status: 429, Header: map[string]string{"Retry-After": "15"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.Push(tc.script...)
			p := fakeClient(t, f)
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, _, err := (&openAIClient{ep: p.judge, what: "judge"}).complete(ctx, "m", "s", "u", true)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s: error %v, want context.DeadlineExceeded", tc.reason, err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("%s: returned after %v", tc.reason, d)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 2, 18, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		reason string
	}{
		{"", 0, "absent"},
		{"3", 3 * time.Second, "delay-seconds"},
		{"0", 0, "zero"},
		{"-5", 0, "negative is ignored"},
		{"3600", maxRetryAfter, "capped"},
		{now.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second, "HTTP date"},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, "a date in the past"},
		{"soon", 0, "garbage"},
	}
	for _, tc := range tests {
		if got := parseRetryAfter(tc.in, now); got != tc.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v (%s)", tc.in, got, tc.want, tc.reason)
		}
	}
}

func TestBackoffGrowsWithJitter(t *testing.T) {
	h := &httpDoer{retryBase: 100 * time.Millisecond}
	for attempt, lo := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond} {
		d := h.backoff(attempt+1, 0)
		if d < lo || d > lo*3/2 {
			t.Errorf("backoff(%d) = %v, want in [%v, %v]: exponential with up to 50%% jitter", attempt+1, d, lo, lo*3/2)
		}
	}
	if d := h.backoff(1, 2*time.Second); d != 2*time.Second {
		t.Errorf("backoff with Retry-After 2s = %v: Retry-After wins when longer", d)
	}
}

// FuzzProviderErrorReply: whatever error body and Retry-After a provider
// sends, the quoted message is bounded and never holds the API key, and the
// wait it asks for stays within maxRetryAfter.
func FuzzProviderErrorReply(f *testing.F) {
	const secret = "sk-fuzz-0123456789abcdef"
	for _, s := range []struct{ body, retryAfter string }{
		{`{"error":{"message":"Incorrect API key provided: sk-fuzz-0123456789abcdef","type":"invalid_request_error","code":"invalid_api_key"}}`, "3"},
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Wed, 18 Feb 2026 10:00:07 GMT"},
		{`{"error":"model not found"}`, "-1"},
		{"key sk-fuzz-0123456789abcdef\tleaked", "99999999999999999999"},
		{"<html>502</html>", ""},
	} {
		f.Add([]byte(s.body), s.retryAfter, 429)
	}
	now := time.Date(2026, 2, 18, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte, retryAfter string, status int) {
		if d := parseRetryAfter(retryAfter, now); d < 0 || d > maxRetryAfter {
			t.Fatalf("Retry-After %q: wait %v outside 0..%v", retryAfter, d, maxRetryAfter)
		}
		for _, errText := range []func([]byte) string{openAIErrText, anthropicErrText} {
			msg := providerMessage(provRequest{ep: &Endpoint{key: secret}, errText: errText}, status, body)
			if msg == "" || len(msg) > maxErrorText+len("…") || strings.Contains(msg, secret) {
				t.Fatalf("body %q: message %q is empty, too long or holds the key", body, msg)
			}
		}
	})
}
