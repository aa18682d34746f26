// errors_test.go checks that messages quote long values by their prefix, exactly as rendering the whole
// value and cutting it would.

package jsonschema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// fullQuote and fullDisplay render the whole value and then shorten it: the reference quote and display
// must agree with, at any size.
func fullQuote(s string) string {
	if utf8.RuneCountInString(s) > 64 {
		return fmt.Sprintf("%q…", string([]rune(s)[:64]))
	}
	return fmt.Sprintf("%q", s)
}

func fullDisplay(v any) string {
	if s, ok := v.(string); ok {
		return fullQuote(s)
	}
	if n, ok := numberOf(v); ok {
		return n.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	if len(b) > 80 {
		cut := 80
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		return string(b[:cut]) + "…"
	}
	return string(b)
}

func TestQuoteAndDisplayReadOnlyWhatTheyShow(t *testing.T) {
	wide := map[string]any{}
	for i := range 300 {
		wide[fmt.Sprintf("k%03d<&>", 299-i)] = json.Number(fmt.Sprint(i))
	}
	strs := []string{
		"", "short", strings.Repeat("a", 64), strings.Repeat("a", 65), strings.Repeat("é", 70),
		strings.Repeat("ab\xff", 40), "\u2028<tag>&" + strings.Repeat("😀", 80), strings.Repeat("x", 1<<20),
	}
	values := []any{
		nil, true, json.Number("1.50"), 2.5, []any{}, map[string]any{}, []any(nil), map[string]any(nil), wide,
		[]any{wide, wide}, map[string]any{"a": []any{map[string]any{"b": nil}}, "\xff": "\u2028"},
		[]any{strings.Repeat("é", 100)}, []any{"a", strings.Repeat("\xe2\x82", 50)}, []any{json.Number("1e400")},
	}
	for _, s := range strs {
		values = append(values, s, []any{s}, map[string]any{s: s}, []any{"0123456789", s})
		for cut := 0; cut < len(s) && cut < 100 && len(s) < 1000; cut++ {
			values = append(values, []any{s[:cut] + "é€😀" + s[cut:]})
		}
		if got, want := quote(s), fullQuote(s); got != want {
			t.Errorf("quote(%.40q): got %q, want %q", s, got, want)
		}
	}
	for _, v := range values {
		var work int
		if got, want := display(v, &work), fullDisplay(v); got != want {
			t.Errorf("display(%.60v):\n got %q\nwant %q", v, got, want)
		}
	}
}
