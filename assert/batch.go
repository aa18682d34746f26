// batch.go: the evaluation core shared by the server's evaluate_batch and the eval command: validate, evaluate under the deadline, recover, map to spec §5 codes.

package assert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"attest-engine/provider"
	"attest-engine/tape"
	"attest-engine/trace"
)

// Batch is one trace and the assertions to evaluate over it: the work of
// one evaluate_batch request (spec §2.2), or of one trace of the eval
// command.
type Batch struct {
	Trace       tape.Value // read in place; validated first (spec §7)
	SourceBytes int        // length of the text the trace was read from; 0 when unknown
}

// Run validates b's trace (spec §7), then evaluates its assertions under
// ctx's deadline (the batch's --eval-timeout). It returns one result per
// assertion, in request order, or why the batch has none: a *trace.Error,
// an *Error, a *provider.Error, context.DeadlineExceeded (a batch that
// finishes after its deadline is a timeout too, whatever it computed), or
// a *Panic. A panic never escapes Run; FailureOf maps each of these to its
// wire form.
//
// warn, when not nil, receives the warnings of the trace's validation (spec
// §6 lax mode), if there are any, whether the trace is valid or not. read
// is called once the trace is valid and returns the assertions to evaluate.
// Spec §7: an invalid trace fails before anything else of the batch is
// looked at, so whatever else may be wrong with a request (its assertions,
// its suite) is read there, not before. (Both are parameters, not fields of
// Batch, so that callers' closures stay on the stack: a hot path.)
func (e *Engine) Run(ctx context.Context, b Batch, warn func(warnings []string), read func(tr tape.Value) ([]Assertion, error)) (results []Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			results, err = nil, &Panic{Value: p, Stack: debug.Stack()}
		}
	}()
	warnings, terr := trace.ValidateValue(b.Trace, trace.Options{Strict: e.cfg.StrictStepTypes, SourceBytes: b.SourceBytes})
	if len(warnings) > 0 && warn != nil {
		warn(warnings)
	}
	if terr != nil {
		return nil, terr
	}
	list, err := read(b.Trace)
	if err != nil {
		return nil, err
	}
	results, err = e.EvaluateValue(ctx, b.Trace, list)
	if err == nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return results, err
}

// Panic is a panic recovered while evaluating a batch: a bug in the engine,
// answered ENGINE_ERROR (3001) while the engine goes on.
type Panic struct {
	Value any
	Stack []byte // the panicking goroutine's stack, for the log
}

func (p *Panic) Error() string {
	if err, ok := p.Value.(error); ok {
		return err.Error()
	}
	return fmt.Sprint(p.Value)
}

// Wire codes of spec §5 that an evaluation can end with. They are part of a
// published protocol: explicit numbers, never iota.
const (
	CodeInvalidTrace   = 1001 // INVALID_TRACE
	CodeAssertionError = 1002 // ASSERTION_ERROR
	CodeProviderError  = 2001 // PROVIDER_ERROR
	CodeEngineError    = 3001 // ENGINE_ERROR
	CodeTimeout        = 3002 // TIMEOUT
)

// ErrorType names an evaluation's code as spec §5 does (data.error_type);
// any other code is named ENGINE_ERROR.
func ErrorType(code int) string {
	switch code {
	case CodeInvalidTrace:
		return "INVALID_TRACE"
	case CodeAssertionError:
		return "ASSERTION_ERROR"
	case CodeProviderError:
		return "PROVIDER_ERROR"
	case CodeTimeout:
		return "TIMEOUT"
	}
	return "ENGINE_ERROR"
}

// Failure is why a batch has no results, in its wire form (spec §5).
type Failure struct {
	Code        int
	Message     string
	Detail      string
	Retryable   bool
	AssertionID string // the assertion at fault, for ASSERTION_ERROR; "" otherwise
}

// FailureOf maps an error of Run to its wire form; timeout is the batch's
// time limit, which the TIMEOUT message names. It is the one place where
// the engine's errors meet the spec's evaluation codes.
func FailureOf(err error, timeout time.Duration) *Failure {
	var (
		te *trace.Error
		ae *Error
		pe *provider.Error
		be *provider.BudgetError
		pp *Panic
	)
	switch {
	case errors.As(err, &te):
		return &Failure{Code: CodeInvalidTrace, Message: te.Message, Detail: te.Detail}
	case errors.As(err, &ae):
		return &Failure{Code: CodeAssertionError, Message: ae.Error(), Detail: ae.Detail, AssertionID: ae.AssertionID}
	case errors.As(err, &be):
		// A call budget_usd refused outside an assertion (a simulated
		// user's turn): no retry can fix it within this process.
		return &Failure{Code: CodeProviderError, Message: be.Error(), Retryable: false,
			Detail: "Raise budget_usd in the --config file, or start a new engine process: the budget is the process's."}
	case errors.As(err, &pe):
		// Spec §5 table: PROVIDER_ERROR is retryable, "invalid API key"
		// included (the SDK may retry once the key is fixed).
		// An offline cache miss is the one exception: no retry can fix it
		// (docs/protocol.md).
		return &Failure{Code: CodeProviderError, Message: pe.Message, Detail: pe.Detail, Retryable: !pe.Offline}
	case errors.Is(err, context.DeadlineExceeded):
		// Spec §5, TIMEOUT example.
		return &Failure{Code: CodeTimeout, Retryable: true,
			Message: fmt.Sprintf("evaluation timed out after %dms", (timeout+time.Millisecond-1)/time.Millisecond),
			Detail:  "LLM-backed assertions (layers 5-6) can be slow. Reduce batch size or increase the engine timeout via --eval-timeout flag."}
	case errors.As(err, &pp):
		return &Failure{Code: CodeEngineError, Message: "internal engine error: " + pp.Error(),
			Detail: "This is a bug in the engine; the engine keeps serving. Please report it with the engine log (stderr)."}
	default:
		return &Failure{Code: CodeEngineError, Message: "internal engine error: " + err.Error(),
			Detail: "This is a bug in the engine. Please report it with the engine log (stderr)."}
	}
}

// Encode reads a trace the caller holds decoded (an OTLP trace assembled
// from spans) as a tape, for Batch: it is encoded, then parsed. The caller
// may Release the Doc once the batch is evaluated.
func Encode(tr any) (*tape.Doc, error) {
	text, err := json.Marshal(tr)
	if err != nil {
		return nil, err
	}
	return tape.ParseUnique(text)
}
