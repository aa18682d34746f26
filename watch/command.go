// command.go: the watch subcommand's flags and wiring: suite, input, sampling, sharding, output.

package watch

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	"attest-engine/cli"
	"attest-engine/ingest"
	"attest-engine/logsink"
	"attest-engine/otlpexport"
	"attest-engine/sample"
	"attest-engine/spool"
	"attest-engine/trace"
	"attest-engine/version"
)

// Env is what the command takes from its surroundings: Run uses the
// process's (DefaultEnv); tests give their own to RunEnv.
type Env struct {
	Version string // in every result_id
	// Recorder opens the history kept in a state directory; nil when the
	// engine is built without one (then --state-dir is an error).
	Recorder func(cfg HistoryConfig, log *slog.Logger) (Recorder, error)
	Getenv   func(string) string
	Logger   func(w io.Writer, level string) (*slog.Logger, error)
	// MemoryLimit, when set, is given the soft memory limit the process
	// should run under (DefaultEnv sets it unless GOMEMLIMIT is set).
	MemoryLimit func(bytes int64)
}

// DefaultEnv is the process's: history.Store under --state-dir
// (OpenHistory), os.Getenv, and the engine's log lines at --log-level.
func DefaultEnv() Env {
	return Env{
		Version:  version.Engine,
		Recorder: OpenHistory,
		Getenv:   os.Getenv,
		Logger: func(w io.Writer, level string) (*slog.Logger, error) {
			l, err := cli.ParseLevel(level)
			if err != nil {
				return nil, err
			}
			return cli.NewLogger(w, l), nil
		},
		// watch runs alone in its process: its memory budget is the process's.
		MemoryLimit: func(n int64) {
			if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
				debug.SetMemoryLimit(n)
			}
		},
	}
}

// HistoryConfig is what the flags say of the result history; Env.Recorder
// opens it.
type HistoryConfig struct {
	Dir string // --state-dir
	// Fsync is --fsync: "always", "interval", "never", or "" for the
	// history's default.
	Fsync string
	// Webhook is --alert-webhook (an http or https URL, "" for none), and
	// WebhookSecret the HMAC key from WebhookSecretEnv ("" sends no
	// signature).
	Webhook       string
	WebhookSecret string
}

// WebhookSecretEnv names the variable holding --alert-webhook's signing
// secret: a secret does not belong on a command line (ps shows it).
const WebhookSecretEnv = "ATTEST_WEBHOOK_SECRET"

const watchUsage = `usage: attest-engine watch --suite FILE [--in FILE|-] [--listen ADDR] [flags]

Evaluates every assertion of the suite against each trace read (Attest NDJSON, OTLP/JSON, or OTLP over
HTTP with --listen) and writes one NDJSON result line per trace and assertion, in input order. Exit
status: 0 when the input was read to its end (or a signal ended a live stream), 2 on bad flags, a bad
suite or an input or output failure.

flags:
`

// options are the parsed flags.
type options struct {
	suite, in, out, format, config, listen string
	exportURL, exportFile                  string // --export-otlp, --export-otlp-file
	history                                HistoryConfig
	follow, deterministic, listenAny       bool
	offline                                bool
	rate                                   sample.Rate
	shard                                  sample.Shard
	jobs                                   int
	timeout                                time.Duration
	limits                                 ingest.Limits
	maxLine                                int
	maxSpool                               int64
	checkpointEvery                        time.Duration
	listenLimits                           listenLimits // no flags: the defaults, or a test's
}

// Run is `attest-engine watch`. Exit status: 0 when the input was read to
// its end (or a signal ended a live stream), 2 on bad flags, a bad suite or
// an input/output failure. Its log lines go to stderr through a bounded
// queue (package logsink), as the server's.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// With SIGPIPE notified, a write to a closed stdout or stderr fails
	// with EPIPE instead of ending the process (os/signal, "SIGPIPE").
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	sink := logsink.New(stderr)
	defer sink.Flush(cli.FlushLogs)
	return RunEnv(ctx, args, stdin, stdout, sink, DefaultEnv())
}

// RunEnv is Run with the surroundings env, and stderr written as it is.
func RunEnv(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env Env) int {
	o, log, code := parse(args, stderr, env)
	if log == nil {
		return code
	}
	if env.MemoryLimit != nil {
		env.MemoryLimit(o.memoryLimit())
	}
	c, err := newCommand(o, env, log)
	if err != nil {
		log.Error(err.Error())
		fmt.Fprintf(stderr, "attest-engine watch: %v\n", err)
		return 2
	}
	if err := c.run(ctx, stdin, stdout); err != nil {
		log.Error(err.Error())
		fmt.Fprintf(stderr, "attest-engine watch: %v\n", err)
		return 2
	}
	return 0
}

