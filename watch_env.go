// watch_env.go: what the watch command gets from the rest of the engine.

package main

import (
	"io"
	"log/slog"
	"os"
	"time"

	"attest-engine/assert"
	"attest-engine/watch"
)

func watchEnv() watch.Env {
	return watch.Env{
		Version: version,
		Engine: func(path string) (watch.Evaluator, bool, []string, error) {
			var cfg assert.Config
			if path != "" {
				var err error
				if cfg, err = assert.LoadConfig(path); err != nil {
					return nil, false, nil, err
				}
			}
			e, err := assert.New(cfg)
			if err != nil {
				return nil, false, nil, err
			}
			return e, cfg.StrictStepTypes, e.Warnings(), nil
		},
		Wire: func(err error, timeout time.Duration) watch.ResultError {
			f := assert.FailureOf(err, timeout)
			return watch.ResultError{Code: f.Code, Message: f.Message, Retryable: f.Retryable}
		},
		Getenv: os.Getenv,
		Logger: func(w io.Writer, level string) (*slog.Logger, error) {
			l, err := parseLevel(level)
			if err != nil {
				return nil, err
			}
			return newLogger(w, l), nil
		},
	}
}
