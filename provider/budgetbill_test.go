// budgetbill_test.go: budget_usd and ATTEST_JUDGE_RPM in the path of every request sent, against a provider that bills each one it receives.

package provider

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// biller is an OpenAI-compatible chat server that bills as a provider
// does: every request it receives costs its texts' tokens (one a byte)
// and the whole reply bound, whether its answer reaches the engine or not.
// answer decides what request n (from 1) is answered with.
type biller struct {
	*httptest.Server
	requests atomic.Int64
	mu       sync.Mutex
	billed   float64 // USD, at gpt-4.1-mini's prices
	answer   func(n int64, w http.ResponseWriter, r *http.Request)
}

func newBiller(t *testing.T, answer func(n int64, w http.ResponseWriter, r *http.Request)) *biller {
	b := &biller{answer: answer}
	b.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req openAIChatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		in := 0
		for _, m := range req.Messages {
			in += len(m.Content)
		}
		b.mu.Lock()
		b.billed += (float64(in)*0.4 + float64(judgeMaxTokens)*1.6) / 1e6
		b.mu.Unlock()
		b.answer(b.requests.Add(1), w, r)
	}))
	t.Cleanup(b.Close)
	return b
}

func (b *biller) bill() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.billed
}

// billHead is a chat completion without its closing brace: usage may follow.
const billHead = `{"choices":[{"message":{"content":"{\"score\":1,\"reason\":\"ok\"}"}}]`

// TestBudgetCountsWhatMayBeBilled: budget_usd holds against the bill,
// not only against the usage the engine was told of. A request whose
// answer never arrived (an attempt cut by ATTEST_JUDGE_TIMEOUT_S and
// retried), a 2xx reply that reports no usage, and one that does not
// decode may all have been billed, so each counts at its largest cost;
// an HTTP error answer and a connection that was never made are not
// billed and count nothing. Fails on the code that held one call's cost
// for all its attempts and counted an unreported usage as $0.
func TestBudgetCountsWhatMayBeBilled(t *testing.T) {
	const system, user = "s", "judge this answer"
	in, out := JudgeCallBound(system, user)
	maxCost := (float64(in)*0.4 + float64(out)*1.6) / 1e6
	usage := `,"usage":{"prompt_tokens":` + itoa(len(system)+len(user)) + `,"completion_tokens":` + itoa(judgeMaxTokens) + `}}`
	tests := []struct {
		name    string
		timeout string // ATTEST_JUDGE_TIMEOUT_S
		calls   int
		answer  func(n int64, w http.ResponseWriter, r *http.Request)
		sent    int64 // requests the server should see
		// spentMin: what the engine must count at least afterwards.
		spentMin float64
	}{
		{"an attempt that timed out, then an answer", "0.05", 1, func(n int64, w http.ResponseWriter, r *http.Request) {
			if n == 1 {
				select { // billed, answered too late
				case <-time.After(2 * time.Second):
				case <-r.Context().Done():
				}
				return
			}
			io.WriteString(w, billHead+usage)
		}, 1, maxCost},
		{"replies without usage", "", 3, func(_ int64, w http.ResponseWriter, _ *http.Request) {
			io.WriteString(w, billHead+"}")
		}, 1, maxCost},
		{"replies that do not decode", "", 3, func(_ int64, w http.ResponseWriter, _ *http.Request) {
			io.WriteString(w, `{"choices":[]}`)
		}, 1, maxCost},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBiller(t, tc.answer)
			env := []string{"OPENAI_API_KEY", "k", "OPENAI_BASE_URL", b.URL}
			if tc.timeout != "" {
				env = append(env, "ATTEST_JUDGE_TIMEOUT_S", tc.timeout)
			}
			budget := 1.5 * maxCost // room for one call at its bound, not two
			p, err := New(Settings{Getenv: envOf(env...), RetryBase: time.Millisecond, BudgetUSD: budget})
			if err != nil {
				t.Fatal(err)
			}
			refused := 0
			for range tc.calls {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				_, _, err := p.Judge().Complete(ctx, "gpt-4.1-mini", system, user, true)
				cancel()
				var be *BudgetError
				if errors.As(err, &be) {
					refused++
				}
			}
			if got := b.bill(); got > budget {
				t.Errorf("the provider billed $%.6f of a $%.6f budget (%d requests received, %d calls refused)", got, budget, b.requests.Load(), refused)
			}
			if got := b.requests.Load(); got != tc.sent {
				t.Errorf("%d requests sent, want %d", got, tc.sent)
			}
			if p.Spent() < tc.spentMin-1e-15 {
				t.Errorf("the engine counts $%.6f, want at least $%.6f: what may have been billed", p.Spent(), tc.spentMin)
			}
		})
	}
}

