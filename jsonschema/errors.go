// errors.go holds the validation result types (2020-12 "basic" output units) and their one-line renderings.

package jsonschema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"attest-engine/clip"
)

// ValidationError lists the failing units of a validation, in the flat "basic" output structure
// (core spec §12.4.2). Units appear in evaluation order.
type ValidationError struct {
	Units []Unit
}

// Unit is one output unit (core spec §12.3): where in the schema (relative to the root, through any $ref,
// and as an absolute URI when the schema has one) and where in the instance (a JSON Pointer) a keyword
// failed, and why.
type Unit struct {
	KeywordLocation         string `json:"keywordLocation"`
	AbsoluteKeywordLocation string `json:"absoluteKeywordLocation,omitempty"`
	InstanceLocation        string `json:"instanceLocation"`
	Message                 string `json:"error"`
}

func (u Unit) String() string {
	loc := u.InstanceLocation
	if loc == "" {
		loc = "(root)"
	}
	return loc + ": " + u.Message
}

// Error lists every unit on one line.
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("jsonschema: instance is invalid: ")
	for i, u := range e.Units {
		if i > 0 {
			b.WriteString("; ")
		}
		if i == 10 {
			fmt.Fprintf(&b, "and %d more", len(e.Units)-i)
			break
		}
		b.WriteString(u.String())
		b.WriteString(" (at ")
		b.WriteString(u.KeywordLocation)
		b.WriteString(")")
	}
	return b.String()
}

// Summary returns one line for humans: the most useful unit, plus how many more there are.
func (e *ValidationError) Summary() string {
	if len(e.Units) == 0 {
		return "instance is invalid"
	}
	best := 0
	for i, u := range e.Units {
		if usefulness(u) > usefulness(e.Units[best]) {
			best = i
		}
	}
	s := e.Units[best].String()
	if n := len(e.Units) - 1; n == 1 {
		s += " (and 1 more error)"
	} else if n > 1 {
		s += fmt.Sprintf(" (and %d more errors)", n)
	}
	return s
}

// usefulness ranks units for Summary: a concrete failure outside any alternative beats the summary of an
// anyOf/oneOf, which beats a failure inside one branch of the alternatives (that branch may not be the
// one the author meant).
func usefulness(u Unit) int {
	kl := u.KeywordLocation
	inBranch := strings.Contains(kl, "/anyOf/") || strings.Contains(kl, "/oneOf/") ||
		strings.Contains(kl, "/not/") || strings.HasSuffix(kl, "/not") || strings.Contains(kl, "/contains/")
	last := kl[strings.LastIndex(kl, "/")+1:]
	switch {
	case inBranch:
		return 1
	case last == "anyOf" || last == "oneOf":
		return 2
	}
	return 3
}

// quote renders a string for a message, shortened when long. Only the shown prefix is read, so a huge
// string costs no more than a short one.
func quote(s string) string {
	const limit = 64
	n := 0
	for i := range s {
		if n == limit {
			// As []rune(s)[:limit] would: each invalid byte becomes U+FFFD.
			return strconv.Quote(string([]rune(s[:i]))) + "…"
		}
		n++
	}
	return strconv.Quote(s)
}

// display renders any JSON value compactly for a message, shortened when long. It adds to work the members
// of the objects it orders.
func display(v any, work *int) string {
	if s, ok := v.(string); ok {
		return quote(s)
	}
	if n, ok := numberOf(v); ok {
		return n.String()
	}
	const limit = 80
	b := appendJSON(nil, v, limit+1, work)
	if len(b) > limit {
		return clip.String(string(b), limit)
	}
	return string(b)
}

// appendJSON appends the JSON text of v as json.Marshal writes it (members in sorted key order), but stops
// soon after b holds n bytes: display shows only a prefix, and a huge instance must not be rendered whole
// for each message that quotes it. A value json.Marshal refuses (NaN, a type outside the value model) is
// written with %v.
func appendJSON(b []byte, v any, n int, work *int) []byte {
	if len(b) >= n {
		return b
	}
	switch x := v.(type) {
	case string:
		// Cut before a rune start, so that the quoted prefix is a prefix of the whole quoted string.
		cut := min(len(x), n-len(b))
		for cut < len(x) && !utf8.RuneStart(x[cut]) {
			cut++
		}
		q, _ := json.Marshal(x[:cut])
		return append(b, q...)
	case []any:
		if x == nil {
			return append(b, "null"...)
		}
		b = append(b, '[')
		for i, e := range x {
			if len(b) >= n {
				return b
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e, n, work)
		}
		return append(b, ']')
	case map[string]any:
		if x == nil {
			return append(b, "null"...)
		}
		*work += len(x)
		b = append(b, '{')
		for i, k := range smallestKeys(x, (n-len(b))/4+1) {
			if len(b) >= n {
				return b
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, k, n, work)
			b = append(b, ':')
			b = appendJSON(b, x[k], n, work)
		}
		return append(b, '}')
	}
	q, err := json.Marshal(v)
	if err != nil {
		return fmt.Appendf(b, "%v", v)
	}
	return append(b, q...)
}

// smallestKeys returns the keys of m in sorted order, only the first want of them when m has more. A
// member takes at least four bytes ("":0), which bounds how many a shortened rendering can show.
func smallestKeys(m map[string]any, want int) []string {
	if len(m) <= want {
		return sortedKeys(m)
	}
	keys := make([]string, 0, want+1)
	for k := range m {
		if len(keys) == want && k >= keys[want-1] {
			continue
		}
		i, _ := slices.BinarySearch(keys, k)
		keys = slices.Insert(keys, i, k)
		if len(keys) > want {
			keys = keys[:want]
		}
	}
	return keys
}