func parse(args []string, stderr io.Writer, env Env) (options, *slog.Logger, int) {
	var o options
	fs := cli.NewFlagSet("attest-engine watch", watchUsage, stderr)
	fs.StringVar(&o.suite, "suite", "", "suite file: {\"assertions\": [{\"name\", \"type\", \"spec\"}, ...]} (required)")
	fs.StringVar(&o.in, "in", "", "input file of NDJSON traces or OTLP/JSON requests, - for stdin (default: stdin, unless --listen)")
	fs.StringVar(&o.out, "out", "-", "result file (NDJSON, appended), - for stdout")
	fs.StringVar(&o.format, "format", ingest.FormatAuto, "input format: auto, attest, otlp (trace requests) or otlp-logs (log requests)")
	fs.BoolVar(&o.follow, "follow", false, "at the end of --in FILE, wait for more lines (like tail -f)")
	rate := fs.String("sample", "1", "sampling rate from 0 to 1, by trace id (OpenTelemetry consistent probability)")
	shard := fs.String("shard", "", "take shard I of N (0-based), as I/N")
	shards := fs.Int("shards", 0, "number of shards, the index taken from JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs)")
	fs.StringVar(&o.history.Dir, "state-dir", "", "directory of the result history (drift and alerts), the input checkpoint and the --listen spool: what is read is counted once across crashes")
	fs.StringVar(&o.history.Fsync, "fsync", "", "with --state-dir: when the history is flushed to disk: always, interval or never (default never)")
	fs.StringVar(&o.history.Webhook, "alert-webhook", "", "with --state-dir: also POST drift alerts to this http(s) URL, signed with $"+WebhookSecretEnv)
	fs.StringVar(&o.listen, "listen", "", "also accept OTLP/HTTP (binary protobuf or JSON) on POST /v1/traces and POST /v1/logs at this address (loopback only)")
	fs.BoolVar(&o.listenAny, "listen-any-address", false, "let --listen bind a non-loopback address")
	fs.StringVar(&o.exportURL, "export-otlp", "", "also send each result as an OpenTelemetry gen_ai.evaluation.result event (OTLP/HTTP JSON log records) to this http(s) logs endpoint, such as http://127.0.0.1:4318/v1/logs")
	fs.StringVar(&o.exportFile, "export-otlp-file", "", "also append each trace's results as one OTLP/JSON log request line (gen_ai.evaluation.result events) to this file")
	fs.BoolVar(&o.deterministic, "deterministic", false, "no wall-clock fields; traces close by event time only: the same input gives the same bytes")
	fs.IntVar(&o.jobs, "jobs", runtime.GOMAXPROCS(0), "traces evaluated in parallel")
	fs.StringVar(&o.config, "config", "", "engine config file (providers, schema_dirs, ...)")
	cli.OfflineVar(fs, &o.offline)
	cli.DurationVar(fs, &o.timeout, "eval-timeout", 30*time.Second, "time limit per trace")
	cli.DurationVar(fs, &o.limits.Grace, "grace", ingest.DefaultGrace, "OTLP: how long a trace stays open after its root span ends")
	cli.DurationVar(fs, &o.limits.Idle, "idle", ingest.DefaultIdle, "OTLP: close a trace after this long without a span")
	fs.IntVar(&o.limits.OpenTraces, "max-open-traces", ingest.DefaultOpenTraces, "OTLP: traces assembled at once")
	fs.IntVar(&o.limits.SpansPerTrace, "max-spans", ingest.DefaultSpansPerTrace, "OTLP: spans kept per trace")
	fs.IntVar(&o.limits.Bytes, "max-open-bytes", ingest.DefaultBytes, "OTLP: span bytes held in open traces")
	fs.IntVar(&o.maxLine, "max-line", trace.MaxLineBytes, "longest input line, in bytes")
	cli.DurationVar(fs, &o.checkpointEvery, "checkpoint-every", time.Second, "with --state-dir: how often the input checkpoint is written (and the --listen spool released) while it moves")
	fs.Int64Var(&o.maxSpool, "max-spool", spool.DefaultMaxBytes, "with --listen and --state-dir: bytes of requests spooled until evaluated; past it, 503 and Retry-After")
	var level string
	cli.LogLevelVar(fs, &level)
	if code, ok := cli.Parse(fs, args); !ok {
		return o, nil, code
	}
	bad := func(format string, a ...any) (options, *slog.Logger, int) {
		fmt.Fprintf(stderr, "attest-engine watch: "+format+"\n", a...)
		return o, nil, 2
	}
	if fs.NArg() > 0 {
		return bad("unexpected argument %q", fs.Arg(0))
	}
	log, err := env.Logger(stderr, level)
	if err != nil {
		return bad("%v", err)
	}
	switch {
	case o.suite == "":
		return bad("--suite is required")
	case o.format != ingest.FormatAuto && o.format != ingest.FormatAttest && o.format != ingest.FormatOTLP && o.format != ingest.FormatOTLPLogs:
		return bad("--format %q: want auto, attest, otlp or otlp-logs", o.format)
	case o.jobs < 1 || o.jobs > 1024:
		return bad("--jobs %d: want 1 to 1024", o.jobs)
	case o.maxSpool < 1<<20 || o.maxSpool < 2*int64(o.maxLine):
		return bad("--max-spool %d: want at least 1048576 and twice --max-line", o.maxSpool)
	case o.maxLine < 1<<10 || o.maxLine > 1<<30:
		return bad("--max-line %d: want 1024 to 1073741824", o.maxLine)
	case o.checkpointEvery < time.Millisecond || o.checkpointEvery > time.Hour:
		return bad("--checkpoint-every %v: want 1ms to 1h", o.checkpointEvery)
	case o.follow && (o.in == "" || o.in == "-"):
		return bad("--follow needs --in FILE")
	case o.history.Dir != "" && o.in != "" && o.listen != "":
		return bad("--state-dir keeps one input's position: --in or --listen, not both (run one watch with its own state dir for each)")
	case o.limits.OpenTraces < 0 || o.limits.SpansPerTrace < 0 || o.limits.Bytes < 0:
		return bad("bounds must not be negative")
	}
	if msg := checkHistory(o.history); msg != "" {
		return bad("%s", msg)
	}
	if o.exportURL != "" {
		if msg := otlpexport.CheckURL(o.exportURL); msg != "" {
			return bad("--export-otlp: %s", msg) // not quoted: a URL may hold its token
		}
	}
	if o.history.Webhook != "" {
		o.history.WebhookSecret = env.Getenv(WebhookSecretEnv)
	}
	if o.in == "" && o.listen == "" {
		o.in = "-"
	}
	if o.rate, err = sample.ParseRate(*rate); err != nil {
		return bad("--%v", err)
	}
	var source string
	if o.shard, source, err = sample.FromEnv(*shard, *shards, env.Getenv); err != nil {
		return bad("%v", err)
	}
	if source != "" {
		log.Info("shard", "shard", o.shard.String(), "from", source)
	}
	return o, log, 0
}

