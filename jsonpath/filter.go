// filter.go: evaluation of filter expressions (RFC 9535 §2.3.5) on one element.

package jsonpath

import (
	"attest-engine/jsonschema"
	"attest-engine/tape"
)

// test reports whether the filter f holds for cur, the element under test.
func (w *walker[N, M]) test(f *filter, cur N) bool {
	if !f.constant {
		return w.eval(f, cur)
	}
	for _, c := range w.consts {
		if c.f == f {
			return c.holds
		}
	}
	holds := w.eval(f, cur)
	w.consts = append(w.consts, constResult{f, holds})
	return holds
}

func (w *walker[N, M]) eval(f *filter, cur N) bool {
	if f.op == opExists {
		if f.left.kind == operandAbsolute {
			return exists[N, M](f.left.query, w.root)
		}
		return exists[N, M](f.left.query, cur)
	}
	// a := w.value(&f.left, cur), by hand: a call less per element counts
	// on long arrays (BenchmarkSelect/10k-steps).
	a := operandValue[N]{lit: f.left.value, ok: true}
	switch f.left.kind {
	case operandRelative:
		a = singularValue[N, M](f.left.query, cur)
	case operandAbsolute:
		a = singularValue[N, M](f.left.query, w.root)
	}
	var eq bool
	if f.right.kind == operandLiteral {
		// The usual shape, name=='x': a literal is never absent.
		eq = a.ok && equalsLiteral[N, M](&a, f.right.value)
	} else {
		b := w.value(&f.right, cur)
		// An absent value equals only another absent value (RFC 9535
		// §2.3.5.2.2: two empty nodelists compare equal).
		eq = a.ok == b.ok && (!a.ok || equalValues[N, M](a, b))
	}
	if f.op == opNe {
		return !eq
	}
	return eq
}

// operandValue is the value of a filter operand: a value of the document
// (isNode), or a literal or a length (lit); ok is false when it is absent.
type operandValue[N any] struct {
	node   N
	lit    any
	isNode bool
	ok     bool
}

// value evaluates a literal or a singular query.
func (w *walker[N, M]) value(o *operand, cur N) operandValue[N] {
	switch o.kind {
	case operandLiteral:
		return operandValue[N]{lit: o.value, ok: true}
	case operandAbsolute:
		return singularValue[N, M](o.query, w.root)
	}
	return singularValue[N, M](o.query, cur)
}

// equalValues compares two present operand values as jsonschema.Equal
// does, whatever they are read from.
func equalValues[N node[N, M], M any](a, b operandValue[N]) bool {
	switch {
	case a.isNode && b.isNode:
		return a.node.equal(b.node)
	case b.isNode:
		return b.node.equalLiteral(a.lit)
	}
	return equalsLiteral[N, M](&a, b.lit)
}

// equalsLiteral compares a present operand value with a literal or a
// length.
func equalsLiteral[N node[N, M], M any](a *operandValue[N], x any) bool {
	if a.isNode {
		return a.node.equalLiteral(x)
	}
	return jsonschema.Equal(a.lit, x)
}

// singularValue follows names, indexes and .length from v. A length is
// an int here, never shown to callers; small ints box without allocating.
// No segment selects anything from a number, so a length is the value only
// when it comes last.
func singularValue[N node[N, M], M any](q []segment, v N) operandValue[N] {
	for i := range q {
		seg := &q[i]
		if seg.kind != segLength {
			var ok bool
			if seg.kind == segName { // child, a call less for the usual case
				v, ok = v.member(seg.name)
			} else {
				v, _, ok = element[N, M](seg.index, v)
			}
			if !ok {
				return operandValue[N]{}
			}
			continue
		}
		var n int
		switch v.kind() {
		case tape.Object:
			c, ok := v.member("length")
			if !ok {
				return operandValue[N]{}
			}
			v = c
			continue
		case tape.Array:
			n = v.size()
		case tape.String:
			n = v.runes()
		default:
			return operandValue[N]{}
		}
		if i < len(q)-1 {
			return operandValue[N]{}
		}
		return operandValue[N]{lit: n, ok: true}
	}
	return operandValue[N]{node: v, isNode: true, ok: true}
}

// exists reports whether q selects at least one value from v. Unlike a
// comparison, an existence test may use wildcards.
func exists[N node[N, M], M any](q []segment, v N) bool {
	for i := range q {
		if q[i].kind != segWildcard {
			continue
		}
		c := singularValue[N, M](q[:i], v)
		if !c.isNode { // absent, or a length: no elements
			return false
		}
		switch c.node.kind() {
		case tape.Array:
			var e N
			for k := range c.node.size() {
				if e = c.node.elem(k, e); exists[N, M](q[i+1:], e) {
					return true
				}
			}
		case tape.Object:
			for _, m := range c.node.members(false) {
				if exists[N, M](q[i+1:], m.value) {
					return true
				}
			}
		}
		return false
	}
	return singularValue[N, M](q, v).ok
}
