// parse.go: the parser from expression text to a Path (grammar in doc.go).

package jsonpath

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Parse parses expr, in the Attest short form or in the RFC 9535 form (with
// a leading "$"). Errors are *SyntaxError.
func Parse(expr string) (*Path, error) {
	if len(expr) > maxExprLen {
		return nil, &SyntaxError{Offset: maxExprLen, Msg: fmt.Sprintf("expression longer than %d bytes", maxExprLen)}
	}
	for i := 0; i < len(expr); {
		r, n := utf8.DecodeRuneInString(expr[i:])
		if r == utf8.RuneError && n == 1 {
			return nil, &SyntaxError{Offset: i, Msg: "invalid UTF-8"}
		}
		i += n
	}
	p := &parser{src: expr}
	segs, err := p.path()
	if err != nil {
		return nil, err
	}
	path := &Path{segs: segs}
	path.finish()
	return path, nil
}

// MustParse is Parse for expressions known to be valid; it panics on error.
func MustParse(expr string) *Path {
	p, err := Parse(expr)
	if err != nil {
		panic(err)
	}
	return p
}

type parser struct {
	src    string
	pos    int
	nseg   int
	strict bool // the expression starts with "$": RFC 9535 spelling only
}

func (p *parser) errorf(off int, format string, args ...any) error {
	return &SyntaxError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *parser) hasPrefix(s string) bool {
	return len(p.src)-p.pos >= len(s) && p.src[p.pos:p.pos+len(s)] == s
}

// blanks skips RFC 9535 blank space: space, tab, line feed, carriage return.
func (p *parser) blanks() {
	for p.pos < len(p.src) && isBlank(p.src[p.pos]) {
		p.pos++
	}
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (p *parser) countSegment(off int) error {
	p.nseg++
	if p.nseg > maxSegments {
		return p.errorf(off, "more than %d segments", maxSegments)
	}
	return nil
}

// unexpected reports the character at p.pos, naming unsupported features.
func (p *parser) unexpected() error {
	if p.pos >= len(p.src) {
		return p.errorf(p.pos, "unexpected end of expression")
	}
	switch c := p.src[p.pos]; {
	case isBlank(c):
		return p.errorf(p.pos, "unexpected whitespace")
	case c == ',':
		return p.errorf(p.pos, "unions of selectors are not supported")
	case c == ':':
		return p.errorf(p.pos, "array slices are not supported")
	case c == '<' || c == '>':
		return p.errorf(p.pos, "only == and != comparisons are supported")
	case c == '&' || c == '|' || c == '!':
		return p.errorf(p.pos, "logical operators are not supported")
	case c == '(' || c == ')':
		return p.errorf(p.pos, "parentheses are not supported")
	}
	r, _ := utf8.DecodeRuneInString(p.src[p.pos:])
	return p.errorf(p.pos, "unexpected %q", r)
}

func (p *parser) path() ([]segment, error) {
	if p.src == "" {
		return nil, p.errorf(0, "empty expression")
	}
	var segs []segment
	if p.src[0] == '$' {
		p.strict = true
		p.pos = 1
	} else {
		head, err := p.head()
		if err != nil {
			return nil, err
		}
		segs = append(segs, head)
	}
	segs, err := p.segments(segs, true)
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.src) {
		return nil, p.unexpected()
	}
	return segs, nil
}

// head parses the first segment of the short form: a name, "*", or a
// bracketed selector.
func (p *parser) head() (segment, error) {
	switch p.peek() {
	case '[':
		return p.segment(true)
	case '*':
		p.pos++
		return segment{kind: segWildcard}, p.countSegment(0)
	case '.':
		return segment{}, p.errorf(0, "expected '$' or a member name")
	}
	name := p.shorthand()
	if name == "" {
		return segment{}, p.unexpected()
	}
	return nameSegment(name), p.countSegment(0)
}

func nameSegment(name string) segment {
	if name == "length" {
		return segment{kind: segLength}
	}
	return segment{kind: segName, name: name}
}

// shorthand consumes an RFC 9535 member-name-shorthand, or nothing.
func (p *parser) shorthand() string {
	start := p.pos
	for p.pos < len(p.src) {
		r, n := utf8.DecodeRuneInString(p.src[p.pos:])
		if !isNameFirst(r) && (p.pos == start || !isDigit(r)) {
			break
		}
		p.pos += n
	}
	return p.src[start:p.pos]
}

// segments parses *(S segment) after segs. main is false inside a filter,
// where filters may not nest.
func (p *parser) segments(segs []segment, main bool) ([]segment, error) {
	for {
		start := p.pos
		p.blanks()
		if c := p.peek(); c != '.' && c != '[' {
			p.pos = start
			return segs, nil
		}
		segStart := p.pos
		s, err := p.segment(main)
		if err != nil {
			return nil, err
		}
		if s.kind == segLength && len(segs) > 0 {
			last := &segs[len(segs)-1]
			if (last.kind == segWildcard || last.kind == segFilter) && !last.count {
				if !main {
					return nil, p.errorf(segStart, "counting wildcard matches with .length is not supported inside a filter")
				}
				last.count = true
				continue
			}
		}
		segs = append(segs, s)
	}
}

// segment parses one "." or "[" segment.
func (p *parser) segment(main bool) (segment, error) {
	start := p.pos
	if err := p.countSegment(start); err != nil {
		return segment{}, err
	}
	if p.src[p.pos] == '.' {
		p.pos++
		switch p.peek() {
		case '.':
			return segment{}, p.errorf(start, "descendant segments (..) are not supported")
		case '*':
			p.pos++
			return segment{kind: segWildcard}, nil
		}
		name := p.shorthand()
		if name == "" {
			return segment{}, p.errorf(p.pos, "expected a member name or '*' after '.'")
		}
		return nameSegment(name), nil
	}
	p.pos++ // '['
	p.blanks()
	var s segment
	switch c := p.peek(); {
	case c == '\'' || c == '"':
		name, err := p.stringLiteral()
		if err != nil {
			return s, err
		}
		s = segment{kind: segName, name: name}
	case c == '*':
		p.pos++
		s = segment{kind: segWildcard}
	case c == '?':
		if !main {
			return s, p.errorf(p.pos, "nested filters are not supported")
		}
		p.pos++
		f, err := p.filter()
		if err != nil {
			return s, err
		}
		s = segment{kind: segFilter, filter: f}
	case c == '-' || isDigit(rune(c)):
		i, err := p.index()
		if err != nil {
			return s, err
		}
		s = segment{kind: segIndex, index: i}
	case c == ']':
		return s, p.errorf(p.pos, "empty brackets")
	case c == ':' || c == '@' || c == '$':
		return s, p.unexpected()
	default:
		return s, p.errorf(p.pos, "expected a string, an index, '*' or '?' after '['")
	}
	p.blanks()
	if p.peek() != ']' {
		return s, p.unexpected()
	}
	p.pos++
	return s, nil
}

// index parses an RFC 9535 int within the I-JSON range ±(2^53-1).
func (p *parser) index() (int, error) {
	const maxSafe = 1<<53 - 1
	start := p.pos
	if p.peek() == '-' {
		p.pos++
	}
	ds := p.pos
	for p.pos < len(p.src) && isDigit(rune(p.src[p.pos])) {
		p.pos++
	}
	digits := p.src[ds:p.pos]
	switch {
	case digits == "":
		return 0, p.errorf(ds, "expected a digit")
	case len(digits) > 1 && digits[0] == '0':
		return 0, p.errorf(start, "leading zeros are not allowed in an index")
	case digits == "0" && ds > start:
		return 0, p.errorf(start, "-0 is not a valid index")
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > maxSafe {
		return 0, p.errorf(start, "index out of range ±(2^53-1)")
	}
	if ds > start {
		n = -n
	}
	return int(n), nil
}

// filter parses the expression after "[?" up to, not including, "]".
func (p *parser) filter() (*filter, error) {
	p.blanks()
	leftStart := p.pos
	left, err := p.operand()
	if err != nil {
		return nil, err
	}
	afterLeft := p.pos
	p.blanks()
	f := &filter{left: left}
	switch {
	case p.hasPrefix("=="):
		f.op = opEq
	case p.hasPrefix("!="):
		f.op = opNe
	default:
		p.pos = afterLeft
		if left.kind == operandLiteral {
			return nil, p.errorf(leftStart, "a literal in a filter must be compared with == or !=")
		}
		f.op = opExists
		f.constant = left.kind == operandAbsolute
		return f, nil
	}
	p.pos += 2
	p.blanks()
	rightStart := p.pos
	if f.right, err = p.operand(); err != nil {
		return nil, err
	}
	if !singular(f.left.query) {
		return nil, p.errorf(leftStart, "a query compared with %s must be singular (no wildcard)", p.src[afterLeft:rightStart])
	}
	if !singular(f.right.query) {
		return nil, p.errorf(rightStart, "a query in a comparison must be singular (no wildcard)")
	}
	f.constant = f.left.kind != operandRelative && f.right.kind != operandRelative
	return f, nil
}

func singular(q []segment) bool {
	for _, s := range q {
		if s.kind == segWildcard {
			return false
		}
	}
	return true
}

// operand parses a literal or a query inside a filter.
func (p *parser) operand() (operand, error) {
	start := p.pos
	switch c := p.peek(); {
	case c == '@' || c == '$':
		p.pos++
		q, err := p.segments(nil, false)
		kind := operandRelative
		if c == '$' {
			kind = operandAbsolute
		}
		return operand{kind: kind, query: q}, err
	case c == '\'' || c == '"':
		s, err := p.stringLiteral()
		return operand{kind: operandLiteral, value: s}, err
	case c == '-' || isDigit(rune(c)):
		n, err := p.number()
		return operand{kind: operandLiteral, value: n}, err
	}
	name := p.shorthand()
	if name == "" {
		if p.pos < len(p.src) && (p.src[p.pos] == '(' || p.src[p.pos] == '!') {
			return operand{}, p.unexpected()
		}
		return operand{}, p.errorf(start, "expected a query or a literal")
	}
	end := p.pos
	p.blanks()
	if p.peek() == '(' {
		return operand{}, p.errorf(start, "function extensions such as %s() are not supported", name)
	}
	p.pos = end
	switch name {
	case "true":
		return operand{kind: operandLiteral, value: true}, nil
	case "false":
		return operand{kind: operandLiteral, value: false}, nil
	case "null":
		return operand{kind: operandLiteral, value: nil}, nil
	}
	if p.strict {
		return operand{}, p.errorf(start, "a query in a filter starts with '@' or '$' when the expression starts with '$'")
	}
	if err := p.countSegment(start); err != nil {
		return operand{}, err
	}
	q, err := p.segments([]segment{nameSegment(name)}, false)
	return operand{kind: operandRelative, query: q}, err
}

// number parses an RFC 9535 number literal: (int / "-0") [frac] [exp].
func (p *parser) number() (json.Number, error) {
	start := p.pos
	if p.peek() == '-' {
		p.pos++
	}
	switch c := p.peek(); {
	case c == '0':
		p.pos++
		if isDigit(rune(p.peek())) {
			return "", p.errorf(start, "leading zeros are not allowed in a number")
		}
	case isDigit(rune(c)):
		p.digits()
	default:
		return "", p.errorf(p.pos, "expected a digit")
	}
	if p.peek() == '.' {
		p.pos++
		if !p.digits() {
			return "", p.errorf(p.pos, "expected a digit after '.'")
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		p.pos++
		if c := p.peek(); c == '+' || c == '-' {
			p.pos++
		}
		if !p.digits() {
			return "", p.errorf(p.pos, "expected a digit in the exponent")
		}
	}
	return json.Number(p.src[start:p.pos]), nil
}

// digits consumes *DIGIT and reports whether there was one.
func (p *parser) digits() bool {
	start := p.pos
	for p.pos < len(p.src) && isDigit(rune(p.src[p.pos])) {
		p.pos++
	}
	return p.pos > start
}
