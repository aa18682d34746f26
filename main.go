// Command attest-engine is the Attest protocol's evaluation engine: an SDK
// spawns it and speaks JSON-RPC 2.0 over its stdin and stdout, one compact
// JSON object per line (../shared/spec/attest-protocol-v1.md). Logs go to
// stderr as JSON lines; stdout carries protocol lines and nothing else.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"attest-engine/assert"
	"attest-engine/jsonschema"
	"attest-engine/rpc"
)

// version is the engine's semver, reported as engine_version.
const version = "0.1.0"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("attest-engine", flag.ContinueOnError)
	fs.SetOutput(stderr)
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	configPath := fs.String("config", "", "path of a JSON config file")
	evalTimeout := fs.String("eval-timeout", "30s", "per-batch time limit: a Go duration (30s) or milliseconds (30000)")
	showVersion := fs.Bool("version", false, "print the engine version and exit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *showVersion {
		fmt.Fprintf(stdout, "attest-engine %s (protocol %d)\n", version, rpc.ProtocolVersion)
		return 0
	}
	level, err := parseLevel(*logLevel)
	if err != nil {
		fmt.Fprintf(stderr, "attest-engine: %v\n", err)
		return 2
	}
	timeout, err := parseTimeout(*evalTimeout)
	if err != nil {
		fmt.Fprintf(stderr, "attest-engine: %v\n", err)
		return 2
	}
	logger := newLogger(stderr, level)

	var cfg rpc.Config
	if *configPath != "" {
		if cfg, err = rpc.LoadConfig(*configPath); err != nil {
			logger.Error(err.Error())
			fmt.Fprintf(stderr, "attest-engine: %v\n", err)
			return 2
		}
	}
	engine, err := newEngine(cfg)
	if err != nil {
		logger.Error(err.Error())
		fmt.Fprintf(stderr, "attest-engine: %v\n", err)
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	srv := rpc.New(rpc.Options{Engine: engine, Config: cfg, EvalTimeout: timeout, Logger: logger, Version: version})
	if err := srv.Serve(ctx, stdin, stdout); err != nil {
		logger.Error("serving stopped", "error", err.Error())
	}
	return 0
}

func newEngine(cfg rpc.Config) (*assert.Engine, error) {
	if len(cfg.SchemaDirs) > 0 {
		// The only files a schema can reach: config schema_dirs (issue: offline $ref).
		for prefix, dir := range cfg.SchemaDirs {
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return nil, fmt.Errorf("config schema_dirs[%q]: %q is not a readable directory", prefix, dir)
			}
		}
		cfg.Config.SchemaLoader = jsonschema.DirLoader(cfg.SchemaDirs)
	}
	return assert.New(cfg.Config)
}

func parseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("--log-level %q: want debug, info, warn or error", s)
}

// parseTimeout reads --eval-timeout: a Go duration, or a bare number of milliseconds.
func parseTimeout(s string) (time.Duration, error) {
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		if ms <= 0 {
			return 0, errors.New("--eval-timeout must be positive")
		}
		return time.Duration(ms) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("--eval-timeout %q: want a positive Go duration (30s) or milliseconds (30000)", s)
	}
	return d, nil
}

// newLogger writes the spec's log lines (§1.3): {"level","ts","logger","msg",...}.
func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) > 0 {
				return a
			}
			switch a.Key {
			case slog.TimeKey:
				return slog.String("ts", a.Value.Time().UTC().Format("2006-01-02T15:04:05.000Z"))
			case slog.LevelKey:
				return slog.String("level", strings.ToLower(a.Value.Any().(slog.Level).String()))
			}
			return a
		},
	})
	return slog.New(h).With("logger", "engine")
}