// checkHistory says what is wrong with the history flags, "" when nothing.
func checkHistory(h HistoryConfig) string {
	switch {
	case h.Dir == "" && h.Fsync != "":
		return "--fsync needs --state-dir"
	case h.Dir == "" && h.Webhook != "":
		return "--alert-webhook needs --state-dir"
	case h.Fsync != "" && h.Fsync != "always" && h.Fsync != "interval" && h.Fsync != "never":
		return fmt.Sprintf("--fsync %q: want always, interval or never", h.Fsync)
	}
	if h.Webhook != "" {
		u, err := url.Parse(h.Webhook)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "--alert-webhook: want an http or https URL with a host" // not quoted: a hook URL may hold its token
		}
	}
	return ""
}

// openOut opens the result file: appended, so that a restarted consumer
// adds to what it wrote (de-duplicated by result_id). With repair (under
// --state-dir) a last line torn by a crash is cut first (cutTornLine).
func openOut(ctx context.Context, path string, stdout io.Writer, repair bool) (io.Writer, func() error, error) {
	if path == "-" || path == "" {
		return stdout, func() error { return nil }, nil
	}
	if err := cli.MakeParent(path); err != nil {
		return nil, nil, err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if repair {
		flags = os.O_RDWR | os.O_CREATE | os.O_APPEND
	}
	f, err := cli.OpenFile(ctx, path, flags, 0o644)
	if err != nil {
		return nil, nil, err
	}
	if repair {
		if err := cutTornLine(f); err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	return f, f.Close, nil
}
