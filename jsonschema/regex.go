// regex.go translates ECMA-262 regular expressions (which JSON Schema patterns are, validation spec §6.3.3
// and core spec §6.4) to Go's RE2 syntax, and rejects what RE2 cannot run.

package jsonschema

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// errUnsupported marks valid ECMA-262 syntax that RE2 cannot execute (lookaround, backreferences).
var errUnsupported = errors.New("not supported by RE2")

// errTooLarge marks a pattern whose estimated program is beyond maxPatternSize; the rest of it is not read.
var errTooLarge = errors.New("pattern too large")

// compileECMA compiles an ECMA-262 pattern with Unicode semantics into a Go regexp, and returns the
// estimated size of its program (see translator.size).
func compileECMA(pattern string) (*regexp.Regexp, int, error) {
	t, err := translateECMA(pattern)
	if err != nil {
		return nil, 0, err
	}
	re, err := regexp.Compile(t.out.String())
	return re, t.size(), err
}

// ECMA-262 WhiteSpace and LineTerminator code points (ECMA-262 §22.2.2.9 CharacterClassEscape :: s);
// RE2's \s is ASCII only.
const ecmaSpace = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// ECMA-262 "." excludes the four line terminators; RE2's excludes only \n.
const ecmaDot = `[^\n\r\x{2028}\x{2029}]`

// unicodeNames maps ECMA-262 property names that RE2 spells differently.
var unicodeNames = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll",
		"Titlecase_Letter": "Lt", "Modifier_Letter": "Lm", "Other_Letter": "Lo", "Mark": "M",
		"Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me", "Number": "N",
		"Decimal_Number": "Nd", "digit": "Nd", "Letter_Number": "Nl", "Other_Number": "No",
		"Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd",
		"Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
		"Final_Punctuation": "Pf", "Other_Punctuation": "Po", "Symbol": "S", "Math_Symbol": "Sm",
		"Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So", "Separator": "Z",
		"Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp", "Other": "C",
		"Control": "Cc", "cntrl": "Cc", "Format": "Cf", "Surrogate": "Cs", "Private_Use": "Co",
		"Unassigned": "Cn",
	}
})

// translateECMA rewrites an ECMA-262 pattern to RE2 syntax, in t.out. It returns an error wrapping
// errUnsupported for valid ECMA-262 constructs RE2 lacks, errTooLarge for a pattern beyond
// maxPatternSize, and another error for invalid syntax.
func translateECMA(p string) (*translator, error) {
	t := &translator{src: p}
	return t, t.run()
}

type translator struct {
	src    string
	i      int
	out    strings.Builder
	groups []int // program where each open group began
	copies int   // bytes that RE2 writes out again for repeats
	ranges int   // ranges of the Unicode property classes
	atom   int   // program of the last atom, the one a quantifier repeats
}

// program estimates the instructions of the RE2 program for the pattern read so far by the bytes they are
// written with, counting an atom repeated {n,m} times m times over, as RE2 writes it out.
func (t *translator) program() int { return t.out.Len() + t.copies }

// size estimates what compiling the pattern read so far costs: its program, plus the ranges of its
// Unicode property classes (which repeats share). Regular expressions run in linear time, but building
// them is only bounded by this.
func (t *translator) size() int { return t.program() + t.ranges }

func (t *translator) errorf(format string, args ...any) error {
	return fmt.Errorf("at offset %d: "+format, append([]any{t.i}, args...)...)
}

func (t *translator) run() error {
	for t.i < len(t.src) {
		if err := t.checkSize(); err != nil {
			return err
		}
		start := t.program()
		c := t.src[t.i]
		switch c {
		case '\\':
			if err := t.escape(false); err != nil {
				return err
			}
		case '[':
			if err := t.class(); err != nil {
				return err
			}
		case '(':
			if err := t.group(); err != nil {
				return err
			}
			t.groups = append(t.groups, start)
			continue
		case ')':
			if len(t.groups) == 0 {
				return t.errorf("unmatched )")
			}
			start = t.groups[len(t.groups)-1]
			t.groups = t.groups[:len(t.groups)-1]
			t.out.WriteByte(c)
			t.i++
		case '.':
			t.out.WriteString(ecmaDot)
			t.i++
		case '{':
			if n, ok := t.repeat(); ok {
				// RE2 writes the atom out n times (x{2,5} is xx(x(x(x)?)?)?).
				t.copies += t.atom * (n - 1)
				t.atom *= n
				continue
			}
			t.out.WriteByte(c)
			t.i++
		default:
			t.out.WriteByte(c)
			t.i++
		}
		t.atom = t.program() - start
	}
	if len(t.groups) != 0 {
		return t.errorf("missing )")
	}
	return t.checkSize()
}

