// evaluate.go: one trace in, one result per suite assertion out, whatever fails.

package watch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"attest-engine/assert"
	"attest-engine/ingest"
	"attest-engine/trace"
)

// Evaluator evaluates assertions against a validated trace, as
// assert.Engine does: one result per assertion, or an error for the batch.
type Evaluator interface {
	Evaluate(ctx context.Context, tr map[string]any, as []assert.Assertion) ([]assert.Result, error)
}

// contentTypes need the messages of a trace (layers 4 to 6): with content
// not captured they are skipped, never passed or failed on empty text.
var contentTypes = map[string]bool{"content": true, "embedding": true, "llm_judge": true}

const notCaptured = "skipped: content not captured (the trace's spans carry no gen_ai.input.messages, gen_ai.output.messages or deprecated gen_ai.prompt/gen_ai.completion; turn on message content capture in the GenAI instrumentation)"

// evaluator turns a trace into result lines.
type evaluator struct {
	engine    Evaluator
	wire      func(err error) ResultError
	strict    bool
	timeout   time.Duration
	suite     *Suite
	version   string
	wallClock bool // add ts and duration_ms
}

// results evaluates one trace: exactly one line per suite assertion, in
// suite order. A failure of one assertion (a bad spec, a provider outage)
// is that line's error; the others are evaluated all the same.
func (e *evaluator) results(t ingest.Trace) (out []Result) {
	start := time.Now()
	as := e.suite.Assertions
	out = make([]Result, len(as))
	id := t.ID
	key := id
	if t.Err != nil {
		id, key = "", "line-sha256:"+t.Digest
	}
	agent, _ := t.Value["agent_id"].(string)
	for i, a := range as {
		out[i] = Result{TraceID: id, Assertion: a.ID, Type: a.Type, ResultID: resultID(key, a.ID, e.suite.Hash, e.version),
			AgentID: agent, Incomplete: t.Incomplete, Seq: t.Seq}
	}
	defer func() {
		if p := recover(); p != nil {
			e.failAll(out, nil, ResultError{Code: 3001, Message: fmt.Sprintf("internal engine error: %v", p)})
		}
		if e.wallClock {
			ms := time.Since(start).Milliseconds()
			ts := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
			for i := range out {
				out[i].DurationMS, out[i].TS = &ms, ts
			}
		}
	}()
	if t.Err != nil {
		e.failAll(out, nil, ResultError{Code: 1001, Message: t.Err.Error()})
		return out
	}
	// Spec §7: every trace is validated before any assertion runs.
	if _, verr := trace.Validate(t.Value, trace.Options{Strict: e.strict, SourceBytes: t.Size}); verr != nil {
		e.failAll(out, nil, e.wire(verr))
		return out
	}
	var run []int
	for i, a := range as {
		if !t.ContentCaptured && contentTypes[a.Type] {
			out[i].Status, out[i].Explanation = StatusSkipped, notCaptured
			continue
		}
		run = append(run, i)
	}
	if len(run) == 0 {
		return out
	}
	batch := make([]assert.Assertion, len(run))
	for k, i := range run {
		batch[k] = as[i]
	}
	rs, err := e.evaluate(t.Value, batch)
	if err == nil {
		for k, i := range run {
			e.fill(&out[i], rs[k])
		}
		return out
	}
	var te *timeoutError
	if len(run) == 1 || errors.As(err, &te) {
		// One assertion, or the whole batch out of time: evaluating the
		// assertions one by one would only repeat the failure.
		e.failAll(out, run, e.wire(err))
		return out
	}
	for _, i := range run {
		rs, err := e.evaluate(t.Value, []assert.Assertion{as[i]})
		if err != nil {
			e.failAll(out, []int{i}, e.wire(err))
			continue
		}
		e.fill(&out[i], rs[0])
	}
	return out
}

// timeoutError marks a batch that ran out of time.
type timeoutError struct{ error }

func (e *timeoutError) Unwrap() error { return e.error }

func (e *evaluator) evaluate(tr map[string]any, as []assert.Assertion) ([]assert.Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
	defer cancel()
	rs, err := e.engine.Evaluate(ctx, tr, as)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err() // as the server does: a late batch is a timeout
	}
	if err != nil && errors.Is(err, context.DeadlineExceeded) {
		return nil, &timeoutError{err}
	}
	if err == nil && len(rs) != len(as) {
		err = fmt.Errorf("the engine returned %d results for %d assertions", len(rs), len(as))
	}
	return rs, err
}

func (e *evaluator) fill(r *Result, a assert.Result) {
	r.Status, r.Score, r.Explanation, r.Cost = string(a.Status), a.Score, a.Explanation, a.Cost
	if a.Skipped {
		r.Status = StatusSkipped
	}
}

// failAll marks the results at idx (all when idx is nil) as errors.
func (e *evaluator) failAll(out []Result, idx []int, re ResultError) {
	set := func(i int) {
		r := re
		out[i].Status, out[i].Score, out[i].Explanation, out[i].Error = StatusError, 0, re.Message, &r
	}
	if idx == nil {
		for i := range out {
			set(i)
		}
		return
	}
	for _, i := range idx {
		set(i)
	}
}
