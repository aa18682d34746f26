// errors.go holds the validation result types (2020-12 "basic" output units) and their one-line renderings.
package jsonschema

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
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

// quote renders a string for a message, shortened when long.
func quote(s string) string {
	const limit = 64
	if utf8.RuneCountInString(s) > limit {
		r := []rune(s)
		return fmt.Sprintf("%q…", string(r[:limit]))
	}
	return fmt.Sprintf("%q", s)
}

// display renders any JSON value compactly for a message, shortened when long.
func display(v any) string {
	if s, ok := v.(string); ok {
		return quote(s)
	}
	if n, ok := numberOf(v); ok {
		return n.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	const limit = 80
	if len(b) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		return string(b[:cut]) + "…"
	}
	return string(b)
}
