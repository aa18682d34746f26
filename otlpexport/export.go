// export.go: results out as OpenTelemetry: one gen_ai.evaluation.result log record per result, parented to the evaluated span, posted as OTLP/HTTP JSON or written as lines.

// Package otlpexport sends evaluation results to the user's tracing
// backend as the OpenTelemetry GenAI conventions define them: each result
// is a gen_ai.evaluation.result event, an OTLP log record with the
// evaluated span's trace and span ids (the conventions: the event "SHOULD
// be parented to GenAI operation span being evaluated"), and the
// attributes
//
//	gen_ai.evaluation.name         the assertion's name in the suite (required)
//	gen_ai.evaluation.score.value  the score (a double), absent for skipped and error results
//	gen_ai.evaluation.score.label  the status: pass, soft_fail, hard_fail, skipped, error
//	gen_ai.evaluation.explanation  the explanation, else the error message
//	error.type                     for an error result, its code (spec §5)
//	attest.result_id, attest.assertion.type, attest.trace_id   the result's own
//
// with the event name in the record's eventName and, for backends that
// read only attributes, its event.name attribute.
//
// One request (an OTLP/JSON ExportLogsServiceRequest, resource
// service.name "attest-engine") carries one trace's results. It is posted
// to the URL as the alert webhook posts (package history): a bounded queue
// that never blocks evaluation (a request arriving at a full queue is
// dropped and counted), attempts bounded in time and number, 408, 429 and
// 5xx retried after a backoff (doubling, capped, spread by a pure function
// of the request and the attempt) or Retry-After, redirects never
// followed, errors naming the host only (a URL may carry a token). The
// file form writes each request as one line, as the Collector's file
// exporter does; both may be given.
package otlpexport

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"attest-engine/retry"
)

// EventName is the event each result is sent as.
const EventName = "gen_ai.evaluation.result"

// Result is one result line, as sent.
type Result struct {
	TraceID     string // the trace's id: sent as traceId when it is 32 hex digits
	SpanID      string // the evaluated span (16 hex digits), "" when unknown
	Name        string // the assertion's name
	Type        string // the assertion's type
	Status      string
	Score       float64
	Explanation string
	ResultID    string
	ErrorCode   int // an error result's code, else 0
	Time        time.Time
}

// Config configures the export. Zero fields take the defaults (those of
// the alert webhook).
type Config struct {
	URL  string // an http or https OTLP/HTTP logs endpoint (…/v1/logs)
	File string // or a file the requests are appended to, one per line

	Service, Version string // resource service.name ("attest-engine") and service.version

	Timeout       time.Duration // one attempt (10s)
	MaxAttempts   int           // per request (5)
	Backoff       time.Duration // first retry's delay (500ms), doubling up to MaxBackoff (30s)
	MaxBackoff    time.Duration
	MaxRetryAfter time.Duration // a longer Retry-After is capped (60s)
	QueueSize     int           // requests waiting (256)
	CloseWait     time.Duration // Close waits this long for the queue (10s)
	Client        *http.Client
}

func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.Timeout, 10*time.Second)
	def(&c.Backoff, 500*time.Millisecond)
	def(&c.MaxBackoff, 30*time.Second)
	def(&c.MaxRetryAfter, 60*time.Second)
	def(&c.CloseWait, 10*time.Second)
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 5
	}
	if c.QueueSize <= 0 {
		c.QueueSize = 256
	}
	if c.Service == "" {
		c.Service = "attest-engine"
	}
	if c.Client == nil {
		c.Client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	return c
}

// CheckURL says what is wrong with an export URL, "" when nothing. The URL
// is not quoted: it may hold a token.
func CheckURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "want an http or https URL with a host, such as http://127.0.0.1:4318/v1/logs"
	}
	return ""
}

// Exporter sends results. Export and Close are called from one goroutine.
type Exporter struct {
	cfg    Config
	log    *slog.Logger
	queue  chan request
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	file   *os.File

	mu                         sync.Mutex
	sent, failed, dropped, err uint64
}

type request struct {
	body []byte
	key  string // what spreads its retries: the first result's id
}

// Start opens the file or starts the sender.
func Start(cfg Config, log *slog.Logger) (*Exporter, error) {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	e := &Exporter{cfg: cfg, log: log, ctx: ctx, cancel: cancel, done: make(chan struct{})}
	if cfg.URL != "" {
		if msg := CheckURL(cfg.URL); msg != "" {
			cancel()
			return nil, errors.New("--export-otlp: " + msg)
		}
	}
	if cfg.File != "" {
		f, err := os.OpenFile(cfg.File, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			cancel()
			return nil, fmt.Errorf("--export-otlp-file: %v", err)
		}
		e.file = f
	}
	if cfg.URL == "" {
		close(e.done)
		return e, nil
	}
	e.queue = make(chan request, cfg.QueueSize)
	go e.run()
	return e, nil
}

// Export sends one trace's results as one request; it never blocks on the
// network.
func (e *Exporter) Export(rs []Result) {
	if len(rs) == 0 {
		return
	}
	body := Request(rs, e.cfg.Service, e.cfg.Version)
	if e.file != nil {
		if _, err := e.file.Write(append(body, '\n')); err != nil {
			e.count(&e.failed)
			e.log.Warn("--export-otlp-file: writing results failed", "error", err.Error())
		}
	}
	if e.queue == nil {
		return
	}
	select {
	case e.queue <- request{body: body, key: rs[0].ResultID}:
	default:
		e.count(&e.dropped)
		e.log.Warn("--export-otlp: queue full; a trace's results were not exported (they are in the result lines)", "trace_id", rs[0].TraceID)
	}
}

