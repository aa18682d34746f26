// glob.go: tool-name patterns: "*" matches any run of characters, "?" exactly one, all else itself.

package simulate

import "unicode/utf8"

// maxPattern bounds a tool name or pattern, in bytes.
const maxPattern = 256

// globMatch reports whether name matches pattern. "*" matches any run of characters (none included), "?"
// one character; there are no classes and no escapes, so every other character, "/" and "[" included,
// matches only itself. The classic two-pointer walk with one saved star position makes it O(len(p)·len(n)).
func globMatch(pattern, name string) bool {
	p, n := 0, 0
	star, mark := -1, 0
	for n < len(name) {
		if p < len(pattern) {
			switch pattern[p] {
			case '*':
				star, mark = p, n
				p++
				continue
			case '?':
				_, size := utf8.DecodeRuneInString(name[n:])
				p++
				n += size
				continue
			default:
				if pattern[p] == name[n] {
					p++
					n++
					continue
				}
			}
		}
		if star < 0 {
			return false
		}
		// Let the last star swallow one more character and retry from there.
		_, size := utf8.DecodeRuneInString(name[mark:])
		mark += size
		p, n = star+1, mark
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
