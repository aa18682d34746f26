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
	for i := 0; i < len(b) && first < 0; i++ {
		if bidiLen(b, i) > 0 {
			first = i
		}
	}
	if first < 0 {
		return b
	}
	out := bytes.NewBuffer(make([]byte, 0, len(b)+32))
	out.Write(b[:first])
	for i := first; i < len(b); {
		n := bidiLen(b, i)
		if n == 0 {
			out.WriteByte(b[i])
			i++
			continue
		}
		r, _ := utf8.DecodeRune(b[i : i+n])
		fmt.Fprintf(out, `\u%04x`, r)
		i += n
	}
	return out.Bytes()
}

// bidiLen is the length of the UTF-8 encoding of a bidirectional
// formatting character at b[i], or 0: U+061C is D8 9C, U+200E and U+200F
// are E2 80 8E and 8F, U+202A–U+202E E2 80 AA–AE, U+2066–U+2069 E2 81
// A6–A9. Matching bytes, not decoding runes, keeps the scan of a report
// without any (nearly all) at memory speed.
func bidiLen(b []byte, i int) int {
	switch b[i] {
	case 0xD8:
		if i+1 < len(b) && b[i+1] == 0x9C {
			return 2
		}
	case 0xE2:
		if i+2 >= len(b) {
			return 0
		}
		switch c := b[i+2]; b[i+1] {
		case 0x80:
			if c == 0x8E || c == 0x8F || 0xAA <= c && c <= 0xAE {
				return 3
			}
		case 0x81:
			if 0xA6 <= c && c <= 0xA9 {
				return 3
			}
		}
	}
	return 0
}
