// bounds_test.go: docs/security.md's bounds on a state dir's summaries and on the alert webhook's defaults.

package history

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestStoreBounds: docs/security.md "≤ 1,024 assertions and ≤ 8,192 windows per
// assertion summarized" (MaxKeys, MaxWindows; small here): results of keys
// past MaxKeys are logged but not summarized, and a key's windows stay at
// MaxWindows however many the input opens.
func TestStoreBounds(t *testing.T) {
	if o := (Options{}).withDefaults(); o.MaxKeys != 1024 || o.MaxWindows != 8192 {
		t.Errorf("defaults: MaxKeys %d, MaxWindows %d; docs/security.md says 1,024 and 8,192", o.MaxKeys, o.MaxWindows)
	}
	const keys, windows = 3, 4
	s, err := Open(t.TempDir(), Options{Sync: SyncNever, NoAlertFile: true, MaxKeys: keys, MaxWindows: windows, WindowTraces: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 200 { // 40 windows of 5 traces
		for k := range keys + 2 {
			id := fmt.Sprintf("t%03d", i)
			r := Result{TraceID: id, Assertion: fmt.Sprint("a", k), Type: "constraint", Status: Pass, Score: 1, Seq: uint64(i + 1), ResultID: fmt.Sprint(id, k)}
			if _, err := s.Add(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.keys) != keys {
		t.Errorf("%d assertions summarized, want MaxKeys %d", len(s.keys), keys)
	}
	for name, sr := range s.keys {
		if len(sr.Windows) > windows || len(sr.Windows) == 0 {
			t.Errorf("%s: %d windows, want 1 to MaxWindows %d", name, len(sr.Windows), windows)
		}
	}
}

// TestWebhookDefaults: docs/security.md "≤ 5 attempts, Retry-After capped at 60 s,
// 10 s per attempt; a bounded queue of 256 alerts" are the defaults of an
// empty WebhookConfig (the other tests set their own).
func TestWebhookDefaults(t *testing.T) {
	c := (WebhookConfig{URL: "http://127.0.0.1:1"}).withDefaults()
	if c.MaxAttempts != 5 || c.MaxRetryAfter != 60*time.Second || c.Timeout != 10*time.Second || c.QueueSize != 256 {
		t.Errorf("defaults: %d attempts, Retry-After cap %v, %v per attempt, queue %d; docs/security.md says 5, 60s, 10s, 256",
			c.MaxAttempts, c.MaxRetryAfter, c.Timeout, c.QueueSize)
	}
}

// TestWebhookAnswerBounded: docs/security.md "webhook answers read to 64 KiB and
// discarded": a receiver answering 32 MiB cannot make the sender read it
// all; the sender closes the connection, so the receiver's writes fail
// long before the end.
func TestWebhookAnswerBounded(t *testing.T) {
	const answer = 32 << 20
	written := make(chan int, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
		chunk := make([]byte, 64<<10)
		n := 0
		for n < answer {
			k, err := w.Write(chunk)
			n += k
			if err != nil {
				break
			}
		}
		written <- n
	}))
	defer srv.Close()
	wh := startWebhook(WebhookConfig{URL: srv.URL, MaxAttempts: 1}, slog.New(slog.DiscardHandler))
	wh.enqueue(Alert{ID: "00112233deadbeef", Assertion: "a", Kind: KindPassRate, Explanation: "x"})
	wh.close()
	select {
	case n := <-written:
		if n >= answer {
			t.Errorf("the sender read the receiver's whole %d-byte answer", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the receiver's answer was neither read nor refused within 10s")
	}
}
