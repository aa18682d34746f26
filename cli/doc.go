// Package cli holds the rules every subcommand of attest-engine shares, each
// written once: how flags are parsed (-h prints the usage and exits 0, a bad
// flag exits 2), how a duration flag is read (a Go duration or a bare number
// of milliseconds), what --offline means, the log level and log format,
// how a named file is opened (a FIFO's wait ends with a signal) and how an
// output file's directory is made.
//
// # The subcommand convention
//
// Each command lives in a package of its own (eval, watch, merge, reportcmd,
// serve, version, …) and exports
//
//	func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
//
// with its flags, usage text and exit status beside it: 0 done, 1 the work
// failed (or, for eval, a result hard-failed), 2 usage or input errors.
// ctx ends at the first SIGINT or SIGTERM (main.go). main.go only
// dispatches by the first argument; storage packages (history, report, …)
// hold no command-line code. docs/layout.md has the table.
package cli
