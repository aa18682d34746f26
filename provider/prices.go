// prices.go: the price table (USD per million tokens): built-in list prices, the config's prices over them, and lookups.

package provider

import (
	"math"
	"strings"
)

// Price is a model's price in USD per million tokens.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}

// BuiltinPricesAsOf dates builtinPrices: the providers' list prices as
// published then.
const BuiltinPricesAsOf = "2025-11"

// builtinPrices is the engine's price table: list prices in USD per million
// tokens (standard tier: no batch, cache or long-context rates), as OpenAI
// (https://platform.openai.com/docs/pricing) and Anthropic
// (https://docs.claude.com/en/docs/about-claude/pricing) published them in
// November 2025. It prices the default judge and embedding models, so that
// SDK users, who run with no config file, see a cost, and the common chat
// models an agent's OpenTelemetry spans name, so that watch can derive a
// trace's cost from its token counts. Prices change: the config's prices
// key overrides or extends the table (configuration.md).
var builtinPrices = map[string]Price{
	"text-embedding-3-small": {Input: 0.02},
	"text-embedding-3-large": {Input: 0.13},
	"text-embedding-ada-002": {Input: 0.10},
	"gpt-5":                  {Input: 1.25, Output: 10},
	"gpt-5-mini":             {Input: 0.25, Output: 2},
	"gpt-5-nano":             {Input: 0.05, Output: 0.4},
	"gpt-4.1":                {Input: 2, Output: 8},
	"gpt-4.1-mini":           {Input: 0.4, Output: 1.6},
	"gpt-4.1-nano":           {Input: 0.1, Output: 0.4},
	"gpt-4o":                 {Input: 2.5, Output: 10},
	"gpt-4o-mini":            {Input: 0.15, Output: 0.6},
	"o3":                     {Input: 2, Output: 8},
	"o4-mini":                {Input: 1.1, Output: 4.4},
	"claude-opus-4-5":        {Input: 5, Output: 25},
	"claude-opus-4-1":        {Input: 15, Output: 75},
	"claude-sonnet-4-5":      {Input: 3, Output: 15},
	"claude-sonnet-4-0":      {Input: 3, Output: 15},
	"claude-haiku-4-5":       {Input: 1, Output: 5},
	"claude-3-5-haiku":       {Input: 0.8, Output: 4},
}

// Cost is the USD price of a call's usage (0 for a model with no price).
func (p *Client) Cost(model string, u Usage) float64 {
	pr, ok := p.prices[model]
	if !ok {
		return 0
	}
	return CostOf(pr, u)
}

// CostOf is usage × price, rounded to 1e-10 USD so that sums print without
// float noise.
func CostOf(pr Price, u Usage) float64 {
	return math.Round((float64(u.In)*pr.Input+float64(u.Out)*pr.Output)/1e6*1e10) / 1e10
}

// PriceOf looks model up in the price table, as a model name in a trace
// reads: the name itself, else the name without a trailing date snapshot
// ("gpt-4.1-2025-04-14", "claude-sonnet-4-5-20250929": what
// gen_ai.response.model usually holds), else, for Anthropic's "-0" aliases
// ("claude-sonnet-4-0"), the name without "-0" or with it. fromConfig tells
// whether the config's prices key set the price found.
func (p *Client) PriceOf(model string) (pr Price, key string, fromConfig, ok bool) {
	for _, k := range priceKeys(model) {
		if pr, ok := p.prices[k]; ok {
			return pr, k, p.configPriced[k], true
		}
	}
	return Price{}, "", false, false
}

// priceKeys lists the names PriceOf tries for model, in order.
func priceKeys(model string) []string {
	keys := []string{model}
	if base, ok := strings.CutSuffix(model, dateSuffix(model)); ok && base != model {
		keys = append(keys, base)
	}
	last := keys[len(keys)-1]
	if !strings.HasPrefix(last, "claude-") {
		return keys
	}
	if b, ok := strings.CutSuffix(last, "-0"); ok {
		return append(keys, b)
	}
	return append(keys, last+"-0")
}

// dateSuffix is model's trailing "-YYYY-MM-DD" or "-YYYYMMDD", or "".
func dateSuffix(model string) string {
	digits := func(s string) bool {
		for _, c := range []byte(s) {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	if n := len(model); n > 11 && model[n-11] == '-' && model[n-6] == '-' && model[n-3] == '-' &&
		digits(model[n-10:n-6]+model[n-5:n-3]+model[n-2:]) && model[n-10:n-8] == "20" {
		return model[n-11:]
	}
	if n := len(model); n > 9 && model[n-9] == '-' && digits(model[n-8:]) && model[n-8:n-6] == "20" {
		return model[n-9:]
	}
	return ""
}
