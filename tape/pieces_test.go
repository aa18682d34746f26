// pieces_test.go: RuneCount against the decoded string.

package tape

import (
	"testing"
	"unicode/utf8"
)

func TestRuneCount(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{`""`, 0},
		{`"abc"`, 3},
		{`"café"`, 4},
		{`"caf\u00e9"`, 4},
		{`"\ud83d\ude00!"`, 2}, // a surrogate pair is one code point
		{`"\ud83d x"`, 3},      // a lone surrogate decodes to U+FFFD
		{`"a\n\"b\\"`, 5},      // short escapes
		{`"\u2028 \u2029"`, 3}, // escaped line separators
		{"\"\u2028\"", 1},      // raw
		{`"😀\t😀"`, 3},          // runs around an escape
		{`123`, 0},             // not a string
		{`["a"]`, 0},           // not a string
	}
	for _, tt := range tests {
		d, err := Parse([]byte(tt.in))
		if err != nil {
			t.Fatalf("Parse(%s): %v", tt.in, err)
		}
		v := d.Root()
		if got := v.RuneCount(); got != tt.want {
			t.Errorf("RuneCount(%s) = %d, want %d", tt.in, got, tt.want)
		}
		if v.Kind() == String {
			if got, want := v.RuneCount(), utf8.RuneCount(v.Bytes()); got != want {
				t.Errorf("RuneCount(%s) = %d, utf8.RuneCount(Bytes) = %d", tt.in, got, want)
			}
		}
		d.Release()
	}
}
