// serve.go: Run: the server's wiring from its flags to rpc.Server.Serve.

package serve

import (
	"context"
	"fmt"
	"io"
	"os"

	"attest-engine/cli"
	"attest-engine/history"
	"attest-engine/logsink"
	"attest-engine/report"
	"attest-engine/rpc"
	"attest-engine/version"
)

// Usage is printed with every usage error (exit 2) and for -h: the
// engine's commands, then the server's flags.
const Usage = `usage:
  attest-engine [flags]          serve the Attest protocol on stdin and stdout (the SDKs start it so)
  attest-engine eval [flags]     evaluate traces from files (attest-engine eval -h)
  attest-engine watch [flags]    evaluate production traces continuously (attest-engine watch -h)
  attest-engine calibrate --suite SUITE --labels LABELS.jsonl [--out CERT.json]
                                 measure the suite's judges against human labels (attest-engine calibrate -h)
  attest-engine merge DST SRC... add the result histories (--state-dir) of shards into DST
  attest-engine report --state-dir DIR --html FILE
                                 draw a result history as one HTML page (attest-engine report -h)
  attest-engine diff --base A --head B
                                 did a run regress against another? (attest-engine diff -h)
  attest-engine version          print the version

flags:
`

// Run is the server command. It handles SIGTERM and SIGINT itself
// (onSignal): ctx need not end at them.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var o options
	fs := o.flagSet(stderr)
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return UsageError(stderr, "unexpected argument %q", fs.Arg(0))
	}
	if o.showVersion {
		version.Print(stdout)
		return 0
	}
	level, err := cli.ParseLevel(o.logLevel)
	if err != nil {
		fmt.Fprintf(stderr, "attest-engine: %v\n", err)
		return 2
	}
	ctx, installSignals := onSignal(ctx)
	// Every log line goes through a bounded queue: the SDKs never read
	// stderr, and a blocked write must not stop the engine (logsink). Nor
	// may a closed one (ignoreSIGPIPE).
	ignoreSIGPIPE()
	sink := logsink.New(stderr)
	defer sink.Flush(cli.FlushLogs)
	logger := cli.NewLogger(sink, level)
	fail := func(prefix string, err error) int {
		logger.Error(err.Error())
		fmt.Fprintf(sink, "attest-engine: %s%v\n", prefix, err)
		return 2
	}

	engine, cfg, err := cli.LoadEngine(o.configPath, o.offline)
	if err != nil {
		return fail("", err)
	}
	for _, w := range engine.Warnings() {
		logger.Warn(w)
	}
	opts := rpc.Options{Engine: engine, Config: cfg, EvalTimeout: o.evalTimeout, Logger: logger, Version: version.Engine, Initialized: installSignals}
	dir, from := stateDir(o.stateDir, cfg.StateDir, os.Getenv(StateDirEnv))
	if dir != "" {
		// A new dir's windows are the sessions (CI runs) that wrote it; an
		// existing one keeps its windowing.
		store, err := history.Open(dir, history.Options{Logger: logger, WindowRuns: true, AdoptWindowing: true})
		if err != nil && from == "--state-dir" {
			return fail("--state-dir: ", err)
		}
		if err != nil {
			// The SDKs start the engine without flags and never read
			// stderr: a history that cannot be had (another session holds
			// the dir, say) must not fail the user's test run.
			logger.Warn(noHistory(from, dir, err))
		}
		if err == nil {
			defer closeStore(store, logger)
			engine.SetThresholds(rpc.Thresholds(store))
			opts.History = store
		}
	}
	if o.reportPath != "" && report.FormatForPath(o.reportPath) == report.FormatHTML {
		opts.ReportSpec = report.SpecText // the page shows each assertion's spec on demand
	}
	srv := rpc.New(opts)
	if o.reportPath != "" {
		if err := cli.MakeParent(o.reportPath); err != nil {
			// As any failure of --report: logged, never a failed start.
			logger.Error("--report", "error", err.Error())
		}
		srv.RecordTo(reportTo(o.reportPath, logger, srv.Scenarios))
	}
	if err := srv.Serve(ctx, stdin, stdout); err != nil {
		logger.Error("serving stopped", "error", err.Error())
	}
	return 0
}
