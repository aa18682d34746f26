// flags.go: the server's flags and its usage, which is also the engine's.

package serve

import (
	"flag"
	"fmt"
	"io"
	"time"

	"attest-engine/cli"
)

// options are the server's flags.
type options struct {
	logLevel, configPath, reportPath, stateDir string
	evalTimeout                                time.Duration
	showVersion, offline                       bool
}

func (o *options) flagSet(stderr io.Writer) *flag.FlagSet {
	fs := cli.NewFlagSet("attest-engine", Usage, stderr)
	cli.LogLevelVar(fs, &o.logLevel)
	fs.StringVar(&o.configPath, "config", "", "path of a JSON config file")
	cli.DurationVar(fs, &o.evalTimeout, "eval-timeout", 30*time.Second, "per-batch time limit")
	fs.BoolVar(&o.showVersion, "version", false, "print the engine version and exit")
	cli.OfflineVar(fs, &o.offline)
	fs.StringVar(&o.reportPath, "report", "", "at shutdown, write every result of the session to this file (.xml JUnit, .json JSON, .html/.htm HTML, else text)")
	fs.StringVar(&o.stateDir, "state-dir", "", "keep a history of results in this directory: query_drift, threshold \"dynamic\", drift alerts")
	return fs
}

// UsageError says what is wrong, prints the engine's usage and returns 2,
// the exit status of a usage error: for the server's arguments and for a
// subcommand main does not know.
func UsageError(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "attest-engine: "+format+"\n", a...)
	var o options
	o.flagSet(stderr).Usage()
	return 2
}
