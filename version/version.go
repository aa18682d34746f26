// version.go: the version constant and the version command.

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

// Run is the version command. It takes no arguments but -h or --help
// (its usage). Exit status: 0 printed, 2 usage.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprintln(stderr, "usage: attest-engine version\n\nPrints attest-engine and the engine's version, one line.")
		return 0
	}
	if len(args) > 0 {
		fmt.Fprintf(stderr, "attest-engine: version takes no arguments, got %q\n", args[0])
		return 2
	}
	Print(stdout)
	return 0
}