func (e *Exporter) count(n *uint64) {
	e.mu.Lock()
	*n++
	e.mu.Unlock()
}

// Stats are the requests sent, failed for good and dropped at a full queue.
func (e *Exporter) Stats() (sent, failed, dropped uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sent, e.failed, e.dropped
}

// Close stops taking results and waits, at most CloseWait, for the queue.
func (e *Exporter) Close() error {
	if e.queue != nil {
		close(e.queue)
		t := time.AfterFunc(e.cfg.CloseWait, e.cancel)
		<-e.done
		t.Stop()
	}
	e.cancel()
	if e.file != nil {
		return e.file.Close()
	}
	return nil
}

func (e *Exporter) run() {
	defer close(e.done)
	for r := range e.queue {
		if err := e.deliver(r); err != nil {
			e.count(&e.failed)
			e.log.Warn("--export-otlp: a request of results was not delivered", "error", err.Error())
			continue
		}
		e.count(&e.sent)
	}
}

func (e *Exporter) deliver(r request) error {
	p := retry.Policy{MaxAttempts: e.cfg.MaxAttempts, Backoff: e.cfg.Backoff, MaxBackoff: e.cfg.MaxBackoff, MaxRetryAfter: e.cfg.MaxRetryAfter}
	return p.Do(e.ctx, r.key, func() (retry.Outcome, error) { return e.attempt(r.body) })
}

// attempt posts once; retry.Judge says what the answer means.
func (e *Exporter) attempt(body []byte) (retry.Outcome, error) {
	ctx, cancel := context.WithTimeout(e.ctx, e.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return retry.Outcome{}, errors.New("the URL does not parse")
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.cfg.Client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return retry.Outcome{Retry: e.ctx.Err() == nil}, fmt.Errorf("%s: %w", req.URL.Host, err)
	}
	o, err := retry.Judge(resp, time.Now())
	if err != nil {
		err = fmt.Errorf("%s: %w", req.URL.Host, err)
	}
	return o, err
}

// Request is the OTLP/JSON ExportLogsServiceRequest of one trace's
// results.
func Request(rs []Result, service, version string) []byte {
	res := []kv{str("service.name", service)}
	if version != "" {
		res = append(res, str("service.version", version))
	}
	recs := make([]record, 0, len(rs))
	for _, r := range rs {
		recs = append(recs, toRecord(r))
	}
	req := logsRequest{ResourceLogs: []resourceLogs{{Resource: resource{Attributes: res},
		ScopeLogs: []scopeLogs{{Scope: scope{Name: "attest-engine/watch", Version: version}, LogRecords: recs}}}}}
	b, _ := json.Marshal(req)
	return b
}

func toRecord(r Result) record {
	ns := strconv.FormatInt(r.Time.UnixNano(), 10)
	rec := record{TimeUnixNano: ns, ObservedTimeUnixNano: ns, SeverityNumber: 9, SeverityText: "INFO", EventName: EventName}
	if isHex(r.TraceID, 32) {
		rec.TraceID = strings.ToLower(r.TraceID)
		if isHex(r.SpanID, 16) {
			rec.SpanID = strings.ToLower(r.SpanID)
		}
	}
	a := []kv{str("event.name", EventName), str("gen_ai.evaluation.name", r.Name), str("gen_ai.evaluation.score.label", r.Status)}
	if r.Status != "skipped" && r.Status != "error" && !math.IsNaN(r.Score) && !math.IsInf(r.Score, 0) {
		a = append(a, kv{Key: "gen_ai.evaluation.score.value", Value: anyValue{Double: &r.Score}})
	}
	if r.Explanation != "" {
		a = append(a, str("gen_ai.evaluation.explanation", r.Explanation))
	}
	if r.ErrorCode != 0 {
		a = append(a, str("error.type", strconv.Itoa(r.ErrorCode)))
	}
	a = append(a, str("attest.result_id", r.ResultID), str("attest.assertion.type", r.Type), str("attest.trace_id", r.TraceID))
	rec.Attributes = a
	return rec
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	b, err := hex.DecodeString(s)
	return err == nil && strings.Trim(string(b), "\x00") != ""
}

// The OTLP/JSON messages written (opentelemetry-proto's JSON mapping).
type (
	logsRequest struct {
		ResourceLogs []resourceLogs `json:"resourceLogs"`
	}
	resourceLogs struct {
		Resource  resource    `json:"resource"`
		ScopeLogs []scopeLogs `json:"scopeLogs"`
	}
	resource struct {
		Attributes []kv `json:"attributes"`
	}
	scopeLogs struct {
		Scope      scope    `json:"scope"`
		LogRecords []record `json:"logRecords"`
	}
	scope struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	}
	record struct {
		TimeUnixNano         string `json:"timeUnixNano"`
		ObservedTimeUnixNano string `json:"observedTimeUnixNano"`
		SeverityNumber       int    `json:"severityNumber"`
		SeverityText         string `json:"severityText"`
		EventName            string `json:"eventName"`
		TraceID              string `json:"traceId,omitempty"`
		SpanID               string `json:"spanId,omitempty"`
		Attributes           []kv   `json:"attributes"`
	}
	kv struct {
		Key   string   `json:"key"`
		Value anyValue `json:"value"`
	}
	anyValue struct {
		String *string  `json:"stringValue,omitempty"`
		Double *float64 `json:"doubleValue,omitempty"`
	}
)

func str(k, v string) kv { return kv{Key: k, Value: anyValue{String: &v}} }
