// match.go: a mock's match: equals, subset, schema or jsonpath over the call's args.

package simulate

import (
	"bytes"
	"encoding/json"
	"fmt"

	"attest-engine/jsonpath"
	"attest-engine/jsonschema"
)

// matcher decides whether a call's args (and their canonical text) satisfy a mock's match.
type matcher interface {
	matches(args any, canon []byte) bool
}

// parseMatch reads match: an object with exactly one of equals, subset, schema or jsonpath.
func parseMatch(r *fields, budget *int) (matcher, error) {
	obj, ok := r.obj["match"].(map[string]any)
	if !ok || len(obj) != 1 {
		return nil, r.fail("match", "must be an object with exactly one of equals, subset, schema or jsonpath")
	}
	var k string
	var v any
	for k, v = range obj { // the one member
	}
	field := "match." + k
	{
		switch k {
		case "equals":
			c, err := r.payload(field, v, budget)
			if err != nil {
				return nil, err
			}
			return equalsMatch(c), nil
		case "subset":
			c, err := r.payload(field, v, budget)
			if err != nil {
				return nil, err
			}
			// Kept decoded, so a call is matched without reading the pattern again; counted as held.
			if *budget -= max(0, heldBytes(v, 0)-len(c)); *budget < 0 {
				return nil, r.fail(field, "the table's payloads exceed %d bytes in all (a subset pattern counts as it is held, %d bytes)", MaxTableBytes, heldBytes(v, 0))
			}
			return subsetMatch{v}, nil
		case "schema":
			if _, err := r.payload(field, v, budget); err != nil {
				return nil, err
			}
			// No Loader: a $ref outside the schema is a compile error, and nothing is ever read.
			s, err := jsonschema.Compile(v, nil)
			if err != nil {
				return nil, r.fail(field, "%v", err)
			}
			return schemaMatch{s}, nil
		case "jsonpath":
			expr, ok := v.(string)
			if !ok || expr == "" || len(expr) > maxJSONPath {
				return nil, r.fail(field, "must be a JSONPath expression of 1 to %d bytes", maxJSONPath)
			}
			p, err := jsonpath.Parse(expr)
			if err != nil {
				return nil, r.fail(field, "%v", err)
			}
			return pathMatch{p}, nil
		default:
			return nil, r.fail(field, "unknown match kind (allowed: equals, subset, schema, jsonpath)")
		}
	}
}

// equalsMatch holds the canonical text of the expected args: equal texts, equal args.
type equalsMatch []byte

func (m equalsMatch) matches(_ any, canon []byte) bool { return bytes.Equal(m, canon) }

// subsetMatch accepts args that contain the pattern: every member of a pattern object is present and
// matches recursively; arrays match element by element with equal lengths; scalars compare canonically.
// The pattern is kept decoded, as the request's value, and counted as such (heldBytes).
type subsetMatch struct{ pattern any }

func (m subsetMatch) matches(args any, _ []byte) bool { return subset(m.pattern, args, 0) }

// heldBytes is about what a decoded value holds in memory beyond the interface that refers to it: a map
// its header (48 bytes, 64 with the allocator's rounding and accounting) and slots of 8 (8 bytes of
// control and 32 of key and value each), its keys' bytes and its values; a slice its 16-byte elements and
// what they hold; a string or number its header and bytes (TestTableHoldsWhatItCounts measures it).
func heldBytes(v any, depth int) int {
	if depth > maxCanonDepth {
		return 0
	}
	switch x := v.(type) {
	case map[string]any:
		n := 64 + (len(x)+7)/8*8*(32+1)
		for k, e := range x {
			n += len(k) + heldBytes(e, depth+1)
		}
		return n
	case []any:
		n := 24 + 16*len(x)
		for _, e := range x {
			n += heldBytes(e, depth+1)
		}
		return n
	case string:
		return 16 + len(x)
	case json.Number:
		return 16 + len(x)
	case float64, int, int64:
		return 8
	}
	return 0
}

func subset(p, v any, depth int) bool {
	if depth > maxCanonDepth {
		return false
	}
	switch pv := p.(type) {
	case map[string]any:
		vv, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for k, pe := range pv {
			ve, ok := vv[k]
			if !ok || !subset(pe, ve, depth+1) {
				return false
			}
		}
		return true
	case []any:
		vv, ok := v.([]any)
		if !ok || len(vv) != len(pv) {
			return false
		}
		for i := range pv {
			if !subset(pv[i], vv[i], depth+1) {
				return false
			}
		}
		return true
	}
	switch v.(type) {
	case map[string]any, []any: // a scalar pattern never equals a container: do not write the container out
		return false
	}
	if ps, ok := p.(string); ok { // equal canonical strings are equal strings: no copy of a long one
		vs, ok := v.(string)
		return ok && vs == ps
	}
	a, err1 := Canonical(p)
	b, err2 := Canonical(v)
	return err1 == nil && err2 == nil && bytes.Equal(a, b)
}

type schemaMatch struct{ s *jsonschema.Schema }

func (m schemaMatch) matches(args any, _ []byte) bool { return m.s.Valid(args) }

// pathMatch applies its path to a one-element array holding the args, so a filter over the args reads
// $[?@.order_id == 'A1']; the rule matches when the path selects anything.
type pathMatch struct{ p *jsonpath.Path }

func (m pathMatch) matches(args any, _ []byte) bool { return len(m.p.Select([]any{args})) > 0 }

// describe names a match for messages.
func describe(m matcher) string {
	switch m.(type) {
	case nil:
		return "any args"
	case equalsMatch:
		return "match.equals"
	case subsetMatch:
		return "match.subset"
	case schemaMatch:
		return "match.schema"
	case pathMatch:
		return "match.jsonpath"
	}
	return fmt.Sprintf("%T", m)
}
