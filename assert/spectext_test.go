// spectext_test.go: where a spec's text ends, judged without decoding it.

package assert

import (
	"strings"
	"testing"
)

// TestObjectEnd: brackets inside strings, escaped quotes and nesting do not
// end an object early; anything but an object, an unclosed one or one past
// specTextMax has no end.
func TestObjectEnd(t *testing.T) {
	long := `{"a":"` + strings.Repeat("x", specTextMax) + `"}`
	tests := []struct {
		in   string
		want int
	}{
		{`{}`, 2},
		{`{"a":1},{"b":2}`, 7},
		{`{"a":"}"}]`, 9},
		{`{"a":"\"}"} `, 11},
		{`{"a":"\\"}x`, 10},
		{`{"a":[{"b":{}}]}]}`, 16},
		{`[{}]`, 0},
		{` {}`, 0},
		{`{"a":1`, 0},
		{`{"a":"}`, 0},
		{``, 0},
		{long, 0},
	}
	for _, tc := range tests {
		if got := objectEnd([]byte(tc.in)); got != tc.want {
			t.Errorf("objectEnd(%.40q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
