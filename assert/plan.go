// plan.go: eval --dry-run: the paid calls a batch would make and their largest cost, with no call made.

package assert

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"attest-engine/provider"
	"attest-engine/tape"
	"attest-engine/trace"
)

// Estimate is one costly assertion's paid calls: those the result cache
// does not answer. For an embedding model a paid call is one text
// embedded (each is billed by its tokens; how texts are grouped into
// requests depends on which assertion of a batch asks first). MinCalls and MaxCalls are equal unless a consistency
// mode draws a number of samples that depends on the verdicts; both assume
// every reply parses (an unusable reply is asked for once more, a call
// each). MaxCost is the cost of MaxCalls at their token bounds
// (provider.JudgeCallBound); Unpriced counts paid calls to a model with no
// price, which MaxCost cannot bound.
type Estimate struct {
	AssertionID        string
	Provider, Model    string
	MinCalls, MaxCalls int
	Cached             int // calls the cache answers
	MaxCost            float64
	Unpriced           int
}

// planner is a check that can say what it would pay for.
type planner interface {
	// plan estimates the check's calls over in. seen holds the cache keys
	// the run's earlier plans call for certain: they count as cached. A
	// plan adds its own.
	plan(in *input, seen map[string]bool) Estimate
}

// Plan is Run without evaluating layers 5–6: the trace is validated, every
// assertion compiled, the cheap layers evaluated when skip_after_hard_fail
// may skip the costly ones, and each costly assertion's calls estimated
// from the cache, making none. seen carries what the run's earlier batches
// will have cached (nil: nothing).
func (e *Engine) Plan(b Batch, read func(tr tape.Value) ([]Assertion, error), seen map[string]bool) ([]Estimate, error) {
	if _, terr := trace.ValidateValue(b.Trace, trace.Options{Strict: e.cfg.StrictStepTypes, SourceBytes: b.SourceBytes}); terr != nil {
		return nil, terr
	}
	list, err := read(b.Trace)
	if err != nil {
		return nil, err
	}
	if err := checkBatch(list); err != nil {
		return nil, err
	}
	pending := make([]prepared, len(list))
	for i, a := range list {
		pending[i] = prepared{idx: i, a: a}
	}
	if err := e.prepare(pending); err != nil {
		return nil, err
	}
	if seen == nil {
		seen = map[string]bool{}
	}
	in := newInput(b.Trace)
	slices.SortStableFunc(pending, func(a, b prepared) int { return a.layer - b.layer })
	var out []Estimate
	for _, p := range pending {
		if p.layer < costlyLayer {
			if e.cfg.SkipAfterHardFail {
				if r, _, err := e.runFrom(context.Background(), in, p, time.Now(), 0); err == nil && r.Status == HardFail {
					return out, nil // the costly layers are skipped: no call
				}
			}
			continue
		}
		pl, ok := p.chk.(planner)
		if !ok {
			continue
		}
		pin := in
		if p.a.AgentID != "" {
			if pin, _ = scope(in, p.a.AgentID); pin == nil {
				continue
			}
		}
		est := pl.plan(pin, seen)
		est.AssertionID = p.a.ID
		out = append(out, est)
	}
	return out, nil
}

func (c *judgeCheck) plan(in *input, seen map[string]bool) Estimate {
	est := Estimate{Provider: c.client.Kind(), Model: c.model}
	ms := c.tgt.resolve(in, nil)
	if len(ms) == 0 {
		return est
	}
	system, msgs := judgeSystem, []string{c.message(in, matchText(in, ms))}
	if c.compare != nil {
		cm := c.compare.resolve(in, nil)
		if len(cm) == 0 {
			return est
		}
		out, other, input := matchText(in, ms), matchText(in, cm), inputText(in.trace()["input"])
		system, msgs = judgePairSystem, []string{c.pairMessage(input, out, other), c.pairMessage(input, other, out)}
	}
	least := 1 // samples drawn for certain
	switch c.cons.mode {
	case modeSequential:
		least = 2
	}
	for i := range c.cons.max {
		for _, msg := range msgs {
			key := c.sampleKey(system, msg, i)
			if seen[key] || c.hasVerdict(key) {
				if i < least {
					est.Cached++
				}
				continue
			}
			if i < least {
				est.MinCalls++
				seen[key] = true
			}
			est.MaxCalls++
			in, out := provider.JudgeCallBound(system, msg)
			if cost, ok := c.p.MaxCost(c.model, in, out); ok {
				est.MaxCost += cost
			} else {
				est.Unpriced++
			}
		}
	}
	return est
}

// hasVerdict reports whether the cache holds a usable verdict under key.
func (c *judgeCheck) hasVerdict(key string) bool {
	b, ok := c.p.Cached(key)
	var v verdict
	return ok && json.Unmarshal(b, &v) == nil && v.Score >= 0 && v.Score <= 1
}

func (c *embeddingCheck) plan(in *input, seen map[string]bool) Estimate {
	est := Estimate{Provider: "openai", Model: c.model}
	if c.lexical {
		est.Provider = "lexical"
		return est
	}
	ms := c.tgt.resolve(in, nil)
	if len(ms) == 0 {
		return est
	}
	text := matchText(in, ms)
	if text == c.reference {
		return est
	}
	var paid []string
	for _, kt := range [2][2]string{{c.key(text), text}, {c.refKey, c.reference}} {
		if kt[0] == "" {
			continue
		}
		if seen[kt[0]] || c.cached(kt[0]) != nil {
			est.Cached++
			continue
		}
		seen[kt[0]] = true
		paid = append(paid, kt[1])
	}
	if len(paid) == 0 {
		return est
	}
	est.MinCalls, est.MaxCalls = len(paid), len(paid)
	if cost, ok := c.p.MaxCost(c.model, provider.EmbedCallBound(paid...), 0); ok {
		est.MaxCost = cost
	} else {
		est.Unpriced = 1
	}
	return est
}
