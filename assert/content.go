// content.go: layer 4, substring, regex and keyword checks on text of the trace (spec §4).

package assert

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"

	"attest-engine/clip"
	"attest-engine/jsonpath"
)

// needle is a string to look for, exactly or ignoring case.
type needle struct {
	text  string
	fold  *regexp.Regexp // case-insensitive matcher, nil when case matters
	lower string         // text in ASCII lower case, when text is ASCII and case does not matter
	// lowerBytes is lower, for searching a haystack's lower-case bytes.
	lowerBytes []byte
}

func newNeedle(text string, caseSensitive bool) (needle, error) {
	n := needle{text: text}
	if !caseSensitive {
		// RE2's (?i) applies Unicode simple case folding, which
		// strings.ToLower on both sides would not (K vs the Kelvin sign).
		// A text of millions of characters is past what a regexp may
		// hold: a spec error, not a panic.
		var err error
		if n.fold, err = regexp.Compile("(?i)" + regexp.QuoteMeta(text)); err != nil {
			return n, specErrorf("Shorten the text, or set case_sensitive to true: a text this long is matched exactly only.",
				"a text of %d bytes is too long to match ignoring case", len(text))
		}
		if isASCII(text) {
			n.lower = strings.ToLower(text)
			n.lowerBytes = []byte(n.lower)
		}
	}
	return n, nil
}

// lowerASCII is s in ASCII lower case, in room when it fits (the caller's
// array, on its stack: a checked text is usually short, and new with every
// batch); nil when s is not ASCII. Made once per text, it serves every
// needle that ignores case: keyword checks look for every value in one
// text.
func lowerASCII(s string, room []byte) []byte {
	b := room[:0]
	if len(s) > cap(room) {
		if !isASCII(s) {
			return nil // made no copy for nothing
		}
		b = make([]byte, 0, len(s))
	}
	b = b[:len(s)]
	var high byte // the bytes' high bits, or-ed: not ASCII when set
	for i := range len(b) {
		c := s[i]
		high |= c
		b[i] = c + toLower[c]
	}
	if high >= 0x80 {
		return nil
	}
	return b
}

// toLower is what lowerASCII adds to a byte: 'a'-'A' to an upper-case
// ASCII letter, 0 to any other byte.
var toLower = func() (t [256]byte) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = 'a' - 'A'
	}
	return t
}()

