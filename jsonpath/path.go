// path.go: the parsed form of an expression and its canonical printing.

package jsonpath

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Path is a parsed expression. It is immutable: share it between
// goroutines and cache it freely.
type Path struct {
	segs     []segment
	text     string // canonical form, see String
	static   bool   // only names and non-negative indexes: text is the location
	step     int    // Match.Step for a static path
	singular bool
}

type segKind uint8

const (
	segName     segKind = iota + 1 // .name, ['name']
	segLength                      // .length: the member "length", or a length
	segIndex                       // [3], [-1]
	segWildcard                    // .*, [*]
	segFilter                      // [?...]
)

// segment is one step of a path. A wildcard or filter followed by .length is
// folded into one segment with count set: it yields the number of matches.
type segment struct {
	kind   segKind
	count  bool
	name   string
	index  int
	filter *filter
}

type opKind uint8

const (
	opExists opKind = iota + 1 // [?query]
	opEq                       // ==
	opNe                       // !=
)

// filter is the expression of a filter segment: an existence test on left,
// or a comparison of left and right.
type filter struct {
	op          opKind
	left, right operand
	constant    bool // no relative query: the same result for every element
}

type operandKind uint8

const (
	operandLiteral  operandKind = iota + 1
	operandRelative             // @..., or a bare name in the short form
	operandAbsolute             // $...
)

// operand is a literal or a query. A literal value is nil, bool, string or
// json.Number; null is a literal whose value is nil.
type operand struct {
	kind  operandKind
	value any
	query []segment // names, indexes, .length; wildcards only in existence tests
}

// String returns the canonical form of p: the Attest short form (no "$",
// bare names in filters where they are unambiguous, single-quoted strings).
// Parse(p.String()) yields a Path equal to p.
func (p *Path) String() string { return p.text }

// IsSingular reports whether p selects at most one value: it has no
// wildcard and no filter, except ones followed by .length, which count.
func (p *Path) IsSingular() bool { return p.singular }

// finish computes the cached fields of a freshly parsed path.
func (p *Path) finish() {
	p.text = string(appendPath(nil, p.segs))
	p.singular = true
	p.static = true
	for _, s := range p.segs {
		switch {
		case s.kind == segName:
		case s.kind == segIndex && s.index >= 0:
		default:
			p.static = false
		}
		if (s.kind == segWildcard || s.kind == segFilter) && !s.count {
			p.singular = false
		}
	}
	p.step = -1
	if p.static && len(p.segs) >= 2 && p.segs[0].kind == segName && p.segs[0].name == "steps" && p.segs[1].kind == segIndex {
		p.step = p.segs[1].index
	}
}

// appendPath prints segs in the short form; no segments print as "$".
func appendPath(b []byte, segs []segment) []byte {
	if len(segs) == 0 {
		return append(b, '$')
	}
	for i := range segs {
		b = appendSegment(b, &segs[i], i == 0)
	}
	return b
}

func appendSegment(b []byte, s *segment, first bool) []byte {
	switch s.kind {
	case segName:
		b = appendName(b, s.name, first)
	case segLength:
		if !first {
			b = append(b, '.')
		}
		b = append(b, "length"...)
	case segIndex:
		b = appendIndex(b, s.index)
	case segWildcard:
		b = append(b, "[*]"...)
	case segFilter:
		b = append(b, "[?"...)
		b = appendFilter(b, s.filter)
		b = append(b, ']')
	}
	if s.count {
		b = append(b, ".length"...)
	}
	return b
}

// appendName prints a member name as .name when that reads back as the same
// member, else as ['name']. "length" is always bracketed: .length has its
// own meaning.
func appendName(b []byte, name string, first bool) []byte {
	if !isShorthand(name) || name == "length" {
		b = append(b, '[')
		b = appendString(b, name)
		return append(b, ']')
	}
	if !first {
		b = append(b, '.')
	}
	return append(b, name...)
}

func appendIndex(b []byte, i int) []byte {
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(i), 10)
	return append(b, ']')
}

func appendFilter(b []byte, f *filter) []byte {
	b = appendOperand(b, &f.left)
	switch f.op {
	case opEq:
		b = append(b, "=="...)
	case opNe:
		b = append(b, "!="...)
	default:
		return b
	}
	return appendOperand(b, &f.right)
}

func appendOperand(b []byte, o *operand) []byte {
	switch o.kind {
	case operandLiteral:
		return appendLiteral(b, o.value)
	case operandAbsolute:
		b = append(b, '$')
	case operandRelative:
		// A bare name reads back as the same query unless it is a literal
		// keyword or not a shorthand name.
		if len(o.query) > 0 && bareHead(&o.query[0]) {
			return appendPath(b, o.query)
		}
		b = append(b, '@')
	}
	for i := range o.query {
		b = appendSegment(b, &o.query[i], false)
	}
	return b
}

// bareHead reports whether s can start a bare query inside a filter.
func bareHead(s *segment) bool {
	switch s.kind {
	case segLength:
		return true
	case segName:
		return isShorthand(s.name) && s.name != "length" && s.name != "true" && s.name != "false" && s.name != "null"
	}
	return false
}

func appendLiteral(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case string:
		return appendString(b, v)
	case json.Number:
		return append(b, v...)
	}
	return b
}

// appendString prints s as a single-quoted string literal. Bytes that are
// not UTF-8 (possible only in documents built by hand) print as U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '\'')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+n]...)
			}
			i += n
			continue
		}
		i++
		switch c {
		case '\'', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			if c < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			} else {
				b = append(b, c)
			}
		}
	}
	return append(b, '\'')
}

// isShorthand reports whether name is an RFC 9535 member-name-shorthand.
func isShorthand(name string) bool {
	if name == "" || !utf8.ValidString(name) {
		return false
	}
	for i, r := range name {
		if !isNameFirst(r) && (i == 0 || !isDigit(r)) {
			return false
		}
	}
	return true
}

// isNameFirst is RFC 9535 name-first: ALPHA / "_" / %x80-D7FF / %xE000-10FFFF.
func isNameFirst(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' ||
		r >= 0x80 && r <= 0xD7FF || r >= 0xE000 && r <= 0x10FFFF
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }
