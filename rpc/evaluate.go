// evaluate.go: evaluate_batch (spec §2.2): trace validation, then the assertion layers.

package rpc

import (
	"context"
	"log/slog"
	"time"

	"attest-engine/assert"
	"attest-engine/tape"
)

// evaluate is evaluate_batch's work (run by spawn): it returns the answer
// line. The evaluation core (assert.Engine.Run) validates the trace, then asks for
// the batch's other params (suite, assertions), then evaluates under ctx's
// deadline.
func (s *Server) evaluate(ctx context.Context, req *request) ([]byte, error) {
	start := started(ctx)
	trace := req.trace
	if !trace.Exists() {
		return nil, newError(codeInvalidParams, "evaluate_batch takes {trace, assertions} (spec §2.2).", "invalid params: missing required field 'trace'")
	}
	scenario, repeat, hasRepeat, serr := scenarioParams(req.paramsTape.Get("scenario_id"), req.paramsTape.Get("repeat"))
	if serr != nil {
		return nil, serr
	}
	var (
		suite    string
		warnings []string
		list     []assert.Assertion
	)
	// The trace's id, made a string only when something records or logs
	// it: SDKs send a new one with every batch.
	traceID := func() string { return trace.Get("trace_id").Str() }
	results, err := s.engine.Run(ctx, assert.Batch{Trace: trace, SourceBytes: req.size},
		func(w []string) { warnings = w },
		func(tr tape.Value) ([]assert.Assertion, error) {
			// A trace's warnings (schema_version 0, an unknown step type) recur
			// with every batch of a suite: logged once per session, then counted.
			for _, w := range warnings {
				s.repeats.warn(s.log, w, traceID())
			}
			// Additive param "suite": the test suite whose soft-failure budget the
			// results count against (budget.go); absent or null: the unnamed suite.
			switch sv := req.paramsTape.Get("suite"); sv.Kind() {
			case tape.String:
				suite = sv.Str()
			case tape.Missing, tape.Null:
			default:
				return nil, newError(codeInvalidParams, "suite is an optional test-suite name string.", "invalid params: field 'suite' must be a string")
			}
			if err := s.budgets.admit(suite); err != nil {
				return nil, err
			}
			var err error
			list, err = req.assertions()
			return list, err
		})
	if err != nil {
		return nil, err
	}
	s.budgets.apply(suite, results)
	if scenario != "" {
		if err := s.recordRun(scenario, repeat, hasRepeat, results); err != nil {
			return nil, err
		}
	}
	s.assertions.Add(int64(len(results)))
	var notes []byte
	if s.record.on || s.history != nil {
		id := traceID()
		keys := s.keysOf(trace, req.paramsTape.Get("assertions"), list, scenario, repeat, hasRepeat)
		s.record.addBatch(id, suite, list, results, keys)
		notes = s.recordHistory(id, list, results, keys) // drift_alert lines go before the answer
	}
	elapsed := time.Since(start)
	if s.log.Enabled(ctx, slog.LevelInfo) {
		// Attrs, not key-value pairs: no value is boxed (an allocation each).
		s.log.LogAttrs(ctx, slog.LevelInfo, "evaluation complete", slog.String("trace_id", traceID()),
			slog.Int64("duration_ms", elapsed.Milliseconds()), slog.Int("assertions", len(results)))
	}
	b := make([]byte, 0, len(notes)+256+200*len(results))
	return encodeResults(append(b, notes...), req.id, results, elapsed.Milliseconds()), nil
}