// TestBudgetIgnoresUnbilledFailures: an HTTP error answer (retried 5xx,
// a 400) and a connection that could not be made cost nothing, so they
// hold nothing afterwards: a call that fits the budget still starts.
func TestBudgetIgnoresUnbilledFailures(t *testing.T) {
	const system, user = "s", "judge this answer"
	in, out := JudgeCallBound(system, user)
	maxCost := (float64(in)*0.4 + float64(out)*1.6) / 1e6
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there: every dial is refused
	fails := newBiller(t, func(n int64, w http.ResponseWriter, _ *http.Request) {
		if n%2 == 1 {
			http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
			return
		}
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
	})
	for _, base := range []string{closed, fails.URL} {
		p, err := New(Settings{Getenv: envOf("OPENAI_API_KEY", "k", "OPENAI_BASE_URL", base), RetryBase: time.Millisecond, BudgetUSD: 1.5 * maxCost})
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, _, err := p.Judge().Complete(context.Background(), "gpt-4.1-mini", system, user, true); err == nil {
				t.Fatalf("%s: a failing provider answered", base)
			} else if be := (*BudgetError)(nil); errors.As(err, &be) {
				t.Fatalf("%s: failures that cost nothing used up the budget: %v", base, err)
			}
		}
		if p.Spent() != 0 {
			t.Errorf("%s: spent $%v on calls that were not billed", base, p.Spent())
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestJudgeRequestsTakeTokens: ATTEST_JUDGE_RPM is in the path of every
// judge request sent, a retry included: at 60 a minute with a burst of 1,
// three calls (the second retried once after a 503) wait 1 s before each
// request after the first, on the bucket's clock. Embedding requests are
// not judge requests and take none.
func TestJudgeRequestsTakeTokens(t *testing.T) {
	b := newBiller(t, func(n int64, w http.ResponseWriter, _ *http.Request) {
		if n == 2 {
			http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, billHead+`,"usage":{"prompt_tokens":3,"completion_tokens":3}}`)
	})
	p, err := New(Settings{Getenv: envOf("OPENAI_API_KEY", "k", "OPENAI_BASE_URL", b.URL, "ATTEST_JUDGE_RPM", "60"), RetryBase: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	var slept []time.Duration
	lim := p.Judge().limiter
	if lim == nil {
		t.Fatal("ATTEST_JUDGE_RPM set no limiter")
	}
	lim.now = clk.now
	lim.sleep = func(ctx context.Context, d time.Duration) error {
		slept = append(slept, d.Round(time.Millisecond))
		return clk.sleep(ctx, d)
	}
	for range 3 {
		if _, _, err := p.Judge().Complete(context.Background(), "gpt-4.1-mini", "s", "u", true); err != nil {
			t.Fatal(err)
		}
	}
	if got := b.requests.Load(); got != 4 {
		t.Fatalf("%d requests, want 4 (one retried)", got)
	}
	if want := []time.Duration{time.Second, time.Second, time.Second}; !reflect.DeepEqual(slept, want) {
		t.Errorf("the bucket made the requests wait %v, want %v", slept, want)
	}
	if p.Embedder().limiter != nil {
		t.Error("embedding requests are rate limited by ATTEST_JUDGE_RPM")
	}
}
