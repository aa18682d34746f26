// run.go: the calibrate command: flags, the suite's judges, judging the labelled items, the report and the certificate.

package calibrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"attest-engine/assert"
	"attest-engine/atomicfile"
	"attest-engine/cli"
	"attest-engine/clip"
	"attest-engine/suite"
	"attest-engine/tape"
	"attest-engine/trace"
)

const usage = `usage: attest-engine calibrate --suite SUITE --labels LABELS.jsonl [--out CERT.json] [flags]

Runs the suite's llm_judge assertions over human-labelled items, reports each
judge's agreement with the people (accuracy, confusion table, Cohen's κ,
quadratic-weighted κ, Krippendorff's α, the majority baseline, bootstrap 95%
intervals) and writes a certificate that require_calibration reads.

Exit status: 0 when every judge was calibrated, 1 when a judge could not
answer for some item (no certificate is written), 2 on bad input or flags.

Flags:
`

// cmd is one run of the command.
type cmd struct {
	suitePath, labelsPath, outPath, configPath string
	offline                                    bool
	seed                                       uint64
	replicates, jobs                           int
	timeout                                    time.Duration
}

// judge is one llm_judge assertion of the suite.
type judge struct {
	a         assert.Assertion
	decides   assert.JudgeDecides
	threshold float64
}

// Run runs `attest-engine calibrate` with the arguments after
// "calibrate" and returns the exit status.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var c cmd
	fs := cli.NewFlagSet("attest-engine calibrate", usage, stderr)
	fs.StringVar(&c.suitePath, "suite", "", "suite file: a watch suite ({\"assertions\": [...]}) or an eval assertions list")
	fs.StringVar(&c.labelsPath, "labels", "", "labelled items, NDJSON: {\"trace\", \"label\", \"labels\", \"assertion\"} (- for stdin)")
	fs.StringVar(&c.outPath, "out", "", "write the certificate to this file")
	fs.StringVar(&c.configPath, "config", "", "path of a JSON config file, as for the server")
	cli.OfflineVar(fs, &c.offline)
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the bootstrap intervals")
	fs.IntVar(&c.replicates, "replicates", 2000, "bootstrap replicates")
	fs.IntVar(&c.jobs, "jobs", min(runtime.GOMAXPROCS(0), 8), "items judged at once")
	cli.DurationVar(fs, &c.timeout, "eval-timeout", 30*time.Second, "per-item time limit")
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	bad := func(err error) int {
		fmt.Fprintf(stderr, "attest-engine calibrate: %v\n", err)
		return 2
	}
	var err error
	switch {
	case fs.NArg() > 0:
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case c.suitePath == "":
		err = errors.New("--suite is required")
	case c.labelsPath == "":
		err = errors.New("--labels is required")
	case c.jobs < 1 || c.jobs > 64:
		err = fmt.Errorf("--jobs %d: want 1 to 64", c.jobs)
	case c.replicates < 1 || c.replicates > 100_000:
		err = fmt.Errorf("--replicates %d: want 1 to 100000", c.replicates)
	}
	if err != nil {
		fmt.Fprintf(stderr, "attest-engine calibrate: %v (attest-engine calibrate -h for usage)\n", err)
		return 2
	}
	cfg, err := cli.LoadConfig(c.configPath, c.offline)
	if err != nil {
		return bad(err)
	}
	cfg.RequireCalibration = nil // calibration judges the judge itself
	engine, err := assert.New(cfg)
	if err != nil {
		return bad(err)
	}
	judges, err := c.readJudges(engine)
	if err != nil {
		return bad(err)
	}
	var labels io.Reader = stdin
	if c.labelsPath != "-" {
		f, err := os.Open(c.labelsPath)
		if err != nil {
			return bad(fmt.Errorf("--labels: %v", err))
		}
		defer f.Close()
		labels = f
	}
	hashed := &hashReader{r: labels}
	items, err := readLabels(hashed, c.labelsPath)
	if err != nil {
		return bad(err)
	}
	if err := forJudges(items, judges, c.labelsPath); err != nil {
		return bad(err)
	}
	verdicts, failures, err := c.judgeAll(ctx, engine, judges, items)
	if err != nil {
		return bad(err)
	}
	cert := assert.Certificate{Format: assert.CertificateFormat, LabelsSHA256: hashed.sum()}
	status := 0
	for j := range judges {
		if len(failures[j]) > 0 {
			status = 1
			slices.SortFunc(failures[j], func(a, b failure) int { return a.line - b.line }) // judged on several workers
			fmt.Fprintf(stdout, "judge %s: not calibrated: the judge could not answer for %d of its items\n", judges[j].a.ID, len(failures[j]))
			for i, f := range failures[j] {
				if i == 5 {
					fmt.Fprintf(stdout, "  … and %d more\n", len(failures[j])-i)
					break
				}
				fmt.Fprintf(stdout, "  line %d: %s\n", f.line, f.text)
			}
			continue
		}
		jc, ok := c.certify(&judges[j], items, verdicts[j])
		if !ok {
			status = 1
			fmt.Fprintf(stdout, "judge %s: not calibrated: no labelled item is for it\n", judges[j].a.ID)
			continue
		}
		writeReport(stdout, &jc)
		cert.Judges = append(cert.Judges, jc)
	}
	if status != 0 {
		if c.outPath != "" {
			fmt.Fprintf(stderr, "attest-engine calibrate: no certificate written to %s\n", c.outPath)
		}
		return status
	}
	if c.outPath != "" {
		if err := cli.MakeParent(c.outPath); err != nil {
			return bad(fmt.Errorf("--out: %v", err))
		}
		if err := atomicfile.Write(c.outPath, 0o644, atomicfile.SyncData, func(w io.Writer) error { return writeCertificate(w, &cert) }); err != nil {
			return bad(fmt.Errorf("--out: %v", err))
		}
	}
	return 0
}

