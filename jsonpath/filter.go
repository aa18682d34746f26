// filter.go: evaluation of filter expressions (RFC 9535 §2.3.5) on one element.

package jsonpath

import (
	"unicode/utf8"

	"attest-engine/jsonschema"
)

// test reports whether the filter f holds for cur, the element under test.
func (s *selector) test(f *filter, cur any) bool {
	if !f.constant {
		return s.eval(f, cur)
	}
	for _, c := range s.consts {
		if c.f == f {
			return c.holds
		}
	}
	holds := s.eval(f, cur)
	s.consts = append(s.consts, constResult{f, holds})
	return holds
}

func (s *selector) eval(f *filter, cur any) bool {
	if f.op == opExists {
		q := f.left.query
		if f.left.kind == operandAbsolute {
			return exists(q, s.root)
		}
		return exists(q, cur)
	}
	a, okA := s.value(&f.left, cur)
	b, okB := s.value(&f.right, cur)
	// An absent value equals only another absent value (RFC 9535
	// §2.3.5.2.2: two empty nodelists compare equal).
	eq := okA == okB && (!okA || jsonschema.Equal(a, b))
	if f.op == opNe {
		return !eq
	}
	return eq
}

// value evaluates a literal or a singular query; false means absent.
func (s *selector) value(o *operand, cur any) (any, bool) {
	switch o.kind {
	case operandLiteral:
		return o.value, true
	case operandAbsolute:
		return singularValue(o.query, s.root)
	}
	return singularValue(o.query, cur)
}

// singularValue follows names, indexes and .length from v. A length is
// an int here, never shown to callers; small ints box without allocating.
func singularValue(q []segment, v any) (any, bool) {
	for i := range q {
		seg := &q[i]
		if seg.kind != segLength {
			var ok bool
			if v, _, ok = child(seg, v); !ok {
				return nil, false
			}
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			c, ok := x["length"]
			if !ok {
				return nil, false
			}
			v = c
		case []any:
			v = len(x)
		case string:
			v = utf8.RuneCountInString(x)
		default:
			return nil, false
		}
	}
	return v, true
}

// exists reports whether q selects at least one value from v. Unlike a
// comparison, an existence test may use wildcards.
func exists(q []segment, v any) bool {
	for i := range q {
		if q[i].kind != segWildcard {
			continue
		}
		c, ok := singularValue(q[:i], v)
		if !ok {
			return false
		}
		switch x := c.(type) {
		case []any:
			for _, e := range x {
				if exists(q[i+1:], e) {
					return true
				}
			}
		case map[string]any:
			for _, e := range x {
				if exists(q[i+1:], e) {
					return true
				}
			}
		}
		return false
	}
	_, ok := singularValue(q, v)
	return ok
}
