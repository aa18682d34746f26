// watch_env.go: what the watch command gets from main: the version, the logger, the environment.

package main

import (
	"io"
	"log/slog"
	"os"

	"attest-engine/watch"
)

func watchEnv() watch.Env {
	return watch.Env{
		Version: version,
		Getenv:  os.Getenv,
		Logger: func(w io.Writer, level string) (*slog.Logger, error) {
			l, err := parseLevel(level)
			if err != nil {
				return nil, err
			}
			return newLogger(w, l), nil
		},
	}
}
