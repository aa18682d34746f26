package retry

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

var policy = Policy{MaxAttempts: 5, Backoff: 500 * time.Millisecond, MaxBackoff: 30 * time.Second, MaxRetryAfter: time.Minute}

// TestDelay: Backoff·2^attempt capped at MaxBackoff, times a factor in
// [0.5, 1) that is a pure function of (key, attempt): pinned for one key,
// so that a change of the rule shows.
func TestDelay(t *testing.T) {
	want := []time.Duration{}
	for a := range 8 {
		d := policy.Delay("alert-1", a)
		base := min(policy.Backoff<<a, policy.MaxBackoff)
		if d < base/2 || d >= base {
			t.Errorf("attempt %d: delay %v, want in [%v, %v)", a, d, base/2, base)
		}
		if again := policy.Delay("alert-1", a); again != d {
			t.Errorf("attempt %d: %v then %v: not a function of its inputs", a, d, again)
		}
		want = append(want, d)
	}
	if policy.Delay("alert-2", 0) == want[0] && policy.Delay("alert-2", 1) == want[1] {
		t.Errorf("two keys drew the same delays: not spread")
	}
}

func TestDo(t *testing.T) {
	p := policy
	p.Backoff, p.MaxBackoff = time.Millisecond, 2*time.Millisecond
	for _, tc := range []struct {
		name     string
		answers  []Outcome // the attempts' outcomes, each with an error but the last when ok
		ok       bool
		attempts int
	}{
		{"delivered at once", nil, true, 1},
		{"retried then delivered", []Outcome{{Retry: true}, {Retry: true}}, true, 3},
		{"failed for good", []Outcome{{}}, false, 1},
		{"attempts spent", []Outcome{{Retry: true}, {Retry: true}, {Retry: true}, {Retry: true}, {Retry: true}}, false, 5},
	} {
		n := 0
		err := p.Do(context.Background(), "k", func() (Outcome, error) {
			n++
			if n <= len(tc.answers) {
				return tc.answers[n-1], errors.New("HTTP 503")
			}
			return Outcome{}, nil
		})
		if (err == nil) != tc.ok || n != tc.attempts {
			t.Errorf("%s: err %v after %d attempts; want ok %v after %d", tc.name, err, n, tc.ok, tc.attempts)
		}
	}
}

// TestDoZeroPolicy: a Policy left zero tries once and reports the failure,
// never a delivery it did not attempt.
func TestDoZeroPolicy(t *testing.T) {
	n := 0
	err := Policy{}.Do(context.Background(), "k", func() (Outcome, error) { n++; return Outcome{Retry: true}, errors.New("HTTP 503") })
	if err == nil || n != 1 {
		t.Errorf("zero Policy: %d attempts, err %v; want 1 attempt and its error", n, err)
	}
}

// TestDoGivesUpAtClose: a wait for a retry ends when the context does.
func TestDoGivesUpAtClose(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- policy.Do(ctx, "k", func() (Outcome, error) {
			return Outcome{Retry: true, After: time.Hour}, errors.New("HTTP 429")
		})
	}()
	cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "gave up at close") {
			t.Errorf("err %v, want the last error, given up at close", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Do still waiting 10 s after its context ended")
	}
}

func TestJudge(t *testing.T) {
	now := time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		raw   string
		err   bool
		retry bool
		after time.Duration
	}{
		{"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false, false, 0},
		{"HTTP/1.1 204 No Content\r\n\r\n", false, false, 0},
		{"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 120\r\n\r\n", true, true, 2 * time.Minute},
		{"HTTP/1.1 503 Service Unavailable\r\nRetry-After: Tue, 24 Nov 2026 03:00:30 GMT\r\n\r\n", true, true, 30 * time.Second},
		{"HTTP/1.1 503 Service Unavailable\r\nRetry-After: Tue, 24 Nov 2026 02:00:00 GMT\r\n\r\n", true, true, 0},
		{"HTTP/1.1 408 Request Timeout\r\nRetry-After: -5\r\n\r\n", true, true, 0},
		{"HTTP/1.1 500 Internal Server Error\r\n\r\n", true, true, 0},
		{"HTTP/1.1 404 Not Found\r\nRetry-After: 5\r\n\r\n", true, false, 0},
		{"HTTP/1.1 301 Moved Permanently\r\nLocation: http://x/\r\n\r\n", true, false, 0},
	} {
		resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(tc.raw)), nil)
		if err != nil {
			t.Fatal(err)
		}
		o, err := Judge(resp, now)
		if (err != nil) != tc.err || o.Retry != tc.retry || o.After != tc.after {
			t.Errorf("%q: %+v, %v; want error %v, retry %v after %v", strings.SplitN(tc.raw, "\r\n", 2)[0], o, err, tc.err, tc.retry, tc.after)
		}
	}
}

// FuzzJudge: any bytes a receiver answers with are judged without a
// crash: retried only for 408, 429 and 5xx, never after a negative delay.
func FuzzJudge(f *testing.F) {
	now := time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC)
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
	f.Add([]byte("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 120\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 503 Service Unavailable\r\nRetry-After: Tue, 24 Nov 2026 03:00:30 GMT\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 500 Internal Server Error\r\nRetry-After: -5\r\nTransfer-Encoding: chunked\r\n\r\nffffffff\r\n"))
	f.Add([]byte("HTTP/1.0 404 Not Found\r\n\r\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), nil)
		if err != nil {
			return // the client would report a transport error: retried
		}
		o, err := Judge(resp, now)
		code := resp.StatusCode
		if ok := code >= 200 && code < 300; ok != (err == nil) {
			t.Fatalf("HTTP %d: err = %v", code, err)
		}
		if want := code == 408 || code == 429 || code >= 500 && code < 600; o.Retry != want {
			t.Fatalf("HTTP %d: retry = %v", code, o.Retry)
		}
		if o.After < 0 {
			t.Fatalf("negative Retry-After %v", o.After)
		}
	})
}
