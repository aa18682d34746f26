// retry.go: Policy (attempts and delays), Do (the delivery loop) and Judge (what an answer means).

package retry

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxAnswer bounds what is read of a receiver's answer (then discarded).
const MaxAnswer = 64 << 10

// Policy bounds a delivery's attempts and the delays between them.
type Policy struct {
	MaxAttempts   int
	Backoff       time.Duration // the first retry's delay, doubling up to MaxBackoff
	MaxBackoff    time.Duration
	MaxRetryAfter time.Duration // a longer Retry-After is cut to this
}

// Outcome is what an attempt means for the next one.
type Outcome struct {
	Retry bool
	After time.Duration // the receiver's Retry-After, 0 when it gave none
}

// Delay is the delay before retry attempt+1 of the delivery named key.
func (p Policy) Delay(key string, attempt int) time.Duration {
	d := p.Backoff
	for i := 0; i < attempt && d < p.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, p.MaxBackoff)
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(attempt))
	h := sha256.Sum256(append([]byte(key), b[:]...))
	u := float64(binary.LittleEndian.Uint64(h[:8])>>11) / (1 << 53)
	return time.Duration(float64(d) * (0.5 + u/2))
}

// Do calls attempt until it delivers (nil), fails for good, or
// MaxAttempts (at least 1) are spent, waiting Delay (or the receiver's longer
// Retry-After, capped) between attempts; it returns the last error. When
// ctx ends during a wait, it gives up at once, saying so.
func (p Policy) Do(ctx context.Context, key string, attempt func() (Outcome, error)) error {
	var last error
	attempts := max(p.MaxAttempts, 1) // a zero Policy still tries once: never "delivered" untried
	for n := 0; n < attempts; n++ {
		o, err := attempt()
		if err == nil {
			return nil
		}
		last = err
		if !o.Retry || n == attempts-1 {
			break
		}
		wait := p.Delay(key, n)
		if o.After > wait {
			wait = min(o.After, p.MaxRetryAfter)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return fmt.Errorf("%w (gave up at close)", last)
		}
	}
	return last
}

// Judge reads (to MaxAnswer) and closes resp, and says what it means: nil
// for 2xx; else an error "HTTP <code>", to retry for 408, 429 and 5xx,
// after Retry-After when given.
func Judge(resp *http.Response, now time.Time) (Outcome, error) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, MaxAnswer))
	resp.Body.Close()
	code := resp.StatusCode
	if code >= 200 && code < 300 {
		return Outcome{}, nil
	}
	err := fmt.Errorf("HTTP %d", code)
	if code == http.StatusTooManyRequests || code == http.StatusRequestTimeout || code >= 500 && code < 600 {
		after, _ := ParseRetryAfter(resp.Header.Get("Retry-After"), now)
		return Outcome{Retry: true, After: after}, err
	}
	return Outcome{}, err
}

// ParseRetryAfter reads Retry-After (RFC 9110 §10.2.3): delay-seconds or an
// HTTP-date. A negative or unreadable value is ignored; a huge one is cut
// by Do.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseUint(v, 10, 32); err == nil {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d, true
		}
		return 0, true // a date past: retry at once
	}
	return 0, false
}