// readJudges reads the suite's llm_judge assertions and what decides each.
func (c *cmd) readJudges(engine *assert.Engine) ([]judge, error) {
	f, err := os.Open(c.suitePath)
	if err != nil {
		return nil, fmt.Errorf("--suite: %v", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, suite.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("--suite: %v", err)
	}
	var list []assert.Assertion
	v, err := trace.Decode(data)
	switch {
	case err != nil:
		return nil, fmt.Errorf("suite %s: not JSON: %v", c.suitePath, err)
	case isList(v):
		if list, err = assert.Parse(v.([]any)); err != nil {
			return nil, fmt.Errorf("suite %s: %v", c.suitePath, err)
		}
	default:
		s, err := suite.Read(bytesReader(data), c.suitePath)
		if err != nil {
			return nil, err
		}
		list = s.Assertions
	}
	var out []judge
	for _, a := range list {
		if a.Type != "llm_judge" {
			continue
		}
		sp := make(map[string]any, len(a.Spec))
		for k, v := range a.Spec {
			if k != "require_calibration" {
				sp[k] = v
			}
		}
		a.Spec = sp
		d, err := engine.JudgeDecides(sp)
		if err != nil {
			return nil, fmt.Errorf("suite %s: assertion %q: %v", c.suitePath, a.ID, err)
		}
		thr, err := strconv.ParseFloat(d.Threshold, 64)
		if err != nil {
			return nil, fmt.Errorf("suite %s: assertion %q: threshold %q cannot be calibrated: set a number", c.suitePath, a.ID, d.Threshold)
		}
		out = append(out, judge{a: a, decides: d, threshold: thr})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("suite %s: no llm_judge assertion to calibrate", c.suitePath)
	}
	return out, nil
}

func isList(v any) bool { _, ok := v.([]any); return ok }

// forJudges checks that every item naming a judge names one of the
// suite's: a label for a judge that is not there (a typo, a judge renamed)
// would otherwise count for none, silently.
func forJudges(items []item, judges []judge, file string) error {
	ids := make(map[string]bool, len(judges))
	for _, j := range judges {
		ids[j.a.ID] = true
	}
	for _, it := range items {
		if it.assertion != "" && !ids[it.assertion] {
			names := make([]string, 0, len(judges))
			for _, j := range judges {
				names = append(names, strconv.Quote(j.a.ID))
			}
			return fmt.Errorf("%s: line %d: \"assertion\": %s is not an llm_judge assertion of the suite (%s)",
				file, it.line, strconv.Quote(clip.String(it.assertion, 100)), strings.Join(names, ", "))
		}
	}
	return nil
}

// verdict is a judge's answer on one item; ok is false when the item is
// not for the judge.
type verdict struct {
	ok    bool
	pass  bool
	score float64
}

// judgeAll judges every item with every judge it is for, on c.jobs
// workers: verdicts[j][i], and for each judge what it could not answer.
// An invalid trace is bad input.
// failure is an item a judge could not answer for.
type failure struct {
	line int
	text string
}

func (c *cmd) judgeAll(ctx context.Context, engine *assert.Engine, judges []judge, items []item) ([][]verdict, [][]failure, error) {
	verdicts := make([][]verdict, len(judges))
	for j := range verdicts {
		verdicts[j] = make([]verdict, len(items))
	}
	failures := make([][]failure, len(judges))
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, c.jobs)
	var wg sync.WaitGroup
	for i := range items {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			it := &items[i]
			var list []assert.Assertion
			var which []int
			for j := range judges {
				if it.assertion == "" || it.assertion == judges[j].a.ID {
					list = append(list, judges[j].a)
					which = append(which, j)
				}
			}
			if len(list) == 0 {
				return
			}
			for k, j := range which {
				ictx, cancel := context.WithTimeout(ctx, c.timeout)
				rs, err := engine.Run(ictx, assert.Batch{Trace: it.doc.Root(), SourceBytes: it.size}, nil,
					func(tape.Value) ([]assert.Assertion, error) { return list[k : k+1], nil })
				cancel()
				mu.Lock()
				if err != nil {
					f := assert.FailureOf(err, c.timeout)
					if f.Code == assert.CodeInvalidTrace || f.Code == assert.CodeAssertionError {
						if firstErr == nil {
							firstErr = fmt.Errorf("%s: line %d: %s", c.labelsPath, it.line, f.Message)
						}
					} else {
						failures[j] = append(failures[j], failure{it.line, assert.ErrorType(f.Code) + ": " + f.Message})
					}
				} else if rs[0].Skipped { // budget_usd stopped it: no verdict
					failures[j] = append(failures[j], failure{it.line, rs[0].Explanation})
				} else {
					verdicts[j][i] = verdict{ok: true, pass: rs[0].Status == assert.Pass, score: rs[0].Score}
				}
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = errors.New("interrupted")
	}
	return verdicts, failures, firstErr
}
