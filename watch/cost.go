// cost.go: an OTLP trace's cost derived from its spans' token counts and the engine's price table, and the cost assertions that need it.

package watch

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"attest-engine/assert"
	"attest-engine/provider"
)

// priceFunc looks a model up in the engine's price table
// (provider.Client.PriceOf).
type priceFunc func(model string) (pr provider.Price, key string, fromConfig, ok bool)

// costInfo is what deriving a trace tree's cost found.
type costInfo struct {
	derived bool   // every trace of the tree carries metadata.cost_usd
	table   string // the price table it came from, for explanations
	why     string // when not derived: why, naming the first step in the way
}

// deriveCost prices an OTLP trace's llm_call steps from their model and
// token counts (the spans' gen_ai.response.model or request.model, and
// gen_ai.usage.input_tokens and output_tokens: ingest's mapping) and sets
// each step's metadata.cost_usd. When every llm_call step of the tree is
// priced, and there is at least one, each trace of the tree (the root and
// every sub_trace) gets metadata.cost_usd: the sum of its own llm_call
// steps, 0 for a trace with none — as its total_tokens counts its own, so
// that trace_tree's aggregate_cost, a sum over the tree, counts each call
// once. Otherwise no trace gets one: a partial sum would pass a budget the
// agent broke.
//
// A step is priced when its model is in the table (provider.PriceOf:
// also a dated snapshot of a listed name) and it has the token count of
// each side with a nonzero price. The price is the list price of every
// token: batch, cached-input and long-context rates are not known from the
// spans, so a cached prompt is counted at the full input price (never
// less than was paid, at list prices).
func deriveCost(root map[string]any, price priceFunc) costInfo {
	var traces []map[string]any
	var collect func(t map[string]any, depth int)
	collect = func(t map[string]any, depth int) {
		traces = append(traces, t)
		if depth >= 64 { // ingest nests at most spec §7's five levels
			return
		}
		steps, _ := t["steps"].([]any)
		for _, s := range steps {
			if st, _ := s.(map[string]any); st != nil {
				if sub, _ := st["sub_trace"].(map[string]any); sub != nil {
					collect(sub, depth+1)
				}
			}
		}
	}
	collect(root, 0)

	var ci costInfo
	var fromConfig, fromBuiltin bool
	sums := make([]float64, len(traces))
	calls := 0
	for ti, t := range traces {
		steps, _ := t["steps"].([]any)
		for si, s := range steps {
			st, _ := s.(map[string]any)
			if st == nil || st["type"] != "llm_call" {
				continue
			}
			calls++
			cost, cfg, why := stepCost(st, price)
			if why != "" {
				if ci.why == "" {
					id, _ := t["trace_id"].(string)
					name, _ := st["name"].(string)
					ci.why = fmt.Sprintf("llm_call step %d %q of trace %s: %s", si, name, id, why)
				}
				continue
			}
			fromConfig, fromBuiltin = fromConfig || cfg, fromBuiltin || !cfg
			sums[ti] += cost
			meta, _ := st["metadata"].(map[string]any)
			if meta == nil {
				meta = map[string]any{}
				st["metadata"] = meta
			}
			meta["cost_usd"] = usd(cost)
		}
	}
	switch {
	case calls == 0:
		ci.why = "its spans hold no model call (chat, generate_content or text_completion span)"
		return ci
	case ci.why != "":
		return ci
	}
	for ti, t := range traces {
		meta, _ := t["metadata"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
			t["metadata"] = meta
		}
		meta["cost_usd"] = usd(sums[ti])
	}
	ci.derived = true
	builtin := "the engine's built-in list prices (" + provider.BuiltinPricesAsOf + ")"
	switch {
	case fromConfig && fromBuiltin:
		ci.table = "the config's prices and " + builtin
	case fromConfig:
		ci.table = "the config's prices"
	default:
		ci.table = builtin
	}
	return ci
}

// stepCost prices one llm_call step; why says what is missing when it
// cannot be priced. fromConfig: the config's prices set its price.
func stepCost(st map[string]any, price priceFunc) (cost float64, fromConfig bool, why string) {
	args, _ := st["args"].(map[string]any)
	model, _ := args["model"].(string)
	if model == "" {
		return 0, false, "no model (gen_ai.response.model or gen_ai.request.model)"
	}
	pr, _, cfg, ok := price(model)
	if !ok {
		return 0, false, fmt.Sprintf("model %q is not in the price table (add it to the config's prices)", model)
	}
	res, _ := st["result"].(map[string]any)
	var u provider.Usage
	for _, side := range []struct {
		key, attr string
		unit      float64
		n         *int64
	}{{"input_tokens", "gen_ai.usage.input_tokens", pr.Input, &u.In}, {"output_tokens", "gen_ai.usage.output_tokens", pr.Output, &u.Out}} {
		if side.unit == 0 {
			continue
		}
		n, ok := tokenCount(res[side.key])
		if !ok {
			return 0, false, fmt.Sprintf("no %s count (%s)", strings.ReplaceAll(side.key, "_", " "), side.attr)
		}
		*side.n = n
	}
	return provider.CostOf(pr, u), cfg, ""
}

// tokenCount reads a token count: a whole number, 0 to 2⁵³.
func tokenCount(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	if err != nil || f < 0 || f > 1<<53 || f != math.Trunc(f) {
		return 0, false
	}
	return int64(f), true
}

// usd writes a cost as a JSON number, rounded to 1e-10 USD (CostOf's
// precision) so that sums carry no float noise.
func usd(v float64) json.Number {
	return json.Number(strconv.FormatFloat(math.Round(v*1e10)/1e10, 'f', -1, 64))
}

// isCostAssertion: the assertion reads a cost — a constraint on a field
// that names cost_usd, or trace_tree's aggregate_cost.
func isCostAssertion(a assert.Assertion) bool {
	switch a.Type {
	case "constraint":
		f, _ := a.Spec["field"].(string)
		return strings.Contains(f, "cost_usd")
	case "trace_tree":
		return a.Spec["check"] == "aggregate_cost"
	}
	return false
}

// reads reports whether the suite's assertion i reads a cost.
func (e *evaluator) reads(i int) bool { return i < len(e.costly) && e.costly[i] }
