// Command attest-engine is the Attest protocol's evaluation engine: an SDK
// spawns it and speaks JSON-RPC 2.0 over its stdin and stdout, one compact
// JSON object per line (../shared/spec/attest-protocol-v1.md). Logs go to
// stderr as JSON lines; stdout carries protocol lines and nothing else.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"attest-engine/rpc"
)

// version is the engine's semver, reported as engine_version.
const version = "0.1.0"

func main() {
	paceGC()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "eval" {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		context.AfterFunc(ctx, stop) // a second signal ends the process at once
		return rpc.Eval(ctx, args[1:], stdin, stdout, stderr)
	}
	fs := flag.NewFlagSet("attest-engine", flag.ContinueOnError)
	fs.SetOutput(stderr)
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	configPath := fs.String("config", "", "path of a JSON config file")
	evalTimeout := fs.String("eval-timeout", "30s", "per-batch time limit: a Go duration (30s) or milliseconds (30000)")
	showVersion := fs.Bool("version", false, "print the engine version and exit")
	reportPath := fs.String("report", "", "at shutdown, write every result of the session to this file (.xml JUnit, .json JSON, else text)")
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
	timeout, err := rpc.ParseTimeout(*evalTimeout)
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
	engine, err := rpc.NewEngine(cfg)
	if err != nil {
		logger.Error(err.Error())
		fmt.Fprintf(stderr, "attest-engine: %v\n", err)
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	srv := rpc.New(rpc.Options{Engine: engine, Config: cfg, EvalTimeout: timeout, Logger: logger, Version: version, ReportPath: *reportPath})
	if err := srv.Serve(ctx, stdin, stdout); err != nil {
		logger.Error("serving stopped", "error", err.Error())
	}
	return 0
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
