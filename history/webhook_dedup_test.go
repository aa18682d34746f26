// webhook_dedup_test.go: what a receiver de-duplicates by: the body's alert_id, signed and the same on every retry; the delivery header is not signed.

package history

import (
	"bytes"
	"crypto/hmac"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestWebhookSignedDedupField: the retries of one alert carry the same
// body byte for byte, so the same signed alert_id, each with its own
// timestamp and signature; a receiver that verifies the signature learns
// the alert_id from the body, and a changed body fails the check, while a
// changed X-Attest-Delivery header does not (it is not signed, which is
// why receivers must not de-duplicate by it: docs/watch.md).
func TestWebhookSignedDedupField(t *testing.T) {
	secret := []byte("s3cret")
	type got struct {
		ts     int64
		sig    string
		header string
		body   []byte
	}
	var mu sync.Mutex
	var reqs []got
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ts, _ := strconv.ParseInt(r.Header.Get(HeaderTimestamp), 10, 64)
		mu.Lock()
		reqs = append(reqs, got{ts, r.Header.Get(HeaderSignature), r.Header.Get(HeaderDelivery), body})
		n := len(reqs)
		mu.Unlock()
		if n < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	var clock sync.Mutex
	now := time.Unix(1_800_000_000, 0)
	w := startWebhook(WebhookConfig{URL: srv.URL, Secret: secret, Backoff: time.Millisecond, Now: func() time.Time {
		clock.Lock()
		defer clock.Unlock()
		now = now.Add(time.Second) // each attempt a second later
		return now
	}}, slog.New(slog.DiscardHandler))
	w.enqueue(Alert{ID: "00112233deadbeef", Assertion: "refund-policy", Kind: KindPassRate, Explanation: "x"})
	w.close()

	mu.Lock()
	defer mu.Unlock()
	if len(reqs) != 3 {
		t.Fatalf("%d attempts, want 3 (two 503s, then delivered)", len(reqs))
	}
	for i, r := range reqs {
		if !bytes.Equal(r.body, reqs[0].body) {
			t.Errorf("attempt %d: body %s differs from the first attempt's %s", i+1, r.body, reqs[0].body)
		}
		if i > 0 && (r.ts == reqs[i-1].ts || r.sig == reqs[i-1].sig) {
			t.Errorf("attempt %d: timestamp %d and signature %s repeat the previous attempt's", i+1, r.ts, r.sig)
		}
		if !hmac.Equal([]byte(Sign(secret, r.ts, r.body)), []byte(r.sig)) {
			t.Errorf("attempt %d: signature does not verify", i+1)
		}
		var a struct {
			ID string `json:"alert_id"`
		}
		if json.Unmarshal(r.body, &a) != nil || a.ID != "00112233deadbeef" || r.header != a.ID {
			t.Errorf("attempt %d: body alert_id %q, header %q; want both 00112233deadbeef", i+1, a.ID, r.header)
		}
		forged := bytes.Replace(r.body, []byte("00112233deadbeef"), []byte("ffffffffffffffff"), 1)
		if hmac.Equal([]byte(Sign(secret, r.ts, forged)), []byte(r.sig)) {
			t.Errorf("attempt %d: a body with another alert_id still verifies", i+1)
		}
	}
}
