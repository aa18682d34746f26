// clip.go: Boundary and String, the cut at a character boundary and its marker.

package clip

import "unicode/utf8"

// Marker follows text that was cut.
const Marker = "…"

// Boundary is where s is cut to keep at most n bytes: the largest index
// i ≤ n that does not split a UTF-8 sequence of s (len(s) when s is no
// longer than n). Only the bytes around n are read. A run of more than three
// continuation bytes (invalid UTF-8 already) is cut at n.
func Boundary[S ~string | ~[]byte](s S, n int) int {
	if n >= len(s) {
		return len(s)
	}
	n = max(n, 0)
	for i := n; i > 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	if n < utf8.UTFMax {
		return 0
	}
	return n
}

// String is s when it is at most n bytes long; else its first Boundary(s,
// n) bytes followed by Marker.
func String(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:Boundary(s, n)] + Marker
}
