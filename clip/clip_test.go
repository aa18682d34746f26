// clip_test.go: the cut never splits a character, and is marked.

package clip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc…"},
		{"é", 1, "…"},     // a 2-byte character does not fit in 1
		{"aé", 2, "a…"},   // nor in the 1 byte left
		{"a€b", 3, "a…"},  // € is 3 bytes: kept whole or not at all
		{"a€b", 4, "a€…"}, // kept whole
		{"😀😀", 5, "😀…"},   // 4-byte characters
		{"abc", 0, "…"},   // nothing kept
		{"abc", -1, "…"},  // a negative bound keeps nothing
		{"ab\x80\x80\x80\x80\x80c", 6, "ab\x80\x80\x80\x80…"}, // invalid already: cut at n
	}
	for _, tc := range tests {
		if got := String(tc.s, tc.n); got != tc.want {
			t.Errorf("String(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// TestStringValid: over every cut of text mixing 1- to 4-byte characters,
// the result is valid UTF-8, at most n bytes before the marker, and a
// prefix of the text.
func TestStringValid(t *testing.T) {
	s := strings.Repeat("aé€😀", 8)
	for n := range len(s) + 2 {
		got := String(s, n)
		kept := strings.TrimSuffix(got, Marker)
		if !utf8.ValidString(got) || len(kept) > n || !strings.HasPrefix(s, kept) || (got != s) != (n < len(s)) {
			t.Fatalf("String(s, %d) = %q: want a valid prefix of at most %d bytes, marked when cut", n, got, n)
		}
		if b := Boundary([]byte(s), n); b != len(kept) {
			t.Fatalf("Boundary of the bytes at %d = %d, of the string %d", n, b, len(kept))
		}
	}
}
