// watch_env.go: what the watch command gets from main: the version, the logger, the environment, and the result history behind its Recorder seam.

package main

import (
	"cmp"
	"io"
	"log/slog"
	"os"
	"runtime/debug"

	"attest-engine/history"
	"attest-engine/watch"
)

func watchEnv() watch.Env {
	return watch.Env{
		Version:  version,
		Getenv:   os.Getenv,
		Recorder: openWatchHistory,
		// watch runs alone in its process: its memory budget is the process's.
		MemoryLimit: func(n int64) {
			if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
				debug.SetMemoryLimit(n)
			}
		},
		Logger: func(w io.Writer, level string) (*slog.Logger, error) {
			l, err := parseLevel(level)
			if err != nil {
				return nil, err
			}
			return newLogger(w, l), nil
		},
	}
}

// openWatchHistory opens --state-dir for the watch command: alerts go to
// the dir's alerts.ndjson (history's default) and, with --alert-webhook, to
// the webhook, signed with $ATTEST_WEBHOOK_SECRET when it is set.
func openWatchHistory(cfg watch.HistoryConfig, log *slog.Logger) (watch.Recorder, error) {
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
			log.Warn("--alert-webhook: " + watch.WebhookSecretEnv + " is not set: alerts are sent unsigned")
		}
	}
	s, err := history.Open(cfg.Dir, opts)
	if err != nil {
		return nil, err
	}
	return watchHistory{s}, nil
}

// watchHistory adapts a history.Store to the watch command's Recorder: each
// result line becomes a history.Result, keyed by the suite's assertion name
// and windowed by the trace's input position, and a trace's results are
// recorded together (history.Store.AddAll: one write call). A line that
// does not convert is left out and the others recorded.
type watchHistory struct{ s *history.Store }

func (h watchHistory) Record(rs []watch.Result) error {
	out := make([]history.Result, 0, len(rs))
	var bad error
	for _, r := range rs {
		hr, err := history.ParseLine(r.TraceID, r.Assertion, r.Type, r.Status, r.Score, r.TS, r.Seq, r.ResultID)
		if err != nil {
			bad = cmp.Or(bad, err)
			continue
		}
		out = append(out, hr)
	}
	if len(out) == 0 {
		return bad
	}
	_, err := h.s.AddAll(out)
	return cmp.Or(err, bad)
}

func (h watchHistory) Close() error { return h.s.Close() }
