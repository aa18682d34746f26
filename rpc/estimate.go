// estimate.go: estimate_batch, an SDK session's dry run: the paid calls and largest cost of a batch, with no call made.

package rpc

import (
	"context"
	"strconv"

	"attest-engine/assert"
	"attest-engine/tape"
)

// estimate (run by spawn) answers the additive method estimate_batch: the
// params of evaluate_batch ({trace, assertions}), nothing evaluated and no
// provider call made, and the answer
//
//	{"estimates": [{"assertion_id", "provider", "model", "paid_calls_min",
//	  "paid_calls_max", "cached", "max_cost_usd"[, "unpriced_calls"]}, …],
//	 "paid_calls_min": n, "paid_calls_max": m, "max_cost_usd": x[, "unpriced_calls": u]}
//
// one entry per costly assertion (layers 5–6), as eval --dry-run counts
// them (assert.Engine.Plan, docs/judges.md): a paid call is one the result
// cache does not answer; a consistency mode gives a range. An invalid trace
// or assertion is answered as evaluate_batch answers it. No capability
// names the method: an engine without it answers -32601 (spec §6 item 2).
func (s *Server) estimate(_ context.Context, req *request) ([]byte, error) {
	if !req.trace.Exists() {
		return nil, newError(codeInvalidParams, "estimate_batch takes {trace, assertions}, as evaluate_batch does.", "invalid params: missing required field 'trace'")
	}
	ests, err := s.engine.Plan(assert.Batch{Trace: req.trace, SourceBytes: req.size}, func(tape.Value) ([]assert.Assertion, error) {
		return req.assertions()
	}, nil)
	if err != nil {
		return nil, err
	}
	b := appendHead(make([]byte, 0, 256), req.id)
	b = append(b, `,"result":{"estimates":[`...)
	var minCalls, maxCalls, unpriced int
	var cost float64
	for i, e := range ests {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"assertion_id":`...)
		b = appendString(b, e.AssertionID)
		b = append(b, `,"provider":`...)
		b = appendString(b, e.Provider)
		b = append(b, `,"model":`...)
		b = appendString(b, e.Model)
		b = append(b, `,"paid_calls_min":`...)
		b = strconv.AppendInt(b, int64(e.MinCalls), 10)
		b = append(b, `,"paid_calls_max":`...)
		b = strconv.AppendInt(b, int64(e.MaxCalls), 10)
		b = append(b, `,"cached":`...)
		b = strconv.AppendInt(b, int64(e.Cached), 10)
		b = append(b, `,"max_cost_usd":`...)
		b = appendFloat(b, e.MaxCost)
		b = appendUnpriced(b, e.Unpriced)
		b = append(b, '}')
		minCalls, maxCalls, cost, unpriced = minCalls+e.MinCalls, maxCalls+e.MaxCalls, cost+e.MaxCost, unpriced+e.Unpriced
	}
	b = append(b, `],"paid_calls_min":`...)
	b = strconv.AppendInt(b, int64(minCalls), 10)
	b = append(b, `,"paid_calls_max":`...)
	b = strconv.AppendInt(b, int64(maxCalls), 10)
	b = append(b, `,"max_cost_usd":`...)
	b = appendFloat(b, cost)
	b = appendUnpriced(b, unpriced)
	return append(b, "}}\n"...), nil
}

// appendUnpriced writes "unpriced_calls" when some paid calls go to a
// model with no price: max_cost_usd does not bound them, and a client
// must not read it as their cost.
func appendUnpriced(b []byte, n int) []byte {
	if n == 0 {
		return b
	}
	b = append(b, `,"unpriced_calls":`...)
	return strconv.AppendInt(b, int64(n), 10)
}
