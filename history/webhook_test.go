package history

import (
	"bytes"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// scripted is a loopback webhook receiver answering from a script and
// checking every request's signature.
type scripted struct {
	t      *testing.T
	secret []byte
	mu     sync.Mutex
	script []func(w http.ResponseWriter)
	times  []time.Time
	alerts []Alert
	bad    []string
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	ts, err := strconv.ParseInt(r.Header.Get(HeaderTimestamp), 10, 64)
	if err != nil {
		s.bad = append(s.bad, "timestamp header: "+err.Error())
	}
	if want := Sign(s.secret, ts, body); !hmac.Equal([]byte(want), []byte(r.Header.Get(HeaderSignature))) {
		s.bad = append(s.bad, "signature mismatch")
	}
	var a Alert
	if err := json.Unmarshal(body, &a); err != nil || a.ID != r.Header.Get(HeaderDelivery) || r.Header.Get("Content-Type") != "application/json" {
		s.bad = append(s.bad, "body or delivery header")
	}
	s.times = append(s.times, time.Now())
	s.alerts = append(s.alerts, a)
	step := len(s.times) - 1
	if step < len(s.script) {
		s.script[step](w)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func status(code int, retryAfter string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.WriteHeader(code)
		w.Write([]byte("answer body"))
	}
}

func TestWebhook(t *testing.T) {
	tests := []struct {
		name      string
		script    []func(w http.ResponseWriter)
		attempts  int
		delivered bool
		minGap    time.Duration // between the last two attempts
	}{
		{"ok at once", nil, 1, true, 0},
		{"500 twice then ok", []func(http.ResponseWriter){status(500, ""), status(502, "")}, 3, true, 0},
		{"429 with Retry-After seconds", []func(http.ResponseWriter){status(429, "1")}, 2, true, 900 * time.Millisecond},
		{"503 with Retry-After date", []func(http.ResponseWriter){status(503, time.Now().Add(3*time.Second).UTC().Format(http.TimeFormat))}, 2, true, 900 * time.Millisecond},
		{"Retry-After capped", []func(http.ResponseWriter){status(429, "86400")}, 2, true, 0},
		{"400 is not retried", []func(http.ResponseWriter){status(400, "")}, 1, false, 0},
		{"500 until the attempts run out", []func(http.ResponseWriter){status(500, ""), status(500, ""), status(500, ""), status(500, ""), status(500, "")}, 4, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rx := &scripted{t: t, secret: []byte("s3cret"), script: tc.script}
			srv := httptest.NewServer(rx)
			defer srv.Close()
			w := startWebhook(WebhookConfig{URL: srv.URL, Secret: rx.secret, MaxAttempts: 4, Backoff: time.Millisecond, MaxRetryAfter: 2 * time.Second}, slog.New(slog.DiscardHandler))
			a := Alert{ID: "00112233deadbeef", Assertion: "refund-policy", Kind: KindPassRate, Explanation: "x"}
			w.enqueue(a)
			w.close()
			rx.mu.Lock()
			defer rx.mu.Unlock()
			if len(rx.bad) > 0 {
				t.Errorf("receiver complaints: %q", rx.bad)
			}
			if len(rx.times) != tc.attempts {
				t.Errorf("%d attempts, want %d", len(rx.times), tc.attempts)
			}
			if got := w.delivered == 1; got != tc.delivered {
				t.Errorf("delivered = %v (failed %d), want %v", got, w.failed, tc.delivered)
			}
			if n := len(rx.times); n >= 2 {
				gap := rx.times[n-1].Sub(rx.times[n-2])
				if gap < tc.minGap {
					t.Errorf("last retry after %v, want at least %v (Retry-After)", gap, tc.minGap)
				}
				if gap > 2500*time.Millisecond {
					t.Errorf("last retry after %v: Retry-After not capped at 2s", gap)
				}
			}
			for _, got := range rx.alerts {
				if d := cmp.Diff(a, got); d != "" {
					t.Errorf("alert received (-sent +got):\n%s", d)
				}
			}
		})
	}
}

// hangingReceiver is a webhook receiver that answers a request only once
// release is sent a value, or at the test's end.
func hangingReceiver(t *testing.T) (srv *httptest.Server, release chan struct{}) {
	release = make(chan struct{})
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // first: srv.Close waits for the requests
	return srv, release
}

// TestWebhookNeverBlocks: a receiver that hangs fills the bounded queue;
// further alerts are dropped at once, and Close gives up after CloseWait.
func TestWebhookNeverBlocks(t *testing.T) {
	srv, _ := hangingReceiver(t)
	w := startWebhook(WebhookConfig{URL: srv.URL, QueueSize: 4, CloseWait: 200 * time.Millisecond}, slog.New(slog.DiscardHandler))
	start := time.Now()
	for i := range 100 {
		w.enqueue(Alert{ID: strconv.Itoa(i)})
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("enqueueing 100 alerts took %v", d)
	}
	w.close()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("close took %v, want about CloseWait", d)
	}
	if w.dropped < 90 {
		t.Errorf("%d dropped, want at least 90 (queue of 4, one in flight)", w.dropped)
	}
}