func (t *translator) checkSize() error {
	if t.size() > maxPatternSize {
		return fmt.Errorf("%w: its estimated size passes %d at offset %d", errTooLarge, maxPatternSize, t.i)
	}
	return nil
}

// repeat copies a {n}, {n,} or {n,m} quantifier at t.i and returns how many copies of the atom RE2 builds
// for it: m, or n without m. ok is false when no quantifier is there ("{" is then a literal).
func (t *translator) repeat() (n int, ok bool) {
	digits := func(j int) int {
		for j < len(t.src) && isDigit(t.src[j]) {
			j++
		}
		return j
	}
	lo := t.i + 1
	end := digits(lo)
	count := t.src[lo:end]
	if count == "" {
		return 0, false
	}
	if end < len(t.src) && t.src[end] == ',' {
		hi := end + 1
		if end = digits(hi); end > hi {
			count = t.src[hi:end]
		}
	}
	if end >= len(t.src) || t.src[end] != '}' {
		return 0, false
	}
	n = 99999 // RE2 refuses counts above 1000; beyond that the estimate only has to stay large
	if len(count) <= 5 {
		n, _ = strconv.Atoi(count)
	}
	t.out.WriteString(t.src[t.i : end+1])
	t.i = end + 1
	return max(n, 1), true
}

func (t *translator) group() error {
	rest := t.src[t.i:]
	switch {
	case strings.HasPrefix(rest, "(?:"):
		t.out.WriteString("(?:")
		t.i += 3
	case strings.HasPrefix(rest, "(?=") || strings.HasPrefix(rest, "(?!") ||
		strings.HasPrefix(rest, "(?<=") || strings.HasPrefix(rest, "(?<!"):
		return fmt.Errorf("lookaround assertion at offset %d: %w", t.i, errUnsupported)
	case strings.HasPrefix(rest, "(?<"):
		end := strings.IndexByte(rest, '>')
		if end < 0 || !validGroupName(rest[3:end]) {
			return t.errorf("invalid group name")
		}
		t.out.WriteString("(?P<" + rest[3:end] + ">")
		t.i += end + 1
	case strings.HasPrefix(rest, "(?"):
		return t.errorf("invalid group: %q is not ECMA-262 syntax", rest[:min(len(rest), 4)])
	default:
		t.out.WriteByte('(')
		t.i++
	}
	return nil
}

func validGroupName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r == '$' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || (i > 0 && '0' <= r && r <= '9') || r > 0x7f) {
			return false
		}
	}
	return true
}

// class translates a character class [...]; ECMA-262 allows [] (matches nothing) and [^] (anything).
func (t *translator) class() error {
	start := t.i
	t.i++
	neg := false
	if t.i < len(t.src) && t.src[t.i] == '^' {
		neg = true
		t.i++
	}
	if t.i < len(t.src) && t.src[t.i] == ']' {
		t.i++
		if neg {
			t.out.WriteString(`[\x{0}-\x{10FFFF}]`)
		} else {
			t.out.WriteString(`[^\x{0}-\x{10FFFF}]`)
		}
		return nil
	}
	t.out.WriteByte('[')
	if neg {
		t.out.WriteByte('^')
	}
	for t.i < len(t.src) {
		c := t.src[t.i]
		switch c {
		case ']':
			t.out.WriteByte(']')
			t.i++
			return nil
		case '\\':
			if err := t.escape(true); err != nil {
				return err
			}
		case '[':
			t.out.WriteString(`\[`)
			t.i++
		default:
			t.out.WriteByte(c)
			t.i++
		}
	}
	t.i = start
	return t.errorf("missing ]")
}

