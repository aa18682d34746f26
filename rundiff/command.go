// command.go: `attest-engine diff`: flags, usage, exit status.

package rundiff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"attest-engine/cli"
)

const usage = `usage: attest-engine diff --base A --head B [--format text|json|junit|markdown] [--output FILE]
                          [--alpha 0.05] [--detectable 0.10] [--seed 1]

Compares two runs (JSON reports of eval or of a server's --report, or watch's result lines): results are
paired on (case key, assertion key, repeat), and each assertion key is regressed, improved, unchanged or
underpowered. Exit status: 1 when a key regressed, 0 otherwise, 2 on bad input.

`

// Run is the diff command.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := cli.NewFlagSet("attest-engine diff", usage, stderr)
	base := fs.String("base", "", "the run compared against (required)")
	head := fs.String("head", "", "the run under test (required)")
	format := fs.String("format", "text", "text, json, junit or markdown")
	output := fs.String("output", "", "write the comparison to this file (default: stdout)")
	alpha := fs.Float64("alpha", 0.05, "the family-wise error rate of each direction (regressions, improvements)")
	detectable := fs.Float64("detectable", 0.10, `"unchanged" needs the data to be able to show a drop in pass rate this large (power 0.8)`)
	seed := fs.Uint64("seed", 1, "the seed of the sign-flip test on graded scores")
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "attest-engine diff: "+format+"\n", a...)
		return 2
	}
	switch {
	case fs.NArg() > 0:
		return fail("unexpected argument %q", fs.Arg(0))
	case *base == "" || *head == "":
		return fail("--base and --head are required")
	case !(*alpha > 0 && *alpha < 0.5):
		return fail("--alpha %g: want a number above 0 and below 0.5", *alpha)
	case !(*detectable > 0 && *detectable <= 1):
		return fail("--detectable %g: want a number above 0, at most 1", *detectable)
	}
	write := map[string]func(io.Writer, *Report) error{"text": writeText, "json": writeJSON, "junit": writeJUnit, "markdown": writeMarkdown}[*format]
	if write == nil {
		return fail("--format %q: want text, json, junit or markdown", *format)
	}
	r, err := Compare(*base, *head, Options{Alpha: *alpha, Detectable: *detectable, Seed: *seed})
	if err != nil {
		return fail("%v", err)
	}
	out := stdout
	var file *os.File
	if *output != "" {
		if err := cli.MakeParent(*output); err != nil {
			return fail("--output: %v", err)
		}
		if file, err = cli.OpenFile(ctx, *output, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644); err != nil {
			return fail("%v", cli.Named("--output", err))
		}
		out = file
	}
	err = write(out, r)
	if file != nil {
		err = errors.Join(err, file.Close())
	}
	if err != nil {
		return fail("writing the comparison: %v", err)
	}
	if r.Regressed > 0 {
		return 1
	}
	return 0
}

// Compare reads both runs, pairs them and decides every assertion key.
func Compare(basePath, headPath string, o Options) (*Report, error) {
	var base, head *run
	var baseErr, headErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		head, headErr = load(headPath)
	}()
	base, baseErr = load(basePath)
	<-done
	if err := errors.Join(baseErr, headErr); err != nil {
		return nil, err
	}
	p := pairRuns(base, head)
	r := &Report{Base: basePath, Head: headPath, Alpha: o.Alpha, Detectable: o.Detectable, Seed: o.Seed,
		Keys: decide(p, o), OnlyBase: []Unpaired{}, OnlyHead: []Unpaired{}, ReplacedBase: base.replaced, ReplacedHead: head.replaced}
	for i := range r.Keys {
		k := &r.Keys[i]
		r.Pairs += k.Pairs
		switch k.Verdict {
		case Regressed:
			r.Regressed++
		case Improved:
			r.Improved++
		case Unchanged:
			r.Unchanged++
		default:
			r.Underpowered++
		}
	}
	var err error
	if r.OnlyBase, err = unpaired(base.src, p.onlyBase); err != nil {
		return nil, err
	}
	if r.OnlyHead, err = unpaired(head.src, p.onlyHead); err != nil {
		return nil, err
	}
	return r, nil
}

// unpaired names the results at positions (sorted) of a run, reading them again: pairing keeps no names,
// so memory follows the results' count, not their text.
func unpaired(src *source, positions []int32) ([]Unpaired, error) {
	out := make([]Unpaired, 0, len(positions))
	err := src.reread(positions, func(_ int32, res *result) {
		out = append(out, Unpaired{Case: string(res.caseKey), AssertionKey: string(res.assertion), Label: string(res.label.text())})
	})
	return out, err
}