// find returns where the text that matched is in s, and whether there was
// one; lower is lowerASCII(s). (Offsets, not the text; and two arguments,
// not one struct: s goes to the regexp, which keeps it, lower only to
// bytes.Index, and so stays on the caller's stack.)
func (n needle) find(s string, lower []byte) (start, end int, ok bool) {
	if n.fold == nil {
		i := strings.Index(s, n.text)
		return i, i + len(n.text), i >= 0
	}
	// Fast path: with an ASCII needle and an ASCII text, folding is plain
	// ASCII lower-casing (no other rune folds to an ASCII letter), and
	// strings.Index stays linear.
	if n.lower != "" {
		if lower != nil {
			i := bytes.Index(lower, n.lowerBytes)
			return i, i + len(n.lower), i >= 0
		}
	}
	loc := n.fold.FindStringIndex(s)
	if loc == nil {
		return 0, 0, false
	}
	return loc[0], loc[1], true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// contentCheck is one compiled spec §4 Layer 4 check.
type contentCheck struct {
	target  target
	check   string
	value   string   // contains, not_contains, regex_match
	values  []string // keyword_all, keyword_any, forbidden
	needles []needle // one per value or values entry
	re      *regexp.Regexp
	// groundRe is re for grounded_values, its groups past the first made non-capturing.
	groundRe *regexp.Regexp
	// pass is passText of the path as written, made once: the
	// explanation of every pass of a target that selects one value.
	pass string
	// lowers: a needle searches the text in ASCII lower case (lowerASCII).
	lowers bool
}

// compileContent reads spec §4 Layer 4: target, check, value or values,
// case_sensitive (default false for the substring and keyword checks and
// forbidden; a regex folds case only when it is explicitly false) and soft
// (read by the engine; forbidden ignores it).
func compileContent(_ *Engine, s spec) (check, error) {
	t, err := parseTarget(s, "target")
	if err != nil {
		return nil, err
	}
	name, err := s.str("check", true)
	if err != nil {
		return nil, err
	}
	cs, err := s.boolean("case_sensitive", false)
	if err != nil {
		return nil, err
	}
	c := &contentCheck{target: t, check: name}
	switch name {
	case "contains", "not_contains":
		if c.value, err = s.str("value", true); err != nil {
			return nil, err
		}
		n, err := newNeedle(c.value, cs)
		if err != nil {
			return nil, err
		}
		c.needles = []needle{n}
	case "regex_match", "grounded_values": // grounded_values: simulation capability (grounded.go)
		if c.value, err = s.str("value", true); err != nil {
			return nil, err
		}
		// Spec §4 layer 4: case_sensitive applies to contains, not_contains,
		// keyword_all and keyword_any; a regex is case-sensitive as written.
		// An explicit case_sensitive: false still folds (additive).
		fold := s.has("case_sensitive") && !cs
		if c.re, err = compileRegex(c.value, fold); err != nil {
			return nil, err
		}
		if name == "grounded_values" {
			c.groundRe = groundingRegex(c.re)
		}
	case "keyword_all", "keyword_any", "forbidden":
		if c.values, err = s.strs("values", true); err != nil {
			return nil, err
		}
		for i, v := range c.values {
			if v == "" {
				return nil, specErrorf("An empty string is contained in every text; remove it from 'values'.", "spec field 'values' entry %d must not be empty", i)
			}
			n, err := newNeedle(v, cs)
			if err != nil {
				return nil, err
			}
			c.needles = append(c.needles, n)
		}
	default:
		return nil, specErrorf("Use one of contains, not_contains, regex_match, keyword_all, keyword_any, forbidden (spec §4 Layer 4), or grounded_values.", "unknown content check '%s'", name)
	}
	for _, n := range c.needles {
		c.lowers = c.lowers || n.lower != ""
	}
	c.pass = c.passText(t.expr)
	return c, nil
}

func (c *contentCheck) eval(_ context.Context, in *input) (outcome, error) {
	// Spec: forbidden is "hard fail on any match", whatever soft says.
	hard := c.check == "forbidden"
	var room matchRoom
	ms := c.target.resolve(in, room[:])
	if len(ms) == 0 {
		return outcome{hard: hard, explanation: c.target.notFound()}, nil
	}
	if c.check == "grounded_values" {
		return c.evalGrounded(in, ms)
	}
	// Every match must pass; the first failure in document order is named.
	var failed []jsonpath.ValueMatch
	why, firstPass := "", ""
	for i, m := range ms {
		// Only the first match and the first failure are named and
		// explained, the others only judged: a match's location is printed
		// by a walk from the root, and a wildcard over 10,000 steps must
		// print, or explain, no 10,000 of them.
		var ok bool
		var exp string
		if i == 0 {
			ok, exp = c.match(in, m, c.target.name(m))
		} else if ok = c.verdict(in, m); !ok && failed == nil {
			_, exp = c.match(in, m, c.target.name(m))
		}
		if !ok {
			if failed == nil {
				why = exp
			}
			failed = append(failed, m)
		} else if i == 0 {
			firstPass = exp
		}
	}
	if len(failed) > 0 {
		if len(ms) > 1 {
			why += fmt.Sprintf(" %d of %d matches failed: %s.", len(failed), len(ms), locList(failed))
		}
		return outcome{hard: hard, explanation: why}, nil
	}
	exp := firstPass
	if len(ms) > 1 {
		// The found text may differ between matches: name only the check.
		exp = c.passText(fmt.Sprintf("%s (all %d matches)", c.target.expr, len(ms)))
	}
	return outcome{pass: true, score: 1, explanation: exp}, nil
}

// match applies the check to match m, named name.
func (c *contentCheck) match(in *input, m jsonpath.ValueMatch, name string) (bool, string) {
	if isNull(m) {
		return false, name + " is null: no text to check."
	}
	return c.one(name, in.text(m))
}

// verdict is match without the explanation, for the matches eval does not
// name (over a wildcard of 10,000 matches, their explanations were most of
// what a batch allocated).
func (c *contentCheck) verdict(in *input, m jsonpath.ValueMatch) bool {
	if isNull(m) {
		return false
	}
	text := in.text(m)
	var room [512]byte
	return c.holds(text, c.lower(text, room[:0]))
}

// lower is lowerASCII(text) when a needle searches in lower case, else nil.
func (c *contentCheck) lower(text string, room []byte) []byte {
	if !c.lowers {
		return nil
	}
	return lowerASCII(text, room)
}

// one applies the check to the text of one match named name.
func (c *contentCheck) one(name, text string) (bool, string) {
	var room [512]byte
	lower := c.lower(text, room[:0])
	v := clip.String(c.value, 200)
	switch c.check {
	case "contains":
		if _, _, ok := c.needles[0].find(text, lower); ok {
			return true, c.passText(name)
		}
		return false, fmt.Sprintf("%s does not contain '%s'.", name, v)
	case "not_contains":
		i, j, ok := c.needles[0].find(text, lower)
		if !ok {
			return true, c.passText(name)
		}
		if found := text[i:j]; found != c.value {
			return false, fmt.Sprintf("%s contains '%s' (found '%s').", name, v, clip.String(found, 200))
		}
		return false, fmt.Sprintf("%s contains '%s'.", name, v)
	case "regex_match":
		loc := c.re.FindStringIndex(text)
		if loc == nil {
			return false, fmt.Sprintf("%s does not match regex '%s'.", name, v)
		}
		return true, fmt.Sprintf("%s matches regex '%s': found '%s'.", name, v, clip.String(text[loc[0]:loc[1]], 200))
	}
	var found, missing []string
	for i, n := range c.needles {
		if _, _, ok := n.find(text, lower); ok {
			found = append(found, c.values[i])
		} else {
			missing = append(missing, c.values[i])
		}
	}
	switch c.check {
	case "keyword_all":
		if len(missing) == 0 {
			return true, c.passText(name)
		}
		return false, fmt.Sprintf("%s is missing keywords %s (found %s).", name, bracketNames(missing), bracketNames(found))
	case "keyword_any":
		if len(found) > 0 {
			return true, fmt.Sprintf("%s contains %d of the keywords %s: %s.", name, len(found), bracketNames(c.values), bracketNames(found))
		}
		return false, fmt.Sprintf("%s contains none of the keywords %s.", name, bracketNames(c.values))
	default: // forbidden
		if len(found) == 0 {
			return true, c.passText(name)
		}
		return false, fmt.Sprintf("%s contains forbidden terms %s.", name, bracketNames(found))
	}
}

// holds is the verdict of the check on text (lower is as find takes it).
func (c *contentCheck) holds(text string, lower []byte) bool {
	switch c.check {
	case "contains", "not_contains":
		_, _, ok := c.needles[0].find(text, lower)
		return ok == (c.check == "contains")
	case "regex_match":
		return c.re.MatchString(text)
	case "keyword_any":
		for _, n := range c.needles {
			if _, _, ok := n.find(text, lower); ok {
				return true
			}
		}
		return false
	}
	// keyword_all finds every value, forbidden none.
	want := c.check == "keyword_all"
	for _, n := range c.needles {
		if _, _, ok := n.find(text, lower); ok != want {
			return false
		}
	}
	return true
}

// passText is the explanation of a pass that needs no found text.
func (c *contentCheck) passText(name string) string {
	if name == c.target.expr && c.pass != "" {
		return c.pass
	}
	v := clip.String(c.value, 200)
	switch c.check {
	// Concatenated, not Sprintf'd: one allocation, on every batch.
	case "contains":
		return name + " contains '" + v + "'."
	case "not_contains":
		return name + " does not contain '" + v + "'."
	case "regex_match":
		return name + " matches regex '" + v + "'."
	case "keyword_all":
		return fmt.Sprintf("%s contains all keywords %s.", name, bracketNames(c.values))
	case "keyword_any":
		return fmt.Sprintf("%s contains at least one of the keywords %s.", name, bracketNames(c.values))
	}
	return fmt.Sprintf("%s contains none of the forbidden terms %s.", name, bracketNames(c.values))
}