// TestStoreWebhook: alerts raised by Add reach the webhook.
func TestStoreWebhook(t *testing.T) {
	rx := &scripted{t: t, secret: []byte("k"), script: []func(http.ResponseWriter){status(500, "")}}
	srv := httptest.NewServer(rx)
	defer srv.Close()
	s, err := Open(t.TempDir(), Options{Sync: SyncNever, Webhook: &WebhookConfig{URL: srv.URL, Secret: rx.secret, Backoff: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	var raised []Alert
	for _, r := range driftStream(newPRNG("history/merge-drift/v1"), 3000, 1800) {
		a, err := s.Add(r)
		if err != nil {
			t.Fatal(err)
		}
		raised = append(raised, a...)
	}
	s.Close()
	rx.mu.Lock()
	defer rx.mu.Unlock()
	if len(raised) == 0 || len(rx.alerts) != len(raised)+1 || len(rx.bad) > 0 {
		t.Fatalf("%d alerts raised, %d requests received (one 500), complaints %q", len(raised), len(rx.alerts), rx.bad)
	}
	if d := cmp.Diff(raised, rx.alerts[1:]); d != "" {
		t.Errorf("alerts (-raised +received):\n%s", d)
	}
}

// TestWebhookLogsNoToken: a failing delivery is logged with the webhook's
// host only: hooks carry their token in the path or query.
func TestWebhookLogsNoToken(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	addr := srv.Listener.Addr().String()
	srv.Close() // nothing listens there now: every attempt is a transport error
	var logs syncBuffer
	for _, u := range []string{"http://" + addr + "/services/T0/B0/TOKEN-IN-PATH?token=TOKEN-IN-QUERY", "http://user:TOKEN-PW@" + addr + "/x", "http://[::1/TOKEN-BAD"} {
		w := startWebhook(WebhookConfig{URL: u, MaxAttempts: 2, Backoff: time.Millisecond}, slog.New(slog.NewJSONHandler(&logs, nil)))
		w.enqueue(Alert{ID: "a1"})
		w.close()
	}
	got := logs.String()
	if !strings.Contains(got, "webhook delivery failed") {
		t.Fatalf("no failure logged: %s", got)
	}
	if strings.Contains(got, "TOKEN") {
		t.Errorf("a URL token reached the log: %s", got)
	}
}

// TestWebhookNoRedirect: a receiver that redirects is not followed to the
// other address; the alert is not delivered.
func TestWebhookNoRedirect(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/x", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	w := startWebhook(WebhookConfig{URL: srv.URL, MaxAttempts: 2, Backoff: time.Millisecond}, slog.New(slog.DiscardHandler))
	w.enqueue(Alert{ID: "a1"})
	w.close()
	if n := elsewhere.Load(); n != 0 || w.delivered != 0 {
		t.Errorf("redirect followed: %d requests elsewhere, %d delivered", n, w.delivered)
	}
}

// syncBuffer is a bytes.Buffer safe for the webhook's goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestCloseWaitsOutsideLock: while Close waits for a hanging webhook, the
// store answers at once: Add with ErrClosed, Keys with its keys. (Close
// used to wait up to CloseWait holding the store's lock.)
func TestCloseWaitsOutsideLock(t *testing.T) {
	srv, release := hangingReceiver(t)
	s, err := Open(t.TempDir(), Options{Webhook: &WebhookConfig{URL: srv.URL, CloseWait: time.Hour, Timeout: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	s.hook.enqueue(Alert{ID: "in-flight"})
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	answered := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			if _, err := s.Add(crashResult(i)); err != nil {
				s.Keys()
				answered <- err
				return
			}
		}
	}()
	select {
	case err := <-answered:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("Add during Close: %v, want ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Add and Keys blocked while Close waited for the webhook")
	}
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while the webhook still hung", err)
	default:
	}
	release <- struct{}{}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
}
