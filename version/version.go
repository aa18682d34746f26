// Package version is the engine's version, the one place it is written, and
// the version command that prints it (`attest-engine version`, the earlier
// engine's subcommand, ../shared/sdk-compat.md). The server reports it as
// engine_version (spec §2.1); the watch command puts it in every result_id.
package version

import (
	"context"
	"fmt"
	"io"
)

// Engine is the engine's semver.
const Engine = "0.1.0"

// Print writes what --version and the version command print: the earlier
// engine's "attest-engine <semver>", one line.
func Print(w io.Writer) {
	fmt.Fprintf(w, "attest-engine %s\n", Engine)
}

// Run is the version command. It takes no arguments (-h included: the
// earlier engine's command took none). Exit status: 0 printed, 2 usage.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "attest-engine: version takes no arguments, got %q\n", args[0])
		return 2
	}
	Print(stdout)
	return 0
}
