package provider

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPriceOf: model names as spans carry them find their list price: the
// name itself, a dated snapshot of it, an Anthropic "-0" alias; the
// config's prices override the built-in ones and say so.
func TestPriceOf(t *testing.T) {
	c, err := New(Settings{Getenv: func(string) string { return "" }, Prices: map[string]Price{"gpt-4.1": {Input: 1, Output: 2}, "my-model": {Input: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		model      string
		key        string
		price      Price
		fromConfig bool
		ok         bool
	}{
		{"gpt-4o-mini", "gpt-4o-mini", Price{0.15, 0.6}, false, true},
		{"gpt-4o-mini-2024-07-18", "gpt-4o-mini", Price{0.15, 0.6}, false, true},
		{"gpt-4.1-2025-04-14", "gpt-4.1", Price{1, 2}, true, true},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5", Price{3, 15}, false, true},
		{"claude-sonnet-4-20250514", "claude-sonnet-4-0", Price{3, 15}, false, true},
		{"claude-3-5-haiku-20241022", "claude-3-5-haiku", Price{0.8, 4}, false, true},
		{"my-model", "my-model", Price{3, 0}, true, true},
		{"gpt-4o-mini-2024-07", "", Price{}, false, false},
		{"gpt-4o-mini-1999-07-18", "", Price{}, false, false},
		{"llama3.2", "", Price{}, false, false},
		{"", "", Price{}, false, false},
	}
	for _, tc := range tests {
		pr, key, fromConfig, ok := c.PriceOf(tc.model)
		got := []any{key, pr, fromConfig, ok}
		if d := cmp.Diff([]any{tc.key, tc.price, tc.fromConfig, tc.ok}, got); d != "" {
			t.Errorf("PriceOf(%q) (-want +got):\n%s", tc.model, d)
		}
	}
	// 1,200 input and 300 output tokens of gpt-4o-mini: 1200×0.15/1e6 + 300×0.6/1e6
	if got := CostOf(Price{0.15, 0.6}, Usage{In: 1200, Out: 300}); got != 0.00036 {
		t.Errorf("CostOf = %v, want 0.00036", got)
	}
}
