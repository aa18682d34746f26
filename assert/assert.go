// assert.go: the package's core types: assertions, results, errors, and what a check reads.

package assert

import (
	"context"
	"fmt"
	"sync"

	"attest-engine/tape"
)

// Status is an assertion outcome (spec §2.2, result object).
type Status string

const (
	Pass     Status = "pass"
	SoftFail Status = "soft_fail"
	HardFail Status = "hard_fail"
)

// Assertion is one entry of an evaluate_batch request (spec §2.2).
type Assertion struct {
	ID        string
	Type      string
	Spec      map[string]any
	RequestID string // "" when the request carried none
	// AgentID scopes the assertion to the trace of the tree with this
	// agent_id (additive field "agent_id"; see scope.go); "" for the root.
	AgentID string
}

// Result is one entry of an evaluate_batch response (spec §2.2).
type Result struct {
	AssertionID string
	Status      Status
	Score       float64
	Explanation string
	Cost        float64
	DurationMS  int64
	RequestID   string // echoed when the assertion carried one
	// Skipped is set when the engine did not evaluate the assertion (see
	// Config.SkipAfterHardFail); it is sent as the additive field "skipped".
	Skipped bool
	// Replayed is set on a result answered from the idempotency record
	// (spec §2.2 request_id): a retry, not a new evaluation. Not on the wire.
	Replayed bool
	// FailedStep names the step where a failing trajectory check departs
	// from what was asked (trajectory.go); sent as the additive field
	// "failed_step".
	FailedStep *FailedStep
	// Judge is what an llm_judge with consistency, compare or
	// require_calibration adds (additive fields, docs/judges.md); nil
	// for every other result.
	Judge *JudgeInfo
	// Failure is why this one assertion could not be evaluated while the
	// others of its trace were: the eval command isolates a provider
	// failure or an offline cache miss to its assertion, as watch does.
	// Status is then empty. Never set on a result of evaluate_batch, whose
	// failures are the whole batch's (spec §5).
	Failure *Failure
}

// JudgeInfo is the additive fields of a judge result (docs/protocol.md):
// how many verdicts were drawn and how many agreed, whether the verdict was
// split, whether a pairwise verdict held in both orders, and whether the
// judge is calibrated. A client that knows none of them reads a result
// exactly as spec §2.2 defines it.
type JudgeInfo struct {
	Samples  int  // "samples": verdicts drawn (a pairwise verdict counts once per pair of orders)
	Agreeing int  // "agreeing": verdicts on the side of the result
	Split    bool // "split": true when no strict majority was reached: never a pass
	// PositionConsistent is "position_consistent" of a pairwise judge
	// (compare): every pair of orders gave the same verdict. Nil when not pairwise.
	PositionConsistent *bool
	// Calibrated is "calibrated" under require_calibration: false when the
	// certificate is missing, stale or below the floor. Nil when not required.
	Calibrated *bool
}

// Error is an assertion that could not be evaluated: ASSERTION_ERROR (1002).
// Its Error text is the spec's wire message, e.g.
// "assertion 'assert_007' failed: invalid regex '[unclosed'".
type Error struct {
	AssertionID string
	Message     string // what is wrong, e.g. "invalid regex '[unclosed'"
	Detail      string // what to do about it
}

func (e *Error) Error() string {
	return fmt.Sprintf("assertion '%s' failed: %s", e.AssertionID, e.Message)
}

// outcome is what a check decides; the caller turns it into a Result.
type outcome struct {
	pass        bool
	score       float64
	explanation string
	cost        float64
	// hard makes a failure hard even when the assertion is soft: the spec's
	// forbidden check is "hard fail on any match".
	hard bool
	// soft makes a failure soft even when the assertion is not: an
	// uncalibrated judge's verdict (calibration.go).
	soft  bool
	judge *JudgeInfo
	// failed is the step a failing trajectory check names (trajectory.go).
	failed *FailedStep
}

// check is a compiled assertion. eval must be safe for concurrent use: the
// same check may serve several batches at once.
type check interface {
	eval(ctx context.Context, in *input) (outcome, error)
}

// input is what a check reads: the trace, read in place, and a few views
// of it computed once.
type input struct {
	root  tape.Value // the trace
	steps tape.Value // its steps array; Missing when it has none

	callsOnce sync.Once
	calls     []toolCall  // the named top-level steps, built on first use (tracecheck.go)
	toolCalls []toolCall  // the tool calls among them (calls itself when all are)
	callRoom  [8]toolCall // holds both lists for a trace of up to 4 steps: no allocation of their own

	stepIndexOnce sync.Once
	stepIndex     []tape.Value // the steps, by index, made on first use (step)

	textMu  sync.Mutex // guards the last string made by text (target.go)
	textOf  tape.Value
	textStr string

	decodedOnce sync.Once
	decoded     map[string]any // the trace decoded whole, for the checks that walk it (decoded)

	treeOnce sync.Once
	nodes    []*treeNode // the trace tree, built on first use (tree.go)
}

func newInput(tr tape.Value) *input {
	in := &input{root: tr}
	if st := tr.Get("steps"); st.Kind() == tape.Array {
		in.steps = st
	}
	return in
}

// trace is the trace decoded whole (made on first use; shared, read-only)
// for the checks that walk all of it: trees, the judge's context, grounding
// sources. The hot checks read the tape.
func (in *input) trace() map[string]any {
	in.decodedOnce.Do(func() { in.decoded, _ = in.root.Any().(map[string]any) })
	return in.decoded
}

// step is top-level step i, or Missing. The first few are reached by a
// short walk; past them an index of every step, made once per batch, keeps
// a check over 10,000 matches from walking the steps for each.
func (in *input) step(i int) tape.Value {
	if i < 16 {
		return in.steps.Index(i)
	}
	in.stepIndexOnce.Do(func() {
		in.stepIndex = make([]tape.Value, 0, in.steps.Len())
		for st := range in.steps.Elems() {
			in.stepIndex = append(in.stepIndex, st)
		}
	})
	if i >= len(in.stepIndex) {
		return tape.Value{}
	}
	return in.stepIndex[i]
}

// stepList is the trace's steps decoded (see trace); nil when it has none.
func (in *input) stepList() []any {
	st, _ := in.trace()["steps"].([]any)
	return st
}

// specError is returned by compilers; the batch wraps it into an *Error.
type specError struct{ msg, detail string }

func (e *specError) Error() string { return e.msg }

func specErrorf(detail, format string, args ...any) error {
	return &specError{msg: fmt.Sprintf(format, args...), detail: detail}
}
