// literal.go: string literals, with the escapes of RFC 9535 §2.3.1.1.

package jsonpath

import "unicode/utf8"

// stringLiteral parses a single- or double-quoted string starting at p.pos.
// Inside 'single' quotes \' is an escape and \" is not; inside "double"
// quotes it is the other way round.
func (p *parser) stringLiteral() (string, error) {
	start := p.pos
	quote := p.src[p.pos]
	p.pos++
	var b []byte // nil until the first escape: most literals are substrings
	chunk := p.pos
	for {
		if p.pos >= len(p.src) {
			return "", p.errorf(start, "unterminated string literal")
		}
		c := p.src[p.pos]
		switch {
		case c == quote:
			s := p.src[chunk:p.pos]
			p.pos++
			if b == nil {
				return s, nil
			}
			return string(append(b, s...)), nil
		case c < 0x20:
			return "", p.errorf(p.pos, "control character U+%04X in a string literal must be escaped", c)
		case c == '\\':
			b = append(b, p.src[chunk:p.pos]...)
			r, err := p.escape(quote)
			if err != nil {
				return "", err
			}
			b = utf8.AppendRune(b, r)
			chunk = p.pos
		default:
			p.pos++
		}
	}
}

// escape parses the escape sequence at p.pos (a backslash).
func (p *parser) escape(quote byte) (rune, error) {
	start := p.pos
	p.pos++
	if p.pos >= len(p.src) {
		return 0, p.errorf(start, "unterminated escape sequence")
	}
	c := p.src[p.pos]
	p.pos++
	switch c {
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case '/', '\\':
		return rune(c), nil
	case quote:
		return rune(c), nil
	case 'u':
		r, err := p.hex4()
		if err != nil {
			return 0, err
		}
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return 0, p.errorf(start, "lone low surrogate in \\u escape")
		case r >= 0xD800 && r <= 0xDBFF:
			if !p.hasPrefix(`\u`) {
				return 0, p.errorf(start, "high surrogate not followed by a \\u low surrogate")
			}
			p.pos += 2
			lo, err := p.hex4()
			if err != nil {
				return 0, err
			}
			if lo < 0xDC00 || lo > 0xDFFF {
				return 0, p.errorf(start, "high surrogate not followed by a \\u low surrogate")
			}
			return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), nil
		}
		return r, nil
	}
	return 0, p.errorf(start, "invalid escape sequence")
}

// hex4 parses the four hex digits of a \u escape.
func (p *parser) hex4() (rune, error) {
	if len(p.src)-p.pos < 4 {
		return 0, p.errorf(p.pos, "expected four hex digits after \\u")
	}
	var r rune
	for _, c := range []byte(p.src[p.pos : p.pos+4]) {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, p.errorf(p.pos, "expected four hex digits after \\u")
		}
		r = r<<4 | rune(d)
	}
	p.pos += 4
	return r, nil
}
