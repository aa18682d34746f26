// command.go: the merge command: flags, usage, exit status.

package merge

import (
	"context"
	"fmt"
	"io"

	"attest-engine/cli"
	"attest-engine/history"
)

// Run is the merge command. ctx and stdin are unused: a merge reads only
// the dirs it is given and is not interruptible part-way (history.Merge
// writes dst once, at its Close).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := cli.NewFlagSet("attest-engine merge", "usage: attest-engine merge DST SRC [SRC...]\n\nAdds the summaries of the state dirs SRC (the --state-dir of each shard) into DST.\n", stderr)
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	if fs.NArg() < 2 {
		fs.Usage()
		return 2
	}
	dst, srcs := fs.Arg(0), fs.Args()[1:]
	if err := history.Merge(dst, srcs...); err != nil {
		fmt.Fprintf(stderr, "attest-engine merge: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "merged %d state dirs into %s\n", len(srcs), dst)
	return 0
}
