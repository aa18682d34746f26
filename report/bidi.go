// bidi.go: the Unicode bidirectional formatting characters, which reports never write raw.

package report

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// IsBidiControl reports whether r is one of the Unicode bidirectional
// formatting characters (Unicode Standard Annex #9, "Explicit Directional
// Embeddings, Overrides and Isolates", and the implicit marks): U+061C
// ARABIC LETTER MARK, U+200E LEFT-TO-RIGHT MARK, U+200F RIGHT-TO-LEFT MARK,
// U+202A–U+202E (LRE, RLE, PDF, LRO, RLO) and U+2066–U+2069 (LRI, RLI, FSI,
// PDI). Displayed raw, one of them in a trace's text reorders what follows
// it, up to the end of the line or paragraph: the report's own words too.
func IsBidiControl(r rune) bool {
	switch {
	case r == 0x061C, r == 0x200E, r == 0x200F:
		return true
	case r >= 0x202A && r <= 0x202E:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// EscapeBidi replaces each bidirectional formatting character in b with
// the six characters \uXXXX (lower-case hex). In JSON text, where such a
// character can only stand inside a string, that is the character's own
// escape: the document decodes to the same values. In XML it is text: the
// character is shown, not obeyed, as in the text report. b is returned as
// it is when it holds none.
func EscapeBidi(b []byte) []byte {
	first := -1
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if IsBidiControl(r) {
			first = i
			break
		}
		i += size
	}
	if first < 0 {
		return b
	}
	out := bytes.NewBuffer(make([]byte, 0, len(b)+32))
	out.Write(b[:first])
	for i := first; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if IsBidiControl(r) {
			fmt.Fprintf(out, `\u%04x`, r)
		} else {
			out.Write(b[i : i+size])
		}
		i += size
	}
	return out.Bytes()
}
