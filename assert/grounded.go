// grounded.go: the content check grounded_values: values quoted in an answer come from the tools or input.

package assert

import (
	"fmt"
	"index/suffixarray"
	"regexp"
	"regexp/syntax"
	"strings"

	"attest-engine/clip"
	"attest-engine/jsonpath"
)

// maxGroundedValues bounds the distinct values one grounded_values check looks up.
const maxGroundedValues = 1000

// maxGroundedMatches bounds the matches read in one text: the regexp package holds every match of a text
// at once, so `()` over a 1 MB result cost a million matches (and 1.2 GB with 50 groups). A text with more
// fails the check, naming the bound.
const maxGroundedMatches = 100000

// groundingRegex is re with every capture group but the first made non-capturing (capturing does not change
// what matches), so a match costs two index pairs however many groups the pattern has.
func groundingRegex(re *regexp.Regexp) *regexp.Regexp {
	if re.NumSubexp() <= 1 {
		return re
	}
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return re
	}
	var strip func(t *syntax.Regexp)
	strip = func(t *syntax.Regexp) { // the parser bounds nesting (1,000 levels)
		for i, sub := range t.Sub {
			for sub.Op == syntax.OpCapture && sub.Cap != 1 {
				sub = sub.Sub[0]
			}
			t.Sub[i] = sub
			strip(sub)
		}
	}
	root := &syntax.Regexp{Op: syntax.OpConcat, Sub: []*syntax.Regexp{tree}}
	strip(root)
	one, err := regexp.Compile(root.Sub[0].String())
	if err != nil || one.NumSubexp() != 1 {
		return re
	}
	return one
}

// groundingSources are the texts a value may be grounded in: every string and number of the trace's
// input and of the results of its top-level tool_call, retrieval and agent_call steps (never an
// llm_call's: a model's own words ground nothing), each as written in the trace. A value is grounded when
// it occurs verbatim inside one of them.
func groundingSources(in *input) []string {
	var out []string
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 512 {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				walk(e, depth+1)
			}
		case []any:
			for _, e := range x {
				walk(e, depth+1)
			}
		case nil, bool:
		default:
			out = append(out, jsonText(x))
		}
	}
	walk(in.trace()["input"], 0)
	for _, s := range in.stepList() {
		st, _ := s.(map[string]any)
		if typ, _ := st["type"].(string); isToolStep(typ) || typ == "agent_call" {
			walk(st["result"], 0)
		}
	}
	return out
}

// evalGrounded checks every match of the pattern in every text the target selects (the first capture
// group when the pattern has one, else the whole match) against the grounding sources.
func (c *contentCheck) evalGrounded(in *input, ms []jsonpath.ValueMatch) (outcome, error) {
	var values []string // distinct, in order of first match
	seen := map[string]bool{}
	for _, m := range ms {
		if isNull(m) {
			continue
		}
		text := in.text(m)
		locs := c.groundRe.FindAllStringSubmatchIndex(text, maxGroundedMatches+1)
		if len(locs) > maxGroundedMatches {
			return outcome{explanation: fmt.Sprintf("%s has more than %d matches of '%s': too many to ground; narrow the pattern.",
				c.target.name(m), maxGroundedMatches, clip.String(c.value, 200))}, nil
		}
		for _, loc := range locs {
			v := text[loc[0]:loc[1]]
			if len(loc) >= 4 && loc[2] >= 0 {
				v = text[loc[2]:loc[3]]
			}
			if v == "" || seen[v] {
				continue
			}
			if len(seen) == maxGroundedValues { // never a pass that left values unchecked
				return outcome{explanation: fmt.Sprintf("%s quotes more than %d distinct matches of '%s': too many to ground; narrow the pattern.",
					c.target.expr, maxGroundedValues, clip.String(c.value, 200))}, nil
			}
			seen[v] = true
			values = append(values, v)
		}
	}
	var grounded, ungrounded []string
	if len(values) > 0 {
		isGrounded := groundedIn(groundingSources(in), len(values))
		for _, v := range values {
			if isGrounded(v) { // named cut to 200 bytes: a value may be a whole result
				grounded = append(grounded, clip.String(v, 200))
			} else {
				ungrounded = append(ungrounded, clip.String(v, 200))
			}
		}
	}
	where := c.target.expr
	if len(ungrounded) > 0 {
		return outcome{explanation: fmt.Sprintf("%s quotes values found in no tool result nor the input: %s (grounded: %s).",
			where, bracketNames(ungrounded), bracketNames(grounded))}, nil
	}
	if len(grounded) == 0 {
		return outcome{pass: true, score: 1, explanation: fmt.Sprintf("%s has no match of '%s': nothing to ground.", where, clip.String(c.value, 200))}, nil
	}
	return outcome{pass: true, score: 1, explanation: fmt.Sprintf("Every value %s quotes is grounded in a tool result or the input: %s.", where, bracketNames(grounded))}, nil
}

// indexFrom is the work (values × source bytes) from which the sources are indexed rather than scanned once
// per value: 1,000 values over 9 MB of tool results took 11 s of scanning.
const indexFrom = 1 << 24

// groundedIn returns the test "occurs verbatim inside one of sources", for lookups values.
func groundedIn(sources []string, lookups int) func(string) bool {
	scan := func(v string) bool {
		for _, s := range sources {
			if strings.Contains(s, v) {
				return true
			}
		}
		return false
	}
	total := 0
	for _, s := range sources {
		total += len(s) + 1
	}
	if lookups*total < indexFrom {
		return scan
	}
	// One suffix array over the sources, each followed by 0xFF, a byte no UTF-8 text holds: a value without
	// it found in the array lies inside one source.
	data := make([]byte, 0, total)
	for _, s := range sources {
		data = append(append(data, s...), 0xFF)
	}
	idx := suffixarray.New(data)
	return func(v string) bool {
		if strings.IndexByte(v, 0xFF) >= 0 { // invalid UTF-8 in the trace: could span two sources
			return scan(v)
		}
		return len(idx.Lookup([]byte(v), 1)) > 0
	}
}
