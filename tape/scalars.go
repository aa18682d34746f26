// scalars.go: the scalar tokens of the pass: strings (with their escapes and UTF-8), numbers and literals.

package tape

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

func (d *Doc) literal(word string, k Kind, n uint32) error {
	if len(d.src)-d.pos < len(word) || string(d.src[d.pos:d.pos+len(word)]) != word {
		return d.errorf("invalid literal, expected %s", word)
	}
	i := d.push(k, d.pos)
	d.nodes[i].n = n
	d.pos += len(word)
	d.done(i)
	return nil
}

// nonFinite returns the error for a NaN or Infinity token at d.pos, or nil
// when none is there.
func (d *Doc) nonFinite() error {
	for _, word := range [...]string{"NaN", "Infinity"} {
		if len(d.src)-d.pos >= len(word) && string(d.src[d.pos:d.pos+len(word)]) == word {
			tok := word
			if d.pos > 0 && d.src[d.pos-1] == '-' && word == "Infinity" {
				tok = "-" + word
			}
			return &SyntaxError{Offset: d.pos, NonFinite: true,
				Msg: fmt.Sprintf("%s is not a JSON value (RFC 8259 §6: numbers are finite)", tok)}
		}
	}
	return nil
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("0x%02x", c)
}

// str checks a string at d.pos (which holds '"') and lays out its node:
// its content between the quotes, marked when it has escapes.
func (d *Doc) str() error {
	d.pos++ // opening quote
	start, escaped := uint32(d.pos), uint32(0)
	for d.pos < len(d.src) {
		src := d.src
		p := plainEnd(src, d.pos)
		if d.pos = p; p == len(src) {
			break
		}
		switch c := src[p]; {
		case c == '"':
			// The node is written whole, once, at the end.
			i := uint32(len(d.nodes))
			d.nodes = append(d.nodes, node{start: start, end: uint32(d.pos), next: i + 1, n: escaped, kind: String})
			d.pos++
			return nil
		case c == '\\':
			escaped = 1
			if err := d.escape(); err != nil {
				return err
			}
		case c < 0x20:
			return d.errorf("invalid control character %s in string", quoteByte(c))
		default:
			r, size := utf8.DecodeRune(d.src[d.pos:])
			if r == utf8.RuneError && size <= 1 {
				return d.errorf("invalid UTF-8 in string")
			}
			d.pos += size
		}
	}
	return d.errorf("unexpected end of input in string")
}

// strSpecial marks the bytes that end a string's fast path: the closing
// quote, an escape, a control character, or the start of a multi-byte rune.
var strSpecial = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	return t
}()

// plainEnd is the index of the first byte at or after p that ends a
// string's fast path (strSpecial), or len(src). The bytes are taken four at
// a time while four remain, on a slice whose length the compiler knows, so
// that no byte is bounds-checked.
func plainEnd(src []byte, p int) int {
	rest := src[p:]
	for len(rest) >= 4 {
		if strSpecial[rest[0]] {
			break
		}
		if strSpecial[rest[1]] {
			rest = rest[1:]
			break
		}
		if strSpecial[rest[2]] {
			rest = rest[2:]
			break
		}
		if strSpecial[rest[3]] {
			rest = rest[3:]
			break
		}
		rest = rest[4:]
	}
	for len(rest) > 0 && !strSpecial[rest[0]] {
		rest = rest[1:]
	}
	return len(src) - len(rest)
}

// escape checks the escape at d.pos (which holds '\\').
func (d *Doc) escape() error {
	if d.pos+1 >= len(d.src) {
		return d.errorf("unexpected end of input in string escape")
	}
	c := d.src[d.pos+1]
	d.pos += 2
	switch c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return nil
	case 'u':
		if len(d.src)-d.pos < 4 {
			return d.errorf("unexpected end of input in \\u escape")
		}
		if _, ok := hex4(d.src[d.pos:]); !ok {
			return d.errorf("invalid \\u escape")
		}
		d.pos += 4
		return nil
	}
	d.pos--
	return d.errorf("invalid escape %s in string", quoteByte(c))
}

// hex4 reads the four hex digits b starts with.
func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// number checks the RFC 8259 number grammar; the text is kept as written,
// so later comparisons can be exact. The position is kept in a local, and
// set in d.pos before any error.
func (d *Doc) number() error {
	src, start := d.src, d.pos
	p := start
	if src[p] == '-' {
		p++
	}
	switch {
	case p < len(src) && src[p] == '0':
		p++
	case p < len(src) && src[p] >= '1' && src[p] <= '9':
		p = digits(src, p)
	default:
		d.pos = p
		if p < len(src) && src[p] == 'I' {
			if err := d.nonFinite(); err != nil {
				return err
			}
		}
		return d.errorf("invalid number")
	}
	if p < len(src) && src[p] == '.' {
		q := digits(src, p+1)
		if d.pos = q; q == p+1 {
			return d.errorf("invalid number: no digits after decimal point")
		}
		p = q
	}
	if p < len(src) && (src[p] == 'e' || src[p] == 'E') {
		p++
		if p < len(src) && (src[p] == '+' || src[p] == '-') {
			p++
		}
		q := digits(src, p)
		if d.pos = q; q == p {
			return d.errorf("invalid number: no digits in exponent")
		}
		p = q
	}
	d.nodes = append(d.nodes, node{start: uint32(start), end: uint32(p), next: uint32(len(d.nodes)) + 1, kind: Number})
	d.pos = p
	return nil
}

// digits is the index past the decimal digits src has from p on.
func digits(src []byte, p int) int {
	for p < len(src) && src[p] >= '0' && src[p] <= '9' {
		p++
	}
	return p
}
