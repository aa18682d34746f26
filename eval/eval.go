// eval.go: the eval command: flags, files, and the limits it shares with the server.

package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"attest-engine/cli"
	"attest-engine/report"
)

const evalUsage = `usage: attest-engine eval --trace <file|-> --assertions <file> [flags]

Validates each trace (spec §7) and evaluates the assertions over it, as
evaluate_batch does, then prints a report.

  --trace        one trace (a JSON object, possibly over many lines) or
                 NDJSON with one trace per line; "-" reads stdin
  --assertions   a JSON list of assertion objects, applied to every trace;
                 or one list per trace: a JSON list of such lists, or NDJSON
                 with one list per line (a file of one line is one document)

Exit status: 0 when nothing hard-failed, 1 when a result hard-failed or a
trace could not be evaluated (invalid trace, assertion error, timeout), 2 on
bad input (unreadable file, not JSON, bad flags).

Flags:
`

// MaxJobs bounds --jobs as the server bounds the requests in flight
// (rpc.MaxInFlight; a test of package main checks that they agree). A
// trace line is bounded as a request line is: trace.MaxLineBytes.
const MaxJobs = 64

// evalCmd is one run of the eval subcommand.
type evalCmd struct {
	tracePath, assertionsPath, configPath, outputPath string

	format report.Format
	// deterministic leaves out of the report what depends on the clock:
	// no timestamp, and every duration is 0.
	deterministic bool
	jobs          int
	dry           bool // --dry-run: plan, never evaluate (dryrun.go)
	ev            Evaluator
	con           *console
}

// Run runs `attest-engine eval` with the arguments after "eval" and returns
// the exit status. ctx ends the run early (SIGINT, SIGTERM): no further
// traces are read, the ones in hand finish, and the report is closed.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &evalCmd{con: newConsole(stderr)}
	if code, ok := c.parseFlags(args, stderr); !ok {
		return code
	}
	traces, closeTraces, err := openInput(ctx, c.tracePath, stdin)
	if err != nil {
		return c.badInput(cli.Named("--trace", err))
	}
	defer closeTraces()
	if c.assertionsPath == "-" && c.tracePath == "-" {
		return c.badInput(errors.New("--trace and --assertions cannot both read stdin"))
	}
	asserts, closeAsserts, err := openInput(ctx, c.assertionsPath, stdin)
	if err != nil {
		return c.badInput(cli.Named("--assertions", err))
	}
	defer closeAsserts()
	if c.dry {
		return c.dryRun(traces, asserts, stdout)
	}
	return c.run(ctx, traces, asserts, func() (io.Writer, func() error, error) {
		if c.outputPath == "" {
			return stdout, func() error { return nil }, nil
		}
		// os.Create's flags, but write-only: opened read-write, a FIFO
		// with no reader opened at once and took the report into its
		// buffer, to be lost, or blocked the run once it was full. Now the
		// open waits for a reader, as a shell's redirection does, and a
		// signal ends the wait.
		if err := cli.MakeParent(c.outputPath); err != nil {
			return nil, nil, fmt.Errorf("--output: %w", err)
		}
		f, err := cli.OpenFile(ctx, c.outputPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			return nil, nil, cli.Named("--output", err)
		}
		return f, f.Close, nil
	})
}

// parseFlags reads the flags, the config and builds the engine; on failure
// it has said why on stderr and returns the exit status.
func (c *evalCmd) parseFlags(args []string, stderr io.Writer) (int, bool) {
	fs := cli.NewFlagSet("attest-engine eval", evalUsage, stderr)
	fs.StringVar(&c.tracePath, "trace", "", "trace file (one trace, or NDJSON); - for stdin")
	fs.StringVar(&c.assertionsPath, "assertions", "", "assertions file (a list for every trace, or one list per trace)")
	fs.StringVar(&c.configPath, "config", "", "path of a JSON config file, as for the server")
	fs.StringVar(&c.outputPath, "output", "", "write the report to this file instead of stdout")
	format := fs.String("format", "text", "report format: text, json, junit or html")
	fs.BoolVar(&c.deterministic, "deterministic", false, "leave timestamps out of the report and report every duration as 0, so the same run gives the same bytes")
	cli.DurationVar(fs, &c.ev.Timeout, "eval-timeout", 30*time.Second, "per-trace time limit")
	fs.IntVar(&c.jobs, "jobs", min(runtime.GOMAXPROCS(0), 8), "traces evaluated at once")
	var offline bool
	cli.OfflineVar(fs, &offline)
	fs.BoolVar(&c.dry, "dry-run", false, "make no call: print the paid calls and the largest cost the run could make, per provider and model, from the cache, the price table and token bounds")
	if code, ok := cli.Parse(fs, args); !ok {
		return code, false
	}
	var err error
	switch {
	case fs.NArg() > 0:
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case c.tracePath == "":
		err = errors.New("--trace is required")
	case c.assertionsPath == "":
		err = errors.New("--assertions is required")
	case c.jobs < 1:
		err = fmt.Errorf("--jobs %d: want at least 1", c.jobs)
	case c.jobs > MaxJobs:
		// Each job holds a trace (and the pool sizes a queue by it): a
		// mistyped count must not exhaust memory. The server's bound serves.
		err = fmt.Errorf("--jobs %d: want at most %d", c.jobs, MaxJobs)
	}
	if err == nil {
		c.format, err = report.ParseFormat(*format)
		c.ev.Specs = c.format == report.FormatHTML
		c.ev.Keys = c.format == report.FormatJSON // what attest-engine diff reads
	}
	if err == nil && c.dry {
		// A dry run prints its table or object and writes no report: a
		// flag it would ignore is refused, so that CI waiting for a file
		// learns why there is none.
		switch {
		case c.outputPath != "":
			err = errors.New("--dry-run writes no report: it prints to stdout; drop --output")
		case c.format != report.FormatText && c.format != report.FormatJSON:
			err = fmt.Errorf("--dry-run prints text or json, not %s", c.format)
		}
	}
	if err == nil {
		c.ev.Engine, _, err = cli.LoadEngine(c.configPath, offline || c.dry) // a dry run cannot reach the network
	}
	if err == nil {
		for _, w := range c.ev.Engine.Warnings() {
			c.con.printf("attest-engine eval: warning: %s\n", w)
		}
	}
	if err != nil {
		c.con.printf("attest-engine eval: %v (attest-engine eval -h for usage)\n", err)
		return 2, false
	}
	return 0, true
}

func (c *evalCmd) badInput(err error) int {
	c.con.printf("attest-engine eval: %v\n", err)
	return 2
}

// openInput opens a named input file; "-" is stdin. ctx ends a wait for
// the writer of a FIFO.
func openInput(ctx context.Context, path string, stdin io.Reader) (io.Reader, func(), error) {
	if path == "-" {
		return stdin, func() {}, nil
	}
	f, err := cli.OpenFile(ctx, path, os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// inputName names an input in messages.
func inputName(path string) string {
	if path == "-" {
		return "stdin"
	}
	return path
}
