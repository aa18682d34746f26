// Command attest-engine is the Attest protocol's evaluation engine: an SDK
// spawns it and speaks JSON-RPC 2.0 over its stdin and stdout, one compact
// JSON object per line (../shared/spec/attest-protocol-v1.md). Logs go to
// stderr as JSON lines; stdout carries protocol lines and nothing else.
//
// main only dispatches: each command is a package with its flags, usage and
// exit status beside its Run (package cli, "The subcommand convention";
// docs/layout.md).
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"attest-engine/calibrate"
	"attest-engine/eval"
	"attest-engine/merge"
	"attest-engine/reportcmd"
	"attest-engine/rundiff"
	"attest-engine/serve"
	"attest-engine/version"
	"attest-engine/watch"
)

func main() {
	paceGC()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// command is a subcommand's entry point: its exit status.
type command func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int

// lookup is the subcommand named name, nil for none (a switch, not a map:
// nothing is built at start-up).
func lookup(name string) command {
	switch name {
	case "calibrate":
		return calibrate.Run
	case "eval":
		return eval.Run
	case "watch":
		return watch.Run
	case "merge":
		return merge.Run
	case "report":
		return reportcmd.Run
	case "diff":
		return rundiff.Run
	case "version": // the earlier engine's subcommand (../shared/sdk-compat.md)
		return version.Run
	}
	return nil
}

// run runs the command args name (the server when the first argument is a
// flag or there is none). A subcommand's context ends at the first SIGINT or
// SIGTERM, and a second signal ends its process at once. The server handles
// both itself, installing its handlers once initialize is answered, and keeps
// draining at a second (spec §2.3, bounded by its drain timeout).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return serve.Run(context.Background(), args, stdin, stdout, stderr)
	}
	cmd := lookup(args[0])
	if cmd == nil {
		return serve.UsageError(stderr, "unknown command %q", args[0])
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	context.AfterFunc(ctx, stop)
	return cmd(ctx, args[1:], stdin, stdout, stderr)
}
