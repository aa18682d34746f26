// spend_test.go: ATTEST_JUDGE_RPM/BURST as a token bucket, ATTEST_BUDGET_MAX_COST as the earlier engine read it, and budget_usd holds.

package provider

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// fakeClock is a clock that moves only when the bucket sleeps.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }
func (c *fakeClock) sleep(_ context.Context, d time.Duration) error {
	c.t = c.t.Add(d)
	return nil
}

// TestBucketSchedule: 60 requests a minute with a burst of 3: three start
// at once, then one a second; after an idle spell the bucket refills to 3,
// never more.
func TestBucketSchedule(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	b := newBucket(60, 3)
	b.now, b.sleep = clk.now, clk.sleep
	start := clk.t
	var at []time.Duration
	for range 6 {
		if err := b.wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		at = append(at, clk.t.Sub(start))
	}
	want := []time.Duration{0, 0, 0, time.Second, 2 * time.Second, 3 * time.Second}
	for i := range want {
		if d := at[i] - want[i]; d < -time.Millisecond || d > time.Millisecond {
			t.Fatalf("request %d started at %v, want %v (all: %v)", i, at[i], want[i], at)
		}
	}
	clk.t = clk.t.Add(time.Hour) // idle: back to a full bucket of 3
	s2 := clk.t
	for range 4 {
		b.wait(context.Background())
	}
	if got := clk.t.Sub(s2); got < time.Second-time.Millisecond || got > time.Second+time.Millisecond {
		t.Errorf("after an idle hour, 4 requests took %v: want 3 at once and 1 a second later", got)
	}
}

