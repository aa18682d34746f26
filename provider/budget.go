// budget.go: the run's hard spend limit (budget_usd): a paid call starts only when its largest possible cost fits.

package provider

import (
	"fmt"
	"math"
	"sync"
)

// Bounds of one call's usage, from its text alone: a token is at least one
// byte of text in the byte-level tokenizers of the priced models, and every
// message adds a few tokens of framing (msgOverhead, more than any of them
// adds). A reply is bounded by the request's token limit: judgeMaxTokens
// for the judge (sent as max_tokens, or as max_completion_tokens to an
// OpenAI-compatible API when a budget is set).
const msgOverhead = 16

// inputBound is the most input tokens a request of these texts can use.
func inputBound(texts ...string) int64 {
	n := int64(0)
	for _, t := range texts {
		n += int64(len(t)) + msgOverhead
	}
	return n + msgOverhead
}

// BudgetError is a call the budget refused: its largest possible cost
// would take spend past budget_usd. The assertion is not evaluated.
type BudgetError struct {
	Limit, Spent, Need float64
	Model              string
}

func (e *BudgetError) Error() string {
	if e.Need < 0 {
		return fmt.Sprintf("not evaluated: model %q has no price, so its cost cannot be bounded under budget_usd %s", e.Model, usd(e.Limit))
	}
	return fmt.Sprintf("not evaluated: a call to %q could cost up to %s, and %s of budget_usd %s is spent or held by calls in flight",
		e.Model, usd(e.Need), usd(e.Spent), usd(e.Limit))
}

func usd(x float64) string { return fmt.Sprintf("$%.6g", x) }

// budget holds the run's spend against its limit: what completed calls
// cost, and what calls in flight may still cost at most. Each attempt of a
// call (httpDoer.do: a retry is another attempt, maybe billed again)
// starts only if spent + held + its own maximum stays within the limit,
// so spend never passes it, whatever the calls in flight do. An attempt
// whose cost is unknown (no answer, no usage reported) is spent at its
// maximum. Safe for concurrent use.
type budget struct {
	limit  float64 // USD; 0: no budget
	prices map[string]Price

	mu    sync.Mutex
	spent float64
	held  float64
}

// maxCost is the largest cost of a call to model with at most in input
// and out output tokens; ok is false for a model with no price.
func (b *budget) maxCost(model string, in, out int64) (float64, bool) {
	pr, ok := b.prices[model]
	if !ok {
		return 0, false
	}
	return (float64(in)*pr.Input + float64(out)*pr.Output) / 1e6, true
}

// reserve holds the largest cost of an attempt before it is sent; settle,
// called once it has ended, replaces the hold with what its usage cost.
// Without a budget it holds nothing.
func (b *budget) reserve(model string, in, out int64) (settle func(Usage), err error) {
	if b == nil || b.limit <= 0 {
		return func(Usage) {}, nil
	}
	need, priced := b.maxCost(model, in, out)
	b.mu.Lock()
	defer b.mu.Unlock()
	if !priced {
		return nil, &BudgetError{Limit: b.limit, Spent: b.spent + b.held, Need: -1, Model: model}
	}
	// A tolerance of a billionth of a cent: sums of float prices.
	if b.spent+b.held+need > b.limit+1e-11 {
		return nil, &BudgetError{Limit: b.limit, Spent: b.spent + b.held, Need: need, Model: model}
	}
	b.held += need
	var once sync.Once
	return func(u Usage) {
		once.Do(func() {
			cost, _ := b.maxCost(model, u.In, u.Out)
			b.mu.Lock()
			b.held -= need
			if b.held < 1e-15 {
				b.held = 0
			}
			b.spent += cost
			b.mu.Unlock()
		})
	}, nil
}

// Spent is what the run's paid calls have cost so far (budget_usd counts it).
func (p *Client) Spent() float64 {
	if p.spend == nil {
		return 0
	}
	p.spend.mu.Lock()
	defer p.spend.mu.Unlock()
	return p.spend.spent
}

// MaxCost is the largest cost of a call to model with at most in input and
// out output tokens; ok is false for a model with no price.
func (p *Client) MaxCost(model string, in, out int64) (float64, bool) {
	b := budget{prices: p.prices}
	return b.maxCost(model, in, out)
}

// JudgeCallBound is the most input and output tokens of one judge call
// with these system and user messages (eval --dry-run's maximum cost).
func JudgeCallBound(system, user string) (in, out int64) {
	return inputBound(system, user), judgeMaxTokens
}

// EmbedCallBound is the most input tokens of one embeddings call of texts.
func EmbedCallBound(texts ...string) int64 { return inputBound(texts...) }

func validBudget(x float64) error {
	if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
		return fmt.Errorf("config budget_usd %v: want a number of US dollars, 0 or more (0: no budget)", x)
	}
	return nil
}
