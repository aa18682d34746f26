// evaluate.go: one trace in, one result per suite assertion out, whatever fails, through the engine's evaluation core.

package watch

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"attest-engine/assert"
	"attest-engine/ingest"
	"attest-engine/resultkey"
	"attest-engine/suite"
	"attest-engine/tape"
)

// contentTypes need the messages of a trace (layers 4 to 6): with content
// not captured they are skipped, never passed or failed on empty text.
var contentTypes = map[string]bool{"content": true, "embedding": true, "llm_judge": true}

// A check whose input no producer sent is skipped, never passed or failed
// on what is not there, and says what was looked for (ingest.LookedFor):
// content (content, embedding and judge assertions), token usage
// (constraints on a tokens field, trace_tree aggregate_tokens), cost (a
// cost assertion, when no producer sent one and none could be derived:
// cost.go), tool calls (trace assertions, trace_tree
// all_tools_called) when no tool span came and content capture was off. Attest traces carry what they carry: only traces
// assembled from spans are judged absent.
var (
	notCaptured = "skipped: content not captured: no message content in any of " + ingest.LookedFor("content") + "; turn on message content capture in the GenAI instrumentation"
	noTokens    = "skipped: no token usage sent: none of " + ingest.LookedFor("tokens") + " is set (a streaming call without usage reporting sends none)"
	noCost      = "skipped: no cost sent: none of " + ingest.LookedFor("cost") + " is set, and no price is known to derive one from the token counts"
	noTools     = "skipped: no tool calls sent: the trace has no tool span (" + ingest.LookedFor("tools") + ") and, with content capture off, its messages name none; turn on message content capture or record tool spans"
)

// absence is the reason assertion a cannot be judged on t, or "".
func absence(t ingest.Trace, a assert.Assertion) string {
	if t.Format != ingest.FormatOTLP {
		return ""
	}
	switch {
	case !t.ContentCaptured && contentTypes[a.Type]:
		return notCaptured
	case !t.TokensCaptured && reads(a, "tokens"):
		return noTokens
	case !t.ToolsCaptured && (a.Type == "trace" || reads(a, "tools")):
		return noTools
	}
	return ""
}

// reads reports whether an assertion reads token counts ("tokens") or
// costs ("cost"): a constraint on a field naming them, or a trace_tree
// aggregate of them.
func reads(a assert.Assertion, what string) bool {
	switch a.Type {
	case "constraint":
		f, _ := a.Spec["field"].(string)
		return strings.Contains(f, what)
	case "trace_tree":
		c, _ := a.Spec["check"].(string)
		return c == "aggregate_"+what || what == "tools" && c == "all_tools_called"
	}
	return false
}

// tooLate explains a verdict that supersedes one judged without spans that
// came after it, when the trace's other spans were no longer held.
const tooLate = "skipped: %d span(s) of this trace came after its verdict %s was given and after its other spans were let go (--idle, or the span byte bound), so it cannot be evaluated again; that verdict was judged without them and no longer counts"

// evaluator turns a trace into result lines with assert.Engine.Run, the
// core evaluate_batch and eval share: validation (spec §7), evaluation
// under the deadline, panics recovered, errors mapped by assert.FailureOf.
type evaluator struct {
	engine    *assert.Engine
	timeout   time.Duration
	suite     *suite.Suite
	version   string
	wallClock bool // add ts and duration_ms
	warn      func(msg string)

	// price is the engine's price table; costly[i] marks the suite's
	// assertions that read a cost (isCostAssertion).
	price  priceFunc
	costly []bool

	mu     sync.Mutex
	warned map[string]bool        // validation warnings logged once each
	bad    map[string]ResultError // assertions whose spec does not compile, by name
}

// maxWarnings bounds the distinct validation warnings remembered.
const maxWarnings = 64

// results evaluates one trace: exactly one line per suite assertion, in
// suite order. A failure of one assertion (a bad spec, a provider outage)
// is that line's error; the others are evaluated all the same. For a trace
// built from OTLP spans the cost is derived first (cost.go): a cost
// assertion then says in its explanation that the cost was derived, and
// from which table, and is skipped, saying why, when it could not be.
func (e *evaluator) results(t ingest.Trace) []Result {
	var ci costInfo
	out := e.evaluate(t, &ci)
	if ci.derived {
		for i := range out {
			if e.reads(i) && out[i].Error == nil && out[i].Status != StatusSkipped {
				out[i].Explanation += " (metadata.cost_usd derived from the spans' gen_ai.usage token counts at " + ci.table + ")"
			}
		}
	}
	return out
}

