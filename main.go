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
	"strings"
	"syscall"
	"time"

	"attest-engine/assert"
	"attest-engine/eval"
	"attest-engine/history"
	"attest-engine/logsink"
	"attest-engine/report"
	"attest-engine/rpc"
	"attest-engine/simulate"
	"attest-engine/watch"
)

// version is the engine's semver, reported as engine_version.
const version = "0.1.0"

func main() {
	paceGC()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// usage is printed with every usage error (exit 2) and for -h.
const usage = `usage:
  attest-engine [flags]          serve the Attest protocol on stdin and stdout (the SDKs start it so)
  attest-engine eval [flags]     evaluate traces from files (attest-engine eval -h)
  attest-engine watch [flags]    evaluate production traces continuously (attest-engine watch -h)
  attest-engine merge DST SRC... add the result histories (--state-dir) of shards into DST
  attest-engine report --state-dir DIR --html FILE
                                 draw a result history as one HTML page (attest-engine report -h)
  attest-engine version          print the version

flags:
`

// flushLogs bounds how long the exit waits for queued log lines: stderr may
// never be read (logsink).
const flushLogs = 100 * time.Millisecond

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("attest-engine", flag.ContinueOnError)
	fs.SetOutput(stderr)
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	configPath := fs.String("config", "", "path of a JSON config file")
	evalTimeout := fs.String("eval-timeout", "30s", "per-batch time limit: a Go duration (30s) or milliseconds (30000)")
	showVersion := fs.Bool("version", false, "print the engine version and exit")
	offline := fs.Bool("offline", false, "make no network call at all: provider and simulated-user results come from cache_dir, a miss is an error")
	reportPath := fs.String("report", "", "at shutdown, write every result of the session to this file (.xml JUnit, .json JSON, .html/.htm HTML, else text)")
	stateDir := fs.String("state-dir", "", "keep a history of results in this directory: query_drift, threshold \"dynamic\", drift alerts")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	usageError := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "attest-engine: "+format+"\n", a...)
		fs.Usage()
		return 2
	}

	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "eval":
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			context.AfterFunc(ctx, stop) // a second signal ends the process at once
			return eval.Run(ctx, args[1:], stdin, stdout, stderr)
		case "watch":
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			context.AfterFunc(ctx, stop) // a second signal ends the process at once
			// Logs through the bounded queue, as the server's (logsink).
			signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
			sink := logsink.New(stderr)
			defer sink.Flush(flushLogs)
			return watch.Run(ctx, args[1:], stdin, stdout, sink, watchEnv())
		case "merge":
			return history.Main(args[1:], stdout, stderr)
		case "report":
			return runReport(args[1:], stdout, stderr)
		case "version": // the earlier engine's subcommand (../shared/sdk-compat.md)
			if len(args) > 1 {
				return usageError("version takes no arguments, got %q", args[1])
			}
			printVersion(stdout)
			return 0
		}
		return usageError("unknown command %q", args[0])
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument %q", fs.Arg(0))
	}
	if *showVersion {
		printVersion(stdout)
		return 0
	}
	level, err := parseLevel(*logLevel)
	if err != nil {
		fmt.Fprintf(stderr, "attest-engine: %v\n", err)
		return 2
	}
	timeout, err := eval.ParseTimeout(*evalTimeout)
	if err != nil {
		fmt.Fprintf(stderr, "attest-engine: %v\n", err)
		return 2
	}
	// Every log line goes through a bounded queue: the SDKs never read
	// stderr, and a blocked write must not stop the engine (logsink). Nor
	// may a closed one: with SIGPIPE notified, a write to a broken pipe on
	// stderr (or stdout) fails with EPIPE instead of ending the process
	// (os/signal, "SIGPIPE").
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	sink := logsink.New(stderr)
	defer sink.Flush(flushLogs)
	logger := newLogger(sink, level)

	var cfg assert.Config
	if *configPath != "" {
		if cfg, err = assert.LoadConfig(*configPath); err != nil {
			logger.Error(err.Error())
			fmt.Fprintf(sink, "attest-engine: %v\n", err)
			return 2
		}
	}
	if *offline {
		cfg.Offline = true
	}
	engine, err := assert.New(cfg)
	if err != nil {
		logger.Error(err.Error())
		fmt.Fprintf(sink, "attest-engine: %v\n", err)
		return 2
	}
	for _, w := range engine.Warnings() {
		logger.Warn(w)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	opts := rpc.Options{Engine: engine, Config: cfg, EvalTimeout: timeout, Logger: logger, Version: version}
	var srv *rpc.Server // set before serving starts; the report is written when serving ends
	if *stateDir != "" {
		store, err := history.Open(*stateDir, history.Options{Logger: logger})
		if err != nil {
			logger.Error(err.Error())
			fmt.Fprintf(sink, "attest-engine: --state-dir: %v\n", err)
			return 2
		}
		defer func() {
			if err := store.Close(); err != nil {
				logger.Error("closing --state-dir", "error", err.Error())
			}
		}()
		engine.SetThresholds(store.Threshold)
		opts.History = store
	}
	if *reportPath != "" && report.FormatForPath(*reportPath) == report.FormatHTML {
		opts.ReportSpec = report.SpecText // the page shows each assertion's spec on demand
	}
	srv = rpc.New(opts)
	if *reportPath != "" {
		srv.RecordTo(reportTo(*reportPath, logger, srv.Scenarios))
	}
	if err := srv.Serve(ctx, stdin, stdout); err != nil {
		logger.Error("serving stopped", "error", err.Error())
	}
	return 0
}

// reportMemory is the bytes of results --report holds in memory before it
// spools them to disk (a variable so that tests can lower it).
var reportMemory = report.SpoolMemory

// reportTo is the server's --report: every result of the session goes to a
// report.Spool as it is recorded (add), held in memory up to
// report.SpoolMemory and past it in scratch files beside path, and when
// serving ends (done) the report goes to path, in the format its extension
// names. A failure is logged; it never changes the protocol's answers or
// the exit status.
func reportTo(path string, logger *slog.Logger, scenarios func() []simulate.ScenarioSummary) (add func(rpc.Record), done func()) {
	sp := report.NewSpool(report.ScratchDir(path), reportMemory)
	add = func(r rpc.Record) {
		// rpc.Record and report.Recorded have the same fields (rpc, the
		// protocol only, does not import report): a conversion, which stops
		// compiling if they part, rather than a copy that could drop a field.
		sp.Add(report.Recorded(r))
	}
	done = func() {
		defer sp.Close()
		traces, err := sp.WriteFile(path, scenarios()...)
		if err != nil {
			logger.Error("writing report", "path", path, "error", err.Error())
			return
		}
		logger.Info("report written", "path", path, "format", string(report.FormatForPath(path)), "traces", traces)
	}
	return add, done
}

// printVersion is what --version and the version subcommand print: the
// earlier engine's "attest-engine <semver>", one line.
func printVersion(w io.Writer) {
	fmt.Fprintf(w, "attest-engine %s\n", version)
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
	return slog.New(logsink.NewHandler(w, level, "engine"))
}
