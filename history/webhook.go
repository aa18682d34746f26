// webhook.go: alert delivery over HTTP: one signed POST per alert, bounded
// retries with backoff and Retry-After, a bounded queue that never blocks
// the caller.

package history

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"attest-engine/retry"
)

// Webhook headers (doc.go, "Webhook").
const (
	HeaderSignature = "X-Attest-Signature" // "sha256=" + hex HMAC-SHA256(secret, timestamp + "." + body)
	HeaderTimestamp = "X-Attest-Timestamp" // Unix seconds when the attempt was sent
	HeaderDelivery  = "X-Attest-Delivery"  // the alert's alert_id, a copy: not signed (de-duplicate by the body's)
)

// WebhookConfig configures alert delivery. Zero fields take the defaults.
type WebhookConfig struct {
	URL string
	// Secret keys the HMAC-SHA256 signature; empty sends no signature.
	Secret []byte
	// Timeout bounds one attempt (default 10s); MaxAttempts bounds the
	// attempts per alert (default 5).
	Timeout     time.Duration
	MaxAttempts int
	// Backoff is the first retry's delay (default 500ms), doubling up to
	// MaxBackoff (default 30s). A Retry-After longer than the backoff is
	// honoured up to MaxRetryAfter (default 60s).
	Backoff       time.Duration
	MaxBackoff    time.Duration
	MaxRetryAfter time.Duration
	// QueueSize bounds the alerts waiting for delivery (default 256); an
	// alert arriving at a full queue is dropped and logged.
	QueueSize int
	// CloseWait bounds how long Close waits for the queue (default 10s).
	CloseWait time.Duration
	Client    *http.Client
	Now       func() time.Time
}

func (c WebhookConfig) withDefaults() WebhookConfig {
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 5
	}
	if c.Backoff <= 0 {
		c.Backoff = 500 * time.Millisecond
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = 30 * time.Second
	}
	if c.MaxRetryAfter <= 0 {
		c.MaxRetryAfter = 60 * time.Second
	}
	if c.QueueSize <= 0 {
		c.QueueSize = 256
	}
	if c.CloseWait <= 0 {
		c.CloseWait = 10 * time.Second
	}
	if c.Client == nil {
		// A redirect is answered as it is (a 3xx: not delivered, not
		// retried), never followed: the engine connects only to the
		// address the user configured (docs/security.md).
		c.Client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

type webhook struct {
	cfg    WebhookConfig
	log    *slog.Logger
	queue  chan Alert
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu        sync.Mutex
	delivered uint64
	failed    uint64
	dropped   uint64
}

func startWebhook(cfg WebhookConfig, log *slog.Logger) *webhook {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	w := &webhook{cfg: cfg, log: log, queue: make(chan Alert, cfg.QueueSize), ctx: ctx, cancel: cancel, done: make(chan struct{})}
	go w.run()
	return w
}

func (w *webhook) enqueue(a Alert) {
	select {
	case w.queue <- a:
	default:
		w.mu.Lock()
		w.dropped++
		w.mu.Unlock()
		w.log.Warn("history: webhook queue full; alert dropped (it is in the alert file)", "alert_id", a.ID)
	}
}

func (w *webhook) run() {
	defer close(w.done)
	for a := range w.queue {
		err := w.deliver(a)
		w.mu.Lock()
		if err != nil {
			w.failed++
		} else {
			w.delivered++
		}
		w.mu.Unlock()
		if err != nil {
			w.log.Warn("history: webhook delivery failed", "alert_id", a.ID, "err", err.Error())
		}
	}
}

// close stops taking alerts and waits, at most CloseWait, for the queue.
func (w *webhook) close() {
	close(w.queue)
	t := time.AfterFunc(w.cfg.CloseWait, w.cancel)
	<-w.done
	t.Stop()
	w.cancel()
}

// Sign returns the signature header value for body sent at timestamp ts
// (Unix seconds): "sha256=" + hex(HMAC-SHA256(secret, ts + "." + body)).
// Receivers recompute it and compare in constant time (hmac.Equal).
func Sign(secret []byte, ts int64, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(strconv.FormatInt(ts, 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// deliver posts one alert, retrying as the answers allow.
func (w *webhook) deliver(a Alert) error {
	body, err := json.Marshal(a)
	if err != nil {
		return err
	}
	return w.cfg.policy().Do(w.ctx, a.ID, func() (retry.Outcome, error) { return w.attempt(body, a.ID) })
}

// policy is the configuration's bounds on a delivery.
func (c WebhookConfig) policy() retry.Policy {
	return retry.Policy{MaxAttempts: c.MaxAttempts, Backoff: c.Backoff, MaxBackoff: c.MaxBackoff, MaxRetryAfter: c.MaxRetryAfter}
}

func (w *webhook) attempt(body []byte, id string) (retry.Outcome, error) {
	ctx, cancel := context.WithTimeout(w.ctx, w.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return retry.Outcome{}, errors.New("webhook: the URL does not parse") // not quoted: it may hold a token
	}
	ts := w.cfg.Now().Unix()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(HeaderDelivery, id)
	if len(w.cfg.Secret) > 0 {
		req.Header.Set(HeaderSignature, Sign(w.cfg.Secret, ts, body))
	}
	resp, err := w.cfg.Client.Do(req)
	if err != nil {
		// A webhook URL often carries its token in the path or query (Slack,
		// Discord, Teams hooks): the error names the host only, as the log does.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return retry.Outcome{Retry: w.ctx.Err() == nil}, fmt.Errorf("webhook %s: %w", req.URL.Host, err)
	}
	o, err := retry.Judge(resp, w.cfg.Now())
	if err != nil {
		err = fmt.Errorf("webhook: %w", err)
	}
	return o, err
}