// TestBucketCancel: a wait ended by its context gives its token back.
func TestBucketCancel(t *testing.T) {
	b := newBucket(1, 1) // one a minute
	if err := b.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := b.wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("wait = %v, want the deadline", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tokens < -0.01 {
		t.Errorf("tokens %v after a cancelled wait: its token was not given back", b.tokens)
	}
}

func TestSpendEnvironment(t *testing.T) {
	key := []string{"OPENAI_API_KEY", "k"}
	tests := []struct {
		name   string
		env    []string
		rpm    float64
		burst  int
		cap    int64
		capped bool
		warn   string
	}{
		{"none", nil, 0, 1, 0, false, ""},
		{"rpm", []string{"ATTEST_JUDGE_RPM", "120"}, 120, 1, 0, false, ""},
		{"rpm and burst", []string{"ATTEST_JUDGE_RPM", "30.5", "ATTEST_JUDGE_BURST", "5"}, 30.5, 5, 0, false, ""},
		{"bad rpm", []string{"ATTEST_JUDGE_RPM", "fast"}, 0, 1, 0, false, `ATTEST_JUDGE_RPM "fast" is not usable`},
		{"zero rpm", []string{"ATTEST_JUDGE_RPM", "0"}, 0, 1, 0, false, "judge requests are not rate limited"},
		{"bad burst", []string{"ATTEST_JUDGE_RPM", "60", "ATTEST_JUDGE_BURST", "1.5"}, 60, 1, 0, false, `ATTEST_JUDGE_BURST "1.5" is not usable`},
		{"budget count", []string{"ATTEST_BUDGET_MAX_COST", "3"}, 0, 1, 3, true, "ATTEST_BUDGET_MAX_COST=3 is read as the earlier engine read it: at most 3 soft failures per batch"},
		{"budget dollars", []string{"ATTEST_BUDGET_MAX_COST", "0.50"}, 0, 1, 0, false, "If you meant US dollars, set budget_usd"},
		{"budget negative", []string{"ATTEST_BUDGET_MAX_COST", "-1"}, 0, 1, 0, false, "the cap is off"},
	}
	for _, tc := range tests {
		p, err := New(Settings{Getenv: envOf(append(append([]string{}, key...), tc.env...)...)})
		if err != nil {
			t.Fatal(err)
		}
		if tc.rpm == 0 && p.judge.limiter != nil || tc.rpm > 0 && (p.judge.limiter == nil || p.judge.limiter.rate != tc.rpm/60 || p.judge.limiter.burst != float64(tc.burst)) {
			t.Errorf("%s: limiter %+v, want rpm %v burst %d", tc.name, p.judge.limiter, tc.rpm, tc.burst)
		}
		if n, ok := p.BatchSoftFailureCap(); ok != tc.capped || n != tc.cap {
			t.Errorf("%s: cap %d %v, want %d %v", tc.name, n, ok, tc.cap, tc.capped)
		}
		w := strings.Join(p.Warnings(), "\n")
		if (tc.warn == "") != (w == "") || !strings.Contains(w, tc.warn) {
			t.Errorf("%s: warnings %q, want %q", tc.name, w, tc.warn)
		}
	}
}

// TestBudgetReserve: a call starts only when its largest cost fits beside
// what is spent and held; settling replaces the hold with the actual cost;
// a model with no price is refused under a budget.
func TestBudgetReserve(t *testing.T) {
	b := &budget{limit: 0.01, prices: map[string]Price{"m": {Input: 1, Output: 2}}}
	// Largest cost of 1,000 in and 1,000 out tokens: 0.003.
	s1, err := b.reserve("m", 1000, 1000)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := b.reserve("m", 1000, 1000)
	if err != nil {
		t.Fatal(err)
	}
	s3, err := b.reserve("m", 1000, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var be *BudgetError
	if _, err := b.reserve("m", 1000, 1000); !errors.As(err, &be) { // 0.012 > 0.01
		t.Fatalf("a fourth call fits: %v", err)
	}
	s1(Usage{In: 500, Out: 10}) // cost 0.00052
	s2(Usage{In: 500, Out: 10})
	s2(Usage{In: 500, Out: 10}) // settling twice counts once
	if _, err := b.reserve("m", 1000, 1000); err != nil {
		t.Fatalf("after two cheap calls settled, a call fits: %v", err)
	}
	s3(Usage{})
	if b.spent < 0.00104-1e-12 || b.spent > 0.00104+1e-12 {
		t.Errorf("spent %v, want 0.00104", b.spent)
	}
	if _, err := b.reserve("unpriced", 1, 1); !errors.As(err, &be) || be.Need >= 0 || !strings.Contains(err.Error(), "has no price") {
		t.Errorf("an unpriced model under a budget: %v", err)
	}
	free := &budget{prices: map[string]Price{}}
	if _, err := free.reserve("unpriced", 1, 1); err != nil {
		t.Errorf("no budget: %v", err)
	}
	if _, err := New(Settings{BudgetUSD: -1}); err == nil || !strings.Contains(err.Error(), "budget_usd") {
		t.Errorf("a negative budget: %v", err)
	}
}

// TestBudgetBoundsReply: under budget_usd an OpenAI-compatible judge
// request carries max_completion_tokens (the reply bound the budget
// counts on); without a budget the request is as it always was.
func TestBudgetBoundsReply(t *testing.T) {
	for _, limit := range []float64{0, 1} {
		var body map[string]any
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			json.NewDecoder(r.Body).Decode(&body)
			io.WriteString(w, `{"choices":[{"message":{"content":"{\"score\":1}"}}],"usage":{"prompt_tokens":10,"completion_tokens":3}}`)
		}))
		p, err := New(Settings{Getenv: envOf("OPENAI_API_KEY", "k", "OPENAI_BASE_URL", srv.URL), BudgetUSD: limit})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := p.Judge().Complete(context.Background(), "gpt-4.1-mini", "s", "u", true); err != nil {
			t.Fatal(err)
		}
		srv.Close()
		got, ok := body["max_completion_tokens"]
		if (limit > 0) != ok || ok && got != float64(judgeMaxTokens) {
			t.Errorf("budget %v: max_completion_tokens %v (sent %v)", limit, got, ok)
		}
		if limit > 0 && p.Spent() != (10*0.4+3*1.6)/1e6 {
			t.Errorf("spent %v", p.Spent())
		}
	}
}

// TestBucketTinyRate: a rate so low that the wait overflows a Duration
// still waits (the longest a Duration holds), never not at all.
func TestBucketTinyRate(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	b := newBucket(1e-12, 1)
	b.now, b.sleep = clk.now, clk.sleep
	b.wait(context.Background())
	start := clk.t
	b.wait(context.Background())
	if waited := clk.t.Sub(start); waited < 24*time.Hour {
		t.Errorf("the second request at 1e-12 a minute waited %v", waited)
	}
}
