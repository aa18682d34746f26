// main_proxy_test.go: HTTP_PROXY and NO_PROXY reroute the provider's and the webhook's calls, as docs/security.md says.

package main

import (
	"crypto/hmac"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"attest-engine/history"
)

// proxied is one request a forward proxy received: the absolute URL the
// client asked it for, its headers and body.
type proxied struct {
	URL    string
	Header http.Header
	Body   []byte
}

// fakeProxy is an HTTP forward proxy that answers every request itself:
// an OpenAI-compatible chat reply, or 200 for anything else.
func fakeProxy(t *testing.T) (*httptest.Server, func() []proxied) {
	var mu sync.Mutex
	var got []proxied
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, proxied{r.URL.String(), r.Header.Clone(), body})
		mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{
				"content": `{"score": 0.9, "reason": "Through the proxy."}`}}}})
		}
	}))
	t.Cleanup(srv.Close)
	return srv, func() []proxied { mu.Lock(); defer mu.Unlock(); return append([]proxied(nil), got...) }
}

// TestBinaryProxyEnvironment: the engine's HTTP clients honour the proxy
// variables (Go's http.ProxyFromEnvironment): with HTTP_PROXY set, a judge
// call to a non-loopback provider and a drift alert to the webhook both go
// to the proxy, which sees the whole request (the key included, over
// http://); NO_PROXY naming the host sends the call direct instead.
// (Loopback addresses are never proxied.)
func TestBinaryProxyEnvironment(t *testing.T) {
	bin := buildEngine(t)
	proxy, requests := fakeProxy(t)
	for _, k := range []string{"HTTPS_PROXY", "https_proxy", "http_proxy", "no_proxy", "ATTEST_OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ATTEST_CACHE_DIR"} {
		t.Setenv(k, "")
	}
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("OPENAI_BASE_URL", "http://provider.invalid/v1")
	t.Setenv("OPENAI_API_KEY", providerTestKey)
	judge := `{"assertion_id":"j","type":"llm_judge","spec":{"rubric":"helpfulness"}}`

	for _, noProxy := range []string{"", "provider.invalid"} {
		t.Setenv("NO_PROXY", noProxy)
		before := len(requests())
		e := start(t, bin, "--log-level=error")
		e.send(t, init56, batch56("p", refundMsg, judge), `{"jsonrpc":"2.0","id":"bye","method":"shutdown","params":{}}`)
		e.stdin.Close()
		_, byID := readAll(t, e)
		e.wait(t)
		calls := requests()[before:]
		if noProxy == "" {
			if len(calls) != 1 || calls[0].URL != "http://provider.invalid/v1/chat/completions" ||
				calls[0].Header.Get("Authorization") != "Bearer "+providerTestKey || byID["p"]["result"] == nil {
				t.Errorf("HTTP_PROXY set: the judge call did not go through the proxy: %d calls %+v, answer %v", len(calls), calls, byID["p"])
			}
		} else if len(calls) != 0 || byID["p"]["error"] == nil {
			t.Errorf("NO_PROXY=%s: %d calls reached the proxy (answer %v), want the call sent direct (and failing: .invalid does not resolve)", noProxy, len(calls), byID["p"])
		}
	}

	t.Setenv("NO_PROXY", "")
	before := len(requests())
	secret := "webhook-s3cret"
	if _, code := runWatch(t, bin, nil, []string{"ATTEST_WEBHOOK_SECRET=" + secret}, "--suite", driftSuite, "--in", driftTraces,
		"--deterministic", "--state-dir", t.TempDir(), "--alert-webhook", "http://hooks.invalid/attest"); code != 0 {
		t.Fatalf("watch: exit %d", code)
	}
	calls := requests()[before:]
	if len(calls) == 0 {
		t.Fatal("HTTP_PROXY set: no drift alert reached the proxy")
	}
	for _, c := range calls {
		// What a receiver must check (docs/watch.md, "Receiving alerts"):
		// the signature over the timestamp and the body, then the body's
		// alert_id, signed, to de-duplicate; the delivery header is a copy.
		ts, _ := strconv.ParseInt(c.Header.Get(history.HeaderTimestamp), 10, 64)
		var a struct {
			ID string `json:"alert_id"`
		}
		if c.URL != "http://hooks.invalid/attest" || !hmac.Equal([]byte(history.Sign([]byte(secret), ts, c.Body)), []byte(c.Header.Get(history.HeaderSignature))) ||
			json.Unmarshal(c.Body, &a) != nil || a.ID == "" || a.ID != c.Header.Get(history.HeaderDelivery) {
			t.Errorf("alert through the proxy: %s, headers %v, body %s: want the webhook URL, a valid signature and the alert_id in the body", c.URL, c.Header, c.Body)
		}
	}
}
