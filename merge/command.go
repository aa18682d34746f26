// Package merge is `attest-engine merge DST SRC...`: it adds the result
// histories of shards (the --state-dir of each) into one state dir with
// history.Merge. Its flags, usage and exit status live here; the storage
// rules (what a merge sums, what it refuses) live in package history.
//
// Exit status: 0 merged or -h, 1 the merge failed (nothing merged: among
// others, sources naming more assertion keys than a state dir summarizes,
// history.TooManyKeys), 2 usage.
package merge

import (
	"context"
	"flag"
	"fmt"
	"io"

	"attest-engine/cli"
	"attest-engine/history"
)

// Run is the merge command. ctx and stdin are unused: a merge reads only
// the dirs it is given and is not interruptible part-way (history.Merge
// writes dst once, at its Close).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("attest-engine merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: attest-engine merge DST SRC [SRC...]\n\nAdds the summaries of the state dirs SRC (the --state-dir of each shard) into DST.")
	}
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
