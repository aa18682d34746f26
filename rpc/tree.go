// tree.go: validate_trace_tree: check a multi-agent trace tree without assertions (capability multi_agent).

package rpc

import (
	"context"
	"strconv"

	"attest-engine/assert"
	"attest-engine/tape"
	"attest-engine/trace"
)

// validateTraceTree (run by spawn) answers {valid, errors, depth,
// agent_count, agent_ids, aggregate_tokens, aggregate_cost_usd,
// aggregate_latency_ms} (../shared/sdk-compat.md, "Other methods the earlier
// engine offered").
//
// An invalid trace is an answer, not an INVALID_TRACE error: the method
// exists to say what is wrong. errors holds the spec §7 message of the
// first rule broken (as evaluate_batch would report it), then every
// inconsistent parent_trace_id link: a sub-trace's parent_trace_id, when
// present, must equal its parent's trace_id. valid is true when errors is
// empty. evaluate_batch does not reject inconsistent links (spec §7 lists
// no such rule); this method reports them.
//
// depth counts sub-trace levels below the root as spec §7 does (a trace
// without sub-traces has depth 0); agent_count is the number of traces in
// the tree, root included; agent_ids lists the distinct agent_id values,
// depth first; the aggregates sum metadata.total_tokens, metadata.cost_usd
// and metadata.latency_ms over every trace of the tree, exactly in decimal.
func (s *Server) validateTraceTree(_ context.Context, req *request) ([]byte, error) {
	tv := req.trace // read from the line's tape, as evaluate_batch reads it
	if !tv.Exists() {
		return nil, newError(codeInvalidParams, "validate_trace_tree takes {trace}.", "invalid params: missing required field 'trace'")
	}
	errs := []string{}
	_, terr := trace.ValidateValue(tv, trace.Options{Strict: s.cfg.StrictStepTypes, SourceBytes: req.size})
	if terr != nil {
		errs = append(errs, terr.Message)
	}
	var sum assert.TreeSummary
	if tv.Kind() == tape.Object {
		sum = assert.SummarizeTree(tv.Any().(map[string]any))
		errs = append(errs, sum.LinkErrors...)
	}
	if sum.AgentIDs == nil {
		sum.AgentIDs = []string{}
	}
	b := appendHead(make([]byte, 0, 256), req.id)
	b = append(b, `,"result":{"valid":`...)
	b = strconv.AppendBool(b, len(errs) == 0)
	b = append(b, `,"errors":`...)
	b = appendStrings(b, errs)
	b = append(b, `,"depth":`...)
	b = strconv.AppendInt(b, int64(sum.Depth), 10)
	b = append(b, `,"agent_count":`...)
	b = strconv.AppendInt(b, int64(sum.AgentCount), 10)
	b = append(b, `,"agent_ids":`...)
	b = appendStrings(b, sum.AgentIDs)
	b = append(b, `,"aggregate_tokens":`...)
	b = appendCount(b, sum.Tokens)
	b = append(b, `,"aggregate_cost_usd":`...)
	b = appendFloat(b, sum.CostUSD)
	b = append(b, `,"aggregate_latency_ms":`...)
	b = appendCount(b, sum.LatencyMS)
	return append(b, "}}\n"...), nil
}

// appendCount writes a whole count as an integer (1350), anything else as
// a float, so typed SDKs read tokens and milliseconds as ints.
func appendCount(b []byte, f float64) []byte {
	if f == float64(int64(f)) {
		return strconv.AppendInt(b, int64(f), 10)
	}
	return appendFloat(b, f)
}
