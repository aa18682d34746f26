// history.go: the result history under --state-dir: a history.Store behind the Recorder seam.

package watch

import (
	"cmp"
	"log/slog"
	"math"

	"attest-engine/history"
	"attest-engine/safedir"
)

// OpenHistory opens --state-dir: alerts go to the dir's alerts.ndjson
// (history's default) and, with --alert-webhook, to the webhook, signed
// with $ATTEST_WEBHOOK_SECRET when it is set.
func OpenHistory(cfg HistoryConfig, log *slog.Logger) (Recorder, error) {
	opts := history.Options{Logger: log}
	if cfg.Fsync != "" {
		p, err := history.ParseSync(cfg.Fsync)
		if err != nil {
			return nil, err
		}
		opts.Sync = p
	}
	if cfg.Webhook != "" {
		opts.Webhook = &history.WebhookConfig{URL: cfg.Webhook}
		if cfg.WebhookSecret != "" {
			opts.Webhook.Secret = []byte(cfg.WebhookSecret)
		} else {
			log.Warn("--alert-webhook: " + WebhookSecretEnv + " is not set: alerts are sent unsigned")
		}
	}
	s, err := history.Open(cfg.Dir, opts)
	if err != nil {
		return nil, err
	}
	return storeRecorder{s}, nil
}

// storeRecorder adapts a history.Store to the Recorder: each result line
// becomes a history.Result, keyed by its assertion key, labelled by the
// suite's name, and
// windowed by the trace's input position, and a trace's results are
// recorded together (history.Store.AddAll: one write call). A line that
// does not convert is left out and the others recorded.
type storeRecorder struct{ s *history.Store }

func (h storeRecorder) Record(rs []Result) error {
	out := make([]history.Result, 0, len(rs))
	var bad error
	for _, r := range rs {
		hr, err := history.ParseLine(r.TraceID, cmp.Or(r.AssertionKey, r.Assertion), r.Type, r.Status, r.Score, r.TS, r.Seq, r.ResultID)
		if err != nil {
			bad = cmp.Or(bad, err)
			continue
		}
		if r.AssertionKey != "" {
			hr.Label = r.Assertion
		}
		hr.Through, hr.Spans = r.Through, uint32(min(r.Spans, math.MaxUint32))
		out = append(out, hr)
	}
	if len(out) == 0 {
		return bad
	}
	_, err := h.s.AddAll(out)
	return cmp.Or(err, bad)
}

func (h storeRecorder) Close() error { return h.s.Close() }

// StateDir is the state dir the history opened, checked and locked.
func (h storeRecorder) StateDir() *safedir.Dir { return h.s.StateDir() }

// Prior is the history's latest verdict of (traceID, assertion key), from
// its verdict index (Verdicts).
func (h storeRecorder) Prior(traceID, assertion string) (string, uint64, int, bool) {
	p, ok := h.s.Prior(traceID, assertion)
	return p.ResultID, p.Through, int(p.Spans), ok
}
