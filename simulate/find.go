// find.go: choosing the mock for a call, and the error that names the nearest rules when none matches.

package simulate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"attest-engine/clip"
)

// find returns the first mock in declared order that accepts the call, and the later mocks that accept it
// too (for the overlap warning).
func (t *Table) find(tool string, args any, canon []byte) (*Mock, []*Mock) {
	var first *Mock
	var others []*Mock
	for _, m := range t.Mocks {
		if !globMatch(m.Tool, tool) || (m.match != nil && !m.match.matches(args, canon)) {
			continue
		}
		if first == nil {
			first = m
		} else {
			others = append(others, m)
		}
	}
	return first, others
}

// NoMatchError is a call no mock accepts. It is an error, never an empty success: a test whose agent calls
// something the table does not cover must say so.
type NoMatchError struct {
	Tool    string
	Args    string   // canonical args, cut to 200 bytes
	Nearest []string // descriptions of the nearest rules, at most 3
}

func (e *NoMatchError) Error() string {
	msg := fmt.Sprintf("no mock rule matches tool %q with args %s", e.Tool, e.Args)
	if len(e.Nearest) == 0 {
		return msg + ": the table has no mock rules"
	}
	return msg + "; nearest rules: " + strings.Join(e.Nearest, "; ")
}

// noMatch names the nearest rules: those whose tool pattern matches (their match refused the args), else
// those whose pattern is closest to the tool name by edit distance.
func (t *Table) noMatch(tool string, canon []byte) *NoMatchError {
	e := &NoMatchError{Tool: tool, Args: clip.String(string(canon), 200)}
	for _, m := range t.Mocks {
		if globMatch(m.Tool, tool) && len(e.Nearest) < 3 {
			e.Nearest = append(e.Nearest, fmt.Sprintf("%q (tool %q, %s: the args do not match)", m.ID, m.Tool, describe(m.match)))
		}
	}
	if len(e.Nearest) > 0 {
		return e
	}
	type near struct {
		m *Mock
		d int
	}
	var ns []near
	for _, m := range t.Mocks {
		ns = append(ns, near{m, distance(m.Tool, tool)})
	}
	slices.SortStableFunc(ns, func(a, b near) int { return a.d - b.d })
	for _, n := range ns[:min(3, len(ns))] {
		e.Nearest = append(e.Nearest, fmt.Sprintf("%q (tool %q)", n.m.ID, n.m.Tool))
	}
	return e
}

// distance is the Levenshtein distance between the first 64 bytes of a and b: enough to rank names.
func distance(a, b string) int {
	a, b = a[:min(len(a), 64)], b[:min(len(b), 64)]
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// SeedText is the text of a seed as the decision function reads it: a string as given, an integer as its
// JSON text (digits with an optional minus; a fraction or an exponent is refused, -0 is 0).
func SeedText(v any) (string, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = string(x)
		digits := strings.TrimPrefix(s, "-")
		if digits == "" || strings.Trim(digits, "0123456789") != "" {
			return "", &CallError{"seed", "must be a string or an integer"}
		}
		if s == "-0" {
			s = "0"
		}
	case int:
		s = fmt.Sprint(x)
	case int64:
		s = fmt.Sprint(x)
	default:
		return "", &CallError{"seed", "must be a string or an integer"}
	}
	if err := checkText("seed", s); err != nil {
		return "", err
	}
	return s, nil
}