// escape translates one backslash escape, inside a class or not.
func (t *translator) escape(inClass bool) error {
	if t.i+1 >= len(t.src) {
		return t.errorf("trailing backslash")
	}
	c := t.src[t.i+1]
	t.i += 2
	switch c {
	case 'd', 'D', 'w', 'W', 't', 'n', 'r', 'f', 'v':
		t.out.WriteString(`\` + string(c))
	case 'b', 'B':
		if inClass {
			if c == 'B' {
				return t.errorf(`\B in a class`)
			}
			t.out.WriteString(`\x08`)
		} else {
			t.out.WriteString(`\` + string(c))
		}
	case 's':
		if inClass {
			t.out.WriteString(ecmaSpace)
		} else {
			t.out.WriteString("[" + ecmaSpace + "]")
		}
	case 'S':
		if inClass {
			return fmt.Errorf(`\S inside a character class at offset %d: %w`, t.i, errUnsupported)
		}
		t.out.WriteString("[^" + ecmaSpace + "]")
	case 'c':
		if t.i < len(t.src) && isASCIILetter(t.src[t.i]) {
			fmt.Fprintf(&t.out, `\x{%x}`, t.src[t.i]%32)
			t.i++
			return nil
		}
		return t.errorf(`invalid \c escape`)
	case '0':
		if t.i < len(t.src) && isDigit(t.src[t.i]) {
			return t.errorf("invalid octal escape")
		}
		t.out.WriteString(`\x{0}`)
	case 'x':
		if t.i+2 <= len(t.src) && isHex(t.src[t.i:t.i+2]) {
			t.out.WriteString(`\x{` + t.src[t.i:t.i+2] + `}`)
			t.i += 2
			return nil
		}
		return t.errorf(`invalid \x escape`)
	case 'u':
		r, err := t.unicodeEscape()
		if err != nil {
			return err
		}
		fmt.Fprintf(&t.out, `\x{%x}`, r)
	case 'p', 'P':
		if t.i >= len(t.src) || t.src[t.i] != '{' {
			return t.errorf(`invalid \%c escape`, c)
		}
		end := strings.IndexByte(t.src[t.i:], '}')
		if end < 0 {
			return t.errorf(`invalid \%c escape`, c)
		}
		name := t.src[t.i+1 : t.i+end]
		t.i += end + 1
		if _, v, ok := strings.Cut(name, "="); ok {
			name = v // General_Category=L, Script=Greek: RE2 accepts both kinds of name bare
		}
		if short, ok := unicodeNames()[name]; ok {
			name = short
		}
		fmt.Fprintf(&t.out, `\%c{%s}`, c, name)
		if tbl := unicodeTable(name); tbl != nil {
			t.ranges += len(tbl.R16) + len(tbl.R32)
		}
	case 'k':
		return fmt.Errorf(`backreference at offset %d: %w`, t.i, errUnsupported)
	default:
		switch {
		case '1' <= c && c <= '9':
			return fmt.Errorf(`backreference at offset %d: %w`, t.i, errUnsupported)
		case strings.IndexByte(`^$\.*+?()[]{}|/-`, c) >= 0:
			t.out.WriteString(`\` + string(c))
		default:
			// With Unicode semantics ECMA-262 only allows escaping syntax characters.
			return t.errorf(`invalid escape \%c`, c)
		}
	}
	return nil
}

// unicodeEscape reads the rest of \uXXXX (joining a surrogate pair) or \u{X...}.
func (t *translator) unicodeEscape() (rune, error) {
	s := t.src[t.i:]
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end < 2 {
			return 0, t.errorf(`invalid \u escape`)
		}
		v, err := strconv.ParseUint(s[1:end], 16, 32)
		if err != nil || v > 0x10FFFF {
			return 0, t.errorf(`invalid \u escape`)
		}
		t.i += end + 1
		return rune(v), nil
	}
	if len(s) < 4 || !isHex(s[:4]) {
		return 0, t.errorf(`invalid \u escape`)
	}
	v, _ := strconv.ParseUint(s[:4], 16, 32)
	t.i += 4
	if 0xD800 <= v && v < 0xDC00 && strings.HasPrefix(t.src[t.i:], `\u`) && len(t.src) >= t.i+6 && isHex(t.src[t.i+2:t.i+6]) {
		lo, _ := strconv.ParseUint(t.src[t.i+2:t.i+6], 16, 32)
		if 0xDC00 <= lo && lo < 0xE000 {
			t.i += 6
			return rune(0x10000 + (v-0xD800)<<10 + (lo - 0xDC00)), nil
		}
	}
	return rune(v), nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isDigit(c) && !('a' <= c && c <= 'f') && !('A' <= c && c <= 'F') {
			return false
		}
	}
	return s != ""
}

func isASCIILetter(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }

// unicodeTable returns the table RE2 uses for a Unicode class name, nil for a name it does not know.
func unicodeTable(name string) *unicode.RangeTable {
	if tbl, ok := unicode.Categories[name]; ok {
		return tbl
	}
	return unicode.Scripts[name]
}

// isECMARegex implements format "regex" (validation spec §7.3.8): valid ECMA-262 syntax, including
// constructs RE2 cannot run. A pattern beyond maxPatternSize is not read to the end and counts as valid.
func isECMARegex(s string) bool {
	_, _, err := compileECMA(s)
	return err == nil || errors.Is(err, errUnsupported) || errors.Is(err, errTooLarge)
}