func (e *evaluator) evaluate(t ingest.Trace, ci *costInfo) (out []Result) {
	start := time.Now()
	as := e.suite.Assertions
	out = make([]Result, len(as))
	id, key := t.ID, t.ID
	if t.Err != nil {
		id, key = "", "line-sha256:"+t.Digest
	}
	for i, a := range as {
		rid, sup := verdictIDs(resultID(key, a.ID, e.suite.Hash, e.version), &t)
		out[i] = Result{TraceID: id, Assertion: a.ID, AssertionKey: e.suite.Keys[i], Type: a.Type, ResultID: rid, Supersedes: sup,
			AgentID: t.AgentID, Incomplete: t.Incomplete || t.TooLate, Seq: t.Seq, Through: t.Through, Spans: t.Spans, hold: t.Hold, SpanID: t.SpanID}
	}
	var text *[]byte // the JSON text of a trace assembled from spans, which t.Doc reads
	defer func() {
		if t.Doc != nil {
			t.Doc.Release() // evaluated: nothing reads the tape after
		}
		if text != nil {
			putText(text)
		}
		if p := recover(); p != nil { // Run recovers its own; this guards the rest
			fail(out, nil, ResultError{Code: assert.CodeEngineError, Message: fmt.Sprintf("internal engine error: %v", p)})
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
		fail(out, nil, ResultError{Code: assert.CodeInvalidTrace, Message: t.Err.Error()})
		return out
	}
	if t.TooLate {
		for i := range out {
			// No agent_id: the trace's mapping is gone (after a restart,
			// always), and a line must not depend on when it was written.
			out[i].Status, out[i].LateSpans, out[i].AgentID = StatusSkipped, t.Late, ""
			out[i].Explanation = fmt.Sprintf(tooLate, t.Late, out[i].Supersedes)
		}
		return out
	}
	costKnown := true
	if t.Doc == nil { // assembled from spans: read as a tape once, released above
		if e.oversize(t, out) {
			return out
		}
		// A cost the producer sent (OpenInference's llm.cost.total) is
		// the cost; else it is derived from the token counts when prices
		// are known; else no cost check can be judged.
		costKnown = t.CostCaptured
		if e.price != nil && !t.CostCaptured {
			*ci = deriveCost(t.Value, e.price)
			costKnown = ci.derived
		}
		text = getText()
		var err error
		*text, err = ingest.AppendJSON((*text)[:0], t.Value)
		var doc *tape.Doc
		if err == nil {
			doc, err = tape.ParseUnique(*text)
		}
		if err != nil {
			f := assert.FailureOf(err, e.timeout)
			fail(out, nil, wire(f))
			return out
		}
		// Validation's size rules may skip measuring a trace whose text,
		// doubled, is within them: the text is this one.
		t.Doc, t.Size = doc, len(*text)
	}
	root := t.Doc.Root()
	in := root.Get("input")
	if ck, err := resultkey.Case(root.Get("agent_id").Str(), in.Any(), in.Exists()); err == nil {
		for i := range out {
			out[i].CaseKey = ck
		}
	}
	var run []int
	for i, a := range as {
		if why := absence(t, a); why != "" {
			out[i].Status, out[i].Explanation = StatusSkipped, why
			continue
		}
		if !costKnown && (e.reads(i) || reads(as[i], "cost")) {
			out[i].Status, out[i].Explanation = StatusSkipped, noCost
			if ci.why != "" {
				out[i].Explanation = "skipped: the trace's cost could not be derived from its spans: " + ci.why
			}
			continue
		}
		run = append(run, i)
	}
	// An assertion that cannot be compiled (1002) fails the same way on
	// every trace: once known, it is failed without being run again.
	run = e.dropBad(out, run)
	for len(run) > 0 {
		batch := make([]assert.Assertion, len(run))
		for k, i := range run {
			batch[k] = as[i]
		}
		rs, f := e.run(t, batch, true)
		switch {
		case f == nil:
			for k, i := range run {
				fill(&out[i], rs[k])
			}
			return out
		case f.Code == assert.CodeInvalidTrace:
			// Spec §7: an invalid trace fails before any assertion runs.
			fail(out, nil, wire(f))
			return out
		case f.Code == assert.CodeAssertionError && e.markBad(f):
			run = e.dropBad(out, run) // and the rest again
			continue
		case len(run) == 1 || f.Code == assert.CodeTimeout:
			// One assertion, or the whole batch out of time: evaluating the
			// assertions one by one would only repeat the failure.
			fail(out, run, wire(f))
			return out
		}
		for _, i := range run { // one by one: only the failing ones carry an error
			rs, f := e.run(t, as[i:i+1], false)
			if f != nil {
				if f.Code == assert.CodeAssertionError {
					e.markBad(f)
				}
				fail(out, []int{i}, wire(f))
				continue
			}
			fill(&out[i], rs[0])
		}
		return out
	}
	return out
}

// texts are the buffers the traces assembled from spans are written into
// as JSON for evaluation: the text is read (tape.Doc) only while the trace
// is evaluated, and its next trace is written in the same bytes. A buffer
// grown past maxKeptText by a large trace is let go.
var texts = sync.Pool{New: func() any { return new([]byte) }}

const maxKeptText = 64 << 10

func getText() *[]byte { return texts.Get().(*[]byte) }

func putText(b *[]byte) {
	if cap(*b) > maxKeptText {
		*b = nil
	}
	texts.Put(b)
}

// run evaluates a batch of the trace's assertions under the per-trace
// deadline; the failure, if any, is in its wire form.
func (e *evaluator) run(t ingest.Trace, as []assert.Assertion, warn bool) ([]assert.Result, *assert.Failure) {
	ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
	defer cancel()
	var onWarn func([]string)
	if warn {
		onWarn = e.logWarnings
	}
	rs, err := e.engine.Run(ctx, assert.Batch{Trace: t.Doc.Root(), SourceBytes: t.Size}, onWarn,
		func(tape.Value) ([]assert.Assertion, error) { return as, nil })
	if err == nil && len(rs) != len(as) {
		err = fmt.Errorf("the engine returned %d results for %d assertions", len(rs), len(as))
	}
	if err != nil {
		return nil, assert.FailureOf(err, e.timeout)
	}
	return rs, nil
}

func wire(f *assert.Failure) ResultError {
	return ResultError{Code: f.Code, Message: f.Message, Retryable: f.Retryable}
}

// markBad remembers the assertion an ASSERTION_ERROR names (its spec does
// not compile: the same on every trace); false when it names none of the
// suite's.
func (e *evaluator) markBad(f *assert.Failure) bool {
	for _, a := range e.suite.Assertions {
		if a.ID == f.AssertionID {
			e.mu.Lock()
			if e.bad == nil {
				e.bad = map[string]ResultError{}
			}
			e.bad[a.ID] = wire(f)
			e.mu.Unlock()
			return true
		}
	}
	return false
}

// dropBad fails the known-bad assertions among run and returns the rest.
func (e *evaluator) dropBad(out []Result, run []int) []int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.bad) == 0 {
		return run
	}
	kept := run[:0:0]
	for _, i := range run {
		if re, ok := e.bad[e.suite.Assertions[i].ID]; ok {
			fail(out, []int{i}, re)
			continue
		}
		kept = append(kept, i)
	}
	return kept
}

// logWarnings logs each distinct validation warning (spec §6 lax mode,
// schema_version 0) once.
func (e *evaluator) logWarnings(ws []string) {
	if e.warn == nil {
		return
	}
	e.mu.Lock()
	var fresh []string
	for _, w := range ws {
		if !e.warned[w] && len(e.warned) < maxWarnings {
			if e.warned == nil {
				e.warned = map[string]bool{}
			}
			e.warned[w] = true
			fresh = append(fresh, w)
		}
	}
	e.mu.Unlock()
	for _, w := range fresh {
		e.warn(w + " (logged once)")
	}
}

func fill(r *Result, a assert.Result) {
	r.Status, r.Score, r.Explanation, r.Cost = string(a.Status), a.Score, a.Explanation, a.Cost
	if a.Skipped {
		r.Status = StatusSkipped
	}
}

// fail marks the results at idx (all when idx is nil) as errors.
func fail(out []Result, idx []int, re ResultError) {
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
