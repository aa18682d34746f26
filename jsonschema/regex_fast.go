// regex_fast.go holds a bit-parallel matcher for small regular expressions (at most 64 character
// positions, no assertions other than ^ and $ at the ends), which covers most schema patterns and is
// several times faster than the general regexp engine for the yes/no question a pattern asks.

package jsonschema

import (
	"math/bits"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// matcher answers whether a pattern matches somewhere in a string: with the bit-parallel automaton when
// the pattern allows it, with regexp otherwise. Both are safe for concurrent use.
type matcher struct {
	re   *regexp.Regexp
	fast *glushkov
}

func newMatcher(re *regexp.Regexp) *matcher {
	return &matcher{re: re, fast: buildGlushkov(re.String())}
}

func (m *matcher) MatchString(s string) bool {
	if m.fast != nil {
		return m.fast.match(s)
	}
	return m.re.MatchString(s)
}

// matchBytes is MatchString on the text b holds, without converting it.
func (m *matcher) matchBytes(b []byte) bool {
	if m.fast != nil {
		return glushkovMatch(m.fast, b)
	}
	return m.re.Match(b)
}

func (m *matcher) String() string { return m.re.String() }

// glushkov is the position automaton of a regular expression: each character position of the pattern is
// one bit; a state is the set of positions that can have just matched.
type glushkov struct {
	ascii       [128]uint64 // positions whose character class contains each ASCII code point
	ranges      [][]rune    // per position, its class as sorted [lo, hi] pairs
	follow      []uint64    // positions that may follow each position
	first, last uint64
	nullable    bool
	anchorStart bool
	anchorEnd   bool
}

// buildGlushkov returns nil when the pattern is outside what the automaton supports.
func buildGlushkov(pattern string) *glushkov {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	g := &glushkov{}
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	if len(subs) > 0 && subs[0].Op == syntax.OpBeginText {
		g.anchorStart = true
		subs = subs[1:]
	}
	if len(subs) > 0 && subs[len(subs)-1].Op == syntax.OpEndText {
		g.anchorEnd = true
		subs = subs[:len(subs)-1]
	}
	if re.Op != syntax.OpConcat && (g.anchorStart || g.anchorEnd) {
		subs = nil
	}
	f := frag{nullable: true}
	for _, s := range subs {
		sf, ok := g.build(s)
		if !ok {
			return nil
		}
		f = g.concat(f, sf)
	}
	g.first, g.last, g.nullable = f.first, f.last, f.nullable
	for p, rs := range g.ranges {
		for i := 0; i < len(rs); i += 2 {
			for c := rs[i]; c <= rs[i+1] && c < 128; c++ {
				g.ascii[c] |= 1 << p
			}
		}
	}
	return g
}

// frag is a sub-expression's Glushkov summary.
type frag struct {
	first, last uint64
	nullable    bool
}

func (g *glushkov) position(ranges []rune) (frag, bool) {
	p := len(g.ranges)
	if p >= 64 {
		return frag{}, false
	}
	g.ranges = append(g.ranges, ranges)
	g.follow = append(g.follow, 0)
	return frag{first: 1 << p, last: 1 << p}, true
}

func (g *glushkov) link(from, to uint64) {
	for from != 0 {
		p := bits.TrailingZeros64(from)
		from &^= 1 << p
		g.follow[p] |= to
	}
}

func (g *glushkov) concat(a, b frag) frag {
	g.link(a.last, b.first)
	f := frag{first: a.first, last: b.last, nullable: a.nullable && b.nullable}
	if a.nullable {
		f.first |= b.first
	}
	if b.nullable {
		f.last |= a.last
	}
	return f
}

func (g *glushkov) build(re *syntax.Regexp) (frag, bool) {
	if re.Flags&syntax.FoldCase != 0 {
		return frag{}, false
	}
	switch re.Op {
	case syntax.OpEmptyMatch:
		return frag{nullable: true}, true
	case syntax.OpLiteral:
		f := frag{nullable: true}
		for _, r := range re.Rune {
			pf, ok := g.position([]rune{r, r})
			if !ok {
				return frag{}, false
			}
			f = g.concat(f, pf)
		}
		return f, true
	case syntax.OpCharClass:
		return g.position(re.Rune)
	case syntax.OpAnyCharNotNL:
		return g.position([]rune{0, '\n' - 1, '\n' + 1, utf8.MaxRune})
	case syntax.OpAnyChar:
		return g.position([]rune{0, utf8.MaxRune})
	case syntax.OpCapture:
		return g.build(re.Sub[0])
	case syntax.OpConcat:
		f := frag{nullable: true}
		for _, s := range re.Sub {
			sf, ok := g.build(s)
			if !ok {
				return frag{}, false
			}
			f = g.concat(f, sf)
		}
		return f, true
	case syntax.OpAlternate:
		var f frag
		for _, s := range re.Sub {
			sf, ok := g.build(s)
			if !ok {
				return frag{}, false
			}
			f.first |= sf.first
			f.last |= sf.last
			f.nullable = f.nullable || sf.nullable
		}
		return f, true
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		f, ok := g.build(re.Sub[0])
		if !ok {
			return frag{}, false
		}
		if re.Op != syntax.OpQuest {
			g.link(f.last, f.first)
		}
		if re.Op != syntax.OpPlus {
			f.nullable = true
		}
		return f, true
	}
	return frag{}, false
}

func (g *glushkov) mask(r rune) uint64 {
	if r < 128 {
		return g.ascii[r]
	}
	var m uint64
	for p, rs := range g.ranges {
		for i := 0; i < len(rs); i += 2 {
			if r < rs[i] {
				break
			}
			if r <= rs[i+1] {
				m |= 1 << p
				break
			}
		}
	}
	return m
}

// match reports whether the pattern matches a substring of s (anchored where the pattern says).
func (g *glushkov) match(s string) bool { return glushkovMatch(g, s) }

// glushkovMatch is match on a string or on the bytes of one (a string read in place). It reads the code
// points as range over a string does: a byte that is not valid UTF-8 is U+FFFD, one byte wide.
func glushkovMatch[T string | []byte](g *glushkov, s T) bool {
	if g.nullable && !(g.anchorStart && g.anchorEnd) {
		return true
	}
	var state uint64
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			// At most four bytes: converting them copies nothing for a string, little for bytes.
			r, size = utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		}
		var next uint64
		for d := state; d != 0; {
			p := bits.TrailingZeros64(d)
			d &^= 1 << p
			next |= g.follow[p]
		}
		if !g.anchorStart || i == 0 {
			next |= g.first
		}
		state = next & g.mask(r)
		if state&g.last != 0 && !g.anchorEnd {
			return true
		}
		if state == 0 && g.anchorStart {
			return false
		}
		i += size
	}
	return state&g.last != 0 || (g.nullable && len(s) == 0)
}
