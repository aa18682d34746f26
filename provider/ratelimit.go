// ratelimit.go: ATTEST_JUDGE_RPM and ATTEST_JUDGE_BURST, a token bucket across the process's judge requests.

package provider

import (
	"context"
	"math"
	"sync"
	"time"
)

// bucket is a token bucket: it holds at most burst tokens, refilled at rate
// tokens a second; each request takes one, waiting for it when there is
// none. A waiter takes its token on arrival (the count may go negative),
// so waiters are served in arrival order and never more than rate × t +
// burst requests start in any t seconds. now and sleep are the clock
// (tests inject one).
type bucket struct {
	rate  float64 // tokens per second
	burst float64

	mu     sync.Mutex
	tokens float64
	last   time.Time
	now    func() time.Time
	sleep  func(ctx context.Context, d time.Duration) error
}

func newBucket(perMinute float64, burst int) *bucket {
	return &bucket{rate: perMinute / 60, burst: float64(burst), tokens: float64(burst), now: time.Now, sleep: sleepCtx}
}

// wait takes a token, waiting until it is due; ctx ends the wait, and the
// token is given back.
func (b *bucket) wait(ctx context.Context) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	now := b.now()
	if !b.last.IsZero() {
		b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	}
	b.last = now
	b.tokens--
	var d time.Duration
	if b.tokens < 0 {
		// A rate low enough overflows a Duration: wait the longest one.
		d = time.Duration(math.MaxInt64)
		if s := -b.tokens / b.rate; s < d.Seconds() {
			d = time.Duration(s * float64(time.Second))
		}
	}
	b.mu.Unlock()
	if d <= 0 {
		return nil
	}
	if err := b.sleep(ctx, d); err != nil {
		b.mu.Lock()
		b.tokens++
		b.mu.Unlock()
		return err
	}
	return nil
}
