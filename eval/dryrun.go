// dryrun.go: eval --dry-run: the paid calls and largest cost of a run, per provider and model, with no call made.

package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"

	"attest-engine/assert"
	"attest-engine/tape"
	"attest-engine/trace"
)

// spendRow is one provider and model's share of a dry run.
type spendRow struct {
	Provider string  `json:"provider"`
	Model    string  `json:"model"`
	MinCalls int     `json:"paid_calls_min"`
	MaxCalls int     `json:"paid_calls_max"`
	Cached   int     `json:"cached"`
	MaxCost  float64 `json:"max_cost_usd"`
	Unpriced int     `json:"unpriced_calls,omitempty"`
}

// dryRun reads the inputs as a run does and, instead of evaluating, adds up
// each trace's paid calls (assert.Engine.Plan) in input order: a call an
// earlier trace makes for certain is a cache hit of a later one. The engine
// is offline: nothing can reach the network. Invalid traces and assertion
// lists that cannot be evaluated are counted and cost nothing.
func (c *evalCmd) dryRun(traces, asserts io.Reader, stdout io.Writer) int {
	src, err := readAssertions(asserts, inputName(c.assertionsPath))
	if err != nil {
		return c.badInput(err)
	}
	dr := newDocReader(traces, inputName(c.tracePath), trace.MaxLineBytes)
	dr.lenient = true
	seen := map[string]bool{}
	rows := map[[2]string]*spendRow{}
	n, skipped := 0, 0
	for ; ; n++ {
		d, err := dr.next()
		if errors.Is(err, io.EOF) {
			if err := src.finish(n); err != nil {
				return c.badInput(err)
			}
			break
		}
		if err != nil {
			return c.badInput(err)
		}
		as, err := src.forTrace(n)
		if err != nil {
			return c.badInput(err)
		}
		if d.tooLong || d.bad != "" || as.err != nil {
			skipped++
			continue
		}
		ests, err := c.ev.Engine.Plan(assert.Batch{Trace: d.tv, SourceBytes: d.size},
			func(tape.Value) ([]assert.Assertion, error) { return as.list, nil }, seen)
		if d.parsed != nil {
			d.parsed.Release()
		}
		if err != nil {
			skipped++
			continue
		}
		for _, e := range ests {
			k := [2]string{e.Provider, e.Model}
			r := rows[k]
			if r == nil {
				r = &spendRow{Provider: e.Provider, Model: e.Model}
				rows[k] = r
			}
			r.MinCalls += e.MinCalls
			r.MaxCalls += e.MaxCalls
			r.Cached += e.Cached
			r.MaxCost += e.MaxCost
			r.Unpriced += e.Unpriced
		}
	}
	list := make([]spendRow, 0, len(rows))
	var tot spendRow
	for _, r := range rows {
		list = append(list, *r)
		tot.MinCalls += r.MinCalls
		tot.MaxCalls += r.MaxCalls
		tot.Cached += r.Cached
		tot.MaxCost += r.MaxCost
		tot.Unpriced += r.Unpriced
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].Provider != list[j].Provider {
			return list[i].Provider < list[j].Provider
		}
		return list[i].Model < list[j].Model
	})
	if c.format == "json" {
		b, _ := json.Marshal(map[string]any{"traces": n, "not_evaluable": skipped, "by_model": list,
			"paid_calls_min": tot.MinCalls, "paid_calls_max": tot.MaxCalls, "cached": tot.Cached, "max_cost_usd": tot.MaxCost})
		fmt.Fprintf(stdout, "%s\n", b)
		return 0
	}
	fmt.Fprintf(stdout, "dry run: %d %s (%d not evaluable); no call made\n", n, plural(n, "trace"), skipped)
	fmt.Fprintf(stdout, "%-10s %-28s %17s %8s %14s\n", "provider", "model", "paid calls", "cached", "max cost USD")
	for _, r := range append(list, spendRow{Provider: "total", MinCalls: tot.MinCalls, MaxCalls: tot.MaxCalls, Cached: tot.Cached, MaxCost: tot.MaxCost, Unpriced: tot.Unpriced}) {
		calls := strconv.Itoa(r.MinCalls)
		if r.MaxCalls != r.MinCalls {
			calls += "–" + strconv.Itoa(r.MaxCalls)
		}
		cost := strconv.FormatFloat(r.MaxCost, 'f', 6, 64)
		if r.Unpriced > 0 {
			cost += fmt.Sprintf(" (+%d unpriced)", r.Unpriced)
		}
		fmt.Fprintf(stdout, "%-10s %-28s %17s %8d %14s\n", r.Provider, r.Model, calls, r.Cached, cost)
	}
	return 0
}
