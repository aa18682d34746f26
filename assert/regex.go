// regex.go: regex_match patterns, compiled under a bound on their compiled size rather than their length.

package assert

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"unicode"

	"attest-engine/clip"
)

// maxRegexSize bounds the estimated size of a regex_match pattern: the
// instructions of its RE2 program plus the ranges of its character
// classes, the bound the schema validator applies to a pattern (2¹⁸). RE2
// runs in linear time in the text; this keeps building the program bounded
// too. A long alternation of names (600 product names, ~10,000 bytes) is
// far inside it; a{1000}{1000} is not.
const maxRegexSize = 1 << 18

// regexTooLarge is the ASSERTION_ERROR of a pattern beyond maxRegexSize.
// The pattern is not quoted: it may be hundreds of kilobytes.
func regexTooLarge(at string) error {
	return specErrorf(fmt.Sprintf("Regex patterns are limited to an estimated compiled size of %d (RE2 instructions and character class ranges; a repeat counts its copies). Shorten the regex or split it into several assertions.", maxRegexSize),
		"invalid regex: pattern too large (its estimated compiled size passes %d%s)", maxRegexSize, at)
}

// compileRegex compiles an RE2 pattern (spec §4 layer 4: "RE2 syntax");
// spec §5 gives the wording of an invalid one. fold runs it under (?i),
// where a (?-i) inside the pattern still turns case folding back off.
func compileRegex(p string, fold bool) (*regexp.Regexp, error) {
	// Parsing costs what the pattern text and its Unicode property classes
	// (\pL holds hundreds of ranges) cost; bound that before parsing.
	if n, at := parseCost(p); n > maxRegexSize {
		return nil, regexTooLarge(fmt.Sprintf(" at byte %d", at))
	}
	flags := syntax.Perl
	if fold {
		flags |= syntax.FoldCase
	}
	tree, err := syntax.Parse(p, flags)
	if err != nil {
		var se *syntax.Error
		if errors.As(err, &se) && se.Code == syntax.ErrLarge {
			return nil, regexTooLarge("")
		}
		return nil, invalidRegex(p)
	}
	if programSize(tree) > maxRegexSize {
		return nil, regexTooLarge("")
	}
	if fold {
		p = "(?i)" + p
	}
	re, err := regexp.Compile(p)
	if err != nil { // parsed above with the same flags: not expected
		return nil, invalidRegex(p)
	}
	return re, nil
}

// invalidRegex is spec §5's "invalid regex '<pattern>'"; a pattern longer
// than 200 bytes is quoted up to there, with an ellipsis.
func invalidRegex(p string) error {
	q := clip.String(p, 200)
	return specErrorf(fmt.Sprintf("The regex pattern '%s' is not valid RE2 syntax. Fix the regex in assertion spec.", q), "invalid regex '%s'", q)
}

// parseCost bounds from above, in one pass over the text, what parsing p
// builds: a rune or node per byte, and the ranges of every Unicode property
// class it names, twice over (case folding may add as many). It returns
// the cost and the offset where it passed maxRegexSize.
func parseCost(p string) (n, at int) {
	for i := 0; i < len(p); i++ {
		n++
		if p[i] != '\\' || i+1 >= len(p) {
			if n > maxRegexSize {
				return n, i
			}
			continue
		}
		i++
		if c := p[i]; c == 'p' || c == 'P' {
			name := ""
			if i+1 < len(p) && p[i+1] == '{' {
				end := i + 2
				for end < len(p) && p[end] != '}' {
					end++
				}
				name = p[i+2 : end]
				if len(name) > 0 && name[0] == '^' {
					name = name[1:]
				}
			} else if i+1 < len(p) {
				name = p[i+1 : i+2]
			}
			n += 2 * unicodeRanges(name)
		}
		if n > maxRegexSize {
			return n, i
		}
	}
	return n, len(p)
}

// unicodeRanges counts the ranges of a Unicode category or script; Any
// and unknown names (a parse error follows) count one.
func unicodeRanges(name string) int {
	tbl := unicode.Categories[name]
	if tbl == nil {
		tbl = unicode.Scripts[name]
	}
	if tbl == nil {
		return 1
	}
	return len(tbl.R16) + len(tbl.R32)
}

// programSize estimates the compiled program of a parsed pattern: RE2
// writes a counted repeat out (x{2,5} is xx(x(x(x)?)?)?), so a repeat
// counts its copies, as the schema validator counts them; a character
// class is one instruction, and its ranges, shared by the copies, count
// once; 4 more are the program's own (fail, the whole-match capture, match).
// The count stops growing past the bound.
func programSize(re *syntax.Regexp) int {
	ranges := 0
	var size func(re *syntax.Regexp) int
	size = func(re *syntax.Regexp) int {
		n := 1
		switch re.Op {
		case syntax.OpLiteral:
			n = max(1, len(re.Rune))
		case syntax.OpCharClass:
			ranges += len(re.Rune) / 2
		case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
			n = 2 + size(re.Sub[0])
		case syntax.OpConcat, syntax.OpAlternate:
			n = len(re.Sub)
			for _, s := range re.Sub {
				n += size(s)
			}
		case syntax.OpRepeat:
			copies := re.Max
			if copies < 0 {
				copies = re.Min + 1 // x{n,} is n copies and a star
			}
			n = min(maxRegexSize+1, max(1, copies)*(1+size(re.Sub[0])))
		}
		return min(n, maxRegexSize+1)
	}
	n := size(re)
	return min(n+ranges+4, maxRegexSize+1)
}
