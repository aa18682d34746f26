package otlpexport

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestRetries: 408, 429 and 5xx are retried up to MaxAttempts; other
// answers, a redirect among them (never followed), fail at once; a
// success is one call.
func TestRetries(t *testing.T) {
	for _, c := range []struct {
		status     int
		calls      int32
		sent, fail uint64
	}{
		{200, 1, 1, 0},
		{503, 3, 0, 1},
		{429, 3, 0, 1},
		{408, 3, 0, 1},
		{400, 1, 0, 1},
		{302, 1, 0, 1},
	} {
		var calls atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			if c.status == 302 {
				w.Header().Set("Location", "/elsewhere")
			}
			w.WriteHeader(c.status)
		}))
		e, err := Start(Config{URL: srv.URL + "/v1/logs", MaxAttempts: 3, Backoff: time.Millisecond}, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		e.Export([]Result{{TraceID: "5b8efff798038103d269b633813fc60c", SpanID: "eee19b7ec3c1b174", Name: "a", Status: "pass", Score: 1, ResultID: "r"}})
		e.Close()
		srv.Close()
		sent, failed, _ := e.Stats()
		if calls.Load() != c.calls || sent != c.sent || failed != c.fail {
			t.Errorf("HTTP %d: %d calls, %d sent, %d failed; want %d, %d, %d", c.status, calls.Load(), sent, failed, c.calls, c.sent, c.fail)
		}
	}
}

// TestCheckURL: http or https with a host only.
func TestCheckURL(t *testing.T) {
	for url, ok := range map[string]bool{"http://127.0.0.1:4318/v1/logs": true, "https://otel.example/v1/logs": true,
		"127.0.0.1:4318": false, "ftp://x/y": false, "http:///v1/logs": false} {
		if (CheckURL(url) == "") != ok {
			t.Errorf("CheckURL(%q) = %q", url, CheckURL(url))
		}
	}
}
