// evaluate.go: evaluate_batch (spec §2.2): trace validation, then the assertion layers.

package rpc

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"attest-engine/assert"
	"attest-engine/trace"
)

// evaluate is evaluate_batch's work (run by spawn): it returns the answer line.
func (s *Server) evaluate(ctx context.Context, req *request) ([]byte, error) {
	start := time.Now()
	tv, ok := req.params["trace"]
	if !ok {
		return nil, newError(codeInvalidParams, "evaluate_batch takes {trace, assertions} (spec §2.2).", "invalid params: missing required field 'trace'")
	}
	// Spec §7: invalid traces fail before any assertion is evaluated.
	warnings, terr := trace.Validate(tv, trace.Options{Strict: s.cfg.StrictStepTypes, SourceBytes: req.size})
	if terr != nil {
		return nil, terr
	}
	tr := tv.(map[string]any)
	if req.traceText != nil && !req.traceKnown {
		s.memos.traces.add(req.traceText, tr, struct{}{})
	}
	traceID, _ := tr["trace_id"].(string)
	// A trace's warnings (schema_version 0, an unknown step type) recur
	// with every batch of a suite: logged once per session, then counted.
	for _, w := range warnings {
		s.repeats.warn(s.log, w, traceID)
	}
	// Additive param "suite": the test suite whose soft-failure budget the
	// results count against (budget.go); absent or null: the unnamed suite.
	suite, ok := req.params["suite"].(string)
	if !ok && req.params["suite"] != nil {
		return nil, newError(codeInvalidParams, "suite is an optional test-suite name string.", "invalid params: field 'suite' must be a string")
	}
	if err := s.budgets.admit(suite); err != nil {
		return nil, err
	}
	list, known := s.memos.assertions.extra(req.params["assertions"])
	if !known {
		var err error
		if list, err = assertions(req.params); err != nil {
			return nil, err
		}
		if req.assertionsText != nil {
			s.memos.assertions.add(req.assertionsText, req.params["assertions"], list)
		}
	}
	results, err := s.engine.EvaluateText(ctx, tr, req.traceText, list)
	if err != nil {
		return nil, err
	}
	s.budgets.apply(suite, results)
	s.assertions.Add(int64(len(results)))
	s.record.add(traceID, suite, "", results...)
	elapsed := time.Since(start)
	// Attrs, not key-value pairs: no value is boxed (an allocation each).
	s.log.LogAttrs(ctx, slog.LevelInfo, "evaluation complete", slog.String("trace_id", traceID),
		slog.Int64("duration_ms", elapsed.Milliseconds()), slog.Int("assertions", len(results)))
	return encodeResults(make([]byte, 0, 256+200*len(results)), req.id, results, elapsed.Milliseconds()), nil
}

// assertions reads the assertion objects of a batch (spec §2.2 table).
func assertions(p map[string]any) ([]assert.Assertion, error) {
	v, ok := p["assertions"]
	if !ok {
		return nil, newError(codeInvalidParams, "evaluate_batch takes {trace, assertions} (spec §2.2).", "invalid params: missing required field 'assertions'")
	}
	raw, ok := v.([]any)
	if !ok {
		return nil, newError(codeInvalidParams, "Send assertions as a JSON array of assertion objects.", "invalid params: assertions must be an array")
	}
	out := make([]assert.Assertion, len(raw))
	for i, e := range raw {
		obj, ok := e.(map[string]any)
		if !ok {
			return nil, &assert.Error{AssertionID: fmt.Sprintf("#%d", i), Message: "assertion must be a JSON object",
				Detail: "Each entry of assertions is an object {assertion_id, type, spec, request_id?}."}
		}
		id, ok := obj["assertion_id"].(string)
		if !ok || id == "" {
			return nil, &assert.Error{AssertionID: fmt.Sprintf("#%d", i), Message: "missing required field 'assertion_id'",
				Detail: "Give every assertion a non-empty assertion_id string, unique within the batch."}
		}
		typ, ok := obj["type"].(string)
		if !ok {
			return nil, &assert.Error{AssertionID: id, Message: "missing required field 'type'",
				Detail: "Set type to one of schema, constraint, trace, content, embedding, llm_judge."}
		}
		spec, ok := obj["spec"].(map[string]any)
		if !ok {
			return nil, &assert.Error{AssertionID: id, Message: "missing required field 'spec'",
				Detail: "Every assertion carries a spec object with its type's fields (spec §4)."}
		}
		a := assert.Assertion{ID: id, Type: typ, Spec: spec}
		// Additive field agent_id: evaluate against that agent's trace of
		// the tree (assert/scope.go); absent or null: the root trace.
		switch aid := obj["agent_id"].(type) {
		case string:
			if aid == "" {
				return nil, &assert.Error{AssertionID: id, Message: "agent_id must be a non-empty string",
					Detail: "Leave agent_id out (or null) to assert on the root trace, or name the agent_id of a trace in the tree."}
			}
			a.AgentID = aid
		case nil:
		default:
			return nil, &assert.Error{AssertionID: id, Message: "agent_id must be a string",
				Detail: "agent_id is an optional string naming the agent_id of a trace in the tree."}
		}
		switch rid := obj["request_id"].(type) {
		case string:
			a.RequestID = rid
		case nil:
		default:
			return nil, &assert.Error{AssertionID: id, Message: "request_id must be a string",
				Detail: "request_id is an optional idempotency key string."}
		}
		out[i] = a
	}
	return out, nil
}
