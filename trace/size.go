// size.go: valueSize, the length of a value's compact JSON encoding, measured on its tape without encoding or decoding.

package trace

import (
	"bytes"
	"math"
	"unicode/utf8"

	"attest-engine/tape"
)

// nonASCII marks bytes >= 0x80 in asciiExtra: the rest of the string takes
// the slower, rune-by-rune path.
const nonASCII = 0xff

// asciiExtra[c] is how many bytes beyond one the encoding of byte c takes.
var asciiExtra = func() (t [256]uint8) {
	for c := 0; c < 0x20; c++ {
		t[c] = 5 // \u00XX
	}
	for _, c := range []byte{'"', '\\', '\b', '\f', '\n', '\r', '\t'} {
		t[c] = 1
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = nonASCII
	}
	return t
}()

// valueSize is encodedSize(v.Any(), limit), measured on the tape without
// decoding: a string's size from its decoded content, a number's its text
// (json.Number is written as it is), and one byte for each bracket, comma
// and colon. v's document has no duplicate member names (Any would keep one
// of the two, and the size count it once).
func valueSize(v tape.Value, limit int) int {
	n := 0
	for tok := range v.Tokens() {
		switch tok.Kind() {
		case tape.Null, tape.Bool:
			n += len(tok.Text()) // null, true, false
		case tape.Number:
			n += len(tok.Text())
		case tape.String:
			n += valueStringSize(tok)
		case tape.Array:
			n += 2 + max(tok.Len()-1, 0) // brackets, commas
		case tape.Object:
			n += 2 + tok.Len() + max(tok.Len()-1, 0) // braces, colons, commas
		}
		if n > limit {
			break
		}
	}
	return n
}

// exactValueSize is valueSize without a limit, for messages that report the
// actual size once a limit is known to be exceeded.
func exactValueSize(v tape.Value) int { return valueSize(v, math.MaxInt) }

// valueStringSize is stringSize of string v's decoded content. Its text
// between escapes is valid UTF-8 without quotes, backslashes or control
// bytes, so there only U+2028 and U+2029 grow (from 3 bytes to 6); each
// escape counts as its rune is written.
func valueStringSize(v tape.Value) int {
	if !v.Escaped() {
		return 2 + runSize(v.Raw())
	}
	n := 2
	for run, r := range v.Chunks() {
		if run != nil {
			n += runSize(run)
		} else {
			n += runeSize(r)
		}
	}
	return n
}

// runSize is the encoded length of run, valid UTF-8 that holds no byte
// below 0x20, no '"' and no '\\'.
func runSize(run []byte) int {
	n := len(run)
	for i := 0; ; {
		j := bytes.IndexByte(run[i:], 0xe2) // U+2028 and U+2029 are E2 80 A8 and E2 80 A9
		if j < 0 {
			return n
		}
		i += j
		if i+2 < len(run) && run[i+1] == 0x80 && (run[i+2] == 0xa8 || run[i+2] == 0xa9) {
			n += 3
		}
		i++
	}
}

// runeSize is the encoded length of r, as stringSize counts it.
func runeSize(r rune) int {
	switch {
	case r < utf8.RuneSelf:
		return 1 + int(asciiExtra[r])
	case r == '\u2028' || r == '\u2029':
		return 6
	}
	return utf8.RuneLen(r)
}
