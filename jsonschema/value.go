// value.go holds ValidValue, which validates a tape.Value in place: the evaluator's verdict-only path over
// a tape (the keywords' own readings are in value_kw.go), and what they share: kinds, numbers, string
// lengths, equality with a decoded value and member lookup.
package jsonschema

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"attest-engine/tape"
)

// valueKeyword is a keyword with an in-place reading: evalValue(v, x) returns what eval(v, x.Any(), nil)
// returns in verdict mode (v.detail false) and adds the same work, so that the limits are met at the same
// point (for the keywords that go through every member of an object, up to the members' order: see
// value_kw.go). It never collects annotations: a schema that needs them (unevaluated*) is not read in
// place.
type valueKeyword interface {
	evalValue(v *validator, x tape.Value) bool
}

// inPlace reports whether the compiled schema can be evaluated on a tape.Value in place: every keyword of
// every compiled subschema has an in-place reading, none collects annotations, and no $dynamicRef moves
// with the dynamic scope (then the evaluator tracks no scope). It fills in each node's vkws when so.
func (c *compiler) inPlace() bool {
	if c.dynamic {
		return false
	}
	for _, n := range c.nodes {
		if n.needAnn {
			return false
		}
		for _, k := range n.kws {
			if _, ok := k.(valueKeyword); !ok {
				return false
			}
		}
	}
	total := 0
	for _, n := range c.nodes {
		total += len(n.kws)
	}
	all := make([]valueKeyword, 0, total) // one allocation for the whole schema
	for _, n := range c.nodes {
		start := len(all)
		for _, k := range n.kws {
			all = append(all, k.(valueKeyword))
		}
		n.vkws = all[start:len(all):len(all)]
	}
	return true
}

// ValidValue reports whether x is valid against the schema: always Valid(x.Any()), the same verdict,
// without decoding x when the schema allows it. A schema whose keywords are all among type, enum, const,
// the numeric, string, object and array checks, format, the applicators except unevaluatedProperties and
// unevaluatedItems, $ref, and $dynamicRef that resolves statically, reads x in place (uniqueItems decodes
// only its array); any other schema, a Missing x (which Any makes null) and a document that names a
// member twice are decoded and given to Valid. Like x.Str, it may use the document's interner: the
// document must be read by one goroutine at a time, or shared (x.Share).
func (s *Schema) ValidValue(x tape.Value) (ok bool) {
	if !s.inPlace || !x.Exists() || x.HasDuplicate() {
		return s.Valid(x.Any())
	}
	defer func() {
		// Last line of defence only: evaluation is written not to panic on any input.
		if r := recover(); r != nil {
			ok = false
		}
	}()
	return s.validInPlace(x)
}

// validInPlace is ValidValue's evaluation in place, without the recover (so that tests see a panic).
func (s *Schema) validInPlace(x tape.Value) bool {
	v := getValidator(s, false)
	ok := v.evalValue(s.root, x) && v.fatal == nil
	putValidator(v)
	return ok
}

// evalValue is eval in verdict mode, on a tape value, with no annotations and no dynamic scope (inPlace
// makes sure neither is needed): the same steps, limits and order.
func (v *validator) evalValue(n *node, x tape.Value) bool {
	if v.fatal != nil {
		return false
	}
	if n.isBool {
		v.work++
		return n.val
	}
	v.work += stepWork
	v.depth++
	if v.depth > maxEvalDepth {
		v.setFatal(n.loc, "", fmt.Sprintf("evaluation deeper than %d schemas; the schema or instance is too deeply nested", maxEvalDepth))
		v.depth--
		return false
	}
	if v.work > maxEvalWork {
		v.setFatal(n.loc, "", fmt.Sprintf("evaluation took more than %d steps; the schema is too expensive to evaluate", maxEvalSteps))
		v.depth--
		return false
	}
	ok := true
	for _, k := range n.vkws {
		if !k.evalValue(v, x) {
			ok = false
			break
		}
	}
	v.depth--
	return ok
}

// evalValueAt is evalAt in verdict mode: a subschema against a member, item or member name of the
// current instance.
func (v *validator) evalValueAt(c child, x tape.Value) bool {
	v.instDepth++
	ok := v.evalValue(c.n, x)
	v.instDepth--
	return ok
}

// followValue is follow on a tape value.
func (v *validator) followValue(at, kw string, target child, x tape.Value) bool {
	if v.loops(at, kw, target.n) {
		return false
	}
	v.refs = append(v.refs, refFrame{n: target.n, instDepth: v.instDepth})
	ok := v.evalValue(target.n, x)
	v.refs = v.refs[:len(v.refs)-1]
	return ok
}

// matchBytes is match on the decoded content of a string, x.Bytes(): a slice of the document unless the
// string has escapes.
func (v *validator) matchBytes(re *matcher, b []byte) bool {
	v.work += 1 + len(b)
	return re.matchBytes(b)
}

// valueKinds maps a tape kind to the kind of the value Any makes of it (Missing is never evaluated).
var valueKinds = [...]kind{
	tape.Missing: kindInvalid,
	tape.Null:    kindNull,
	tape.Bool:    kindBool,
	tape.Number:  kindNumber,
	tape.String:  kindString,
	tape.Array:   kindArray,
	tape.Object:  kindObject,
}

func kindOfValue(x tape.Value) kind { return valueKinds[x.Kind()] }

// strLen is the length in bytes of string x's decoded content, len(x.Any().(string)), counted in place.
func strLen(x tape.Value) int {
	if !x.Escaped() {
		return len(x.Raw())
	}
	n := 0
	for run, r := range x.Chunks() {
		if run != nil {
			n += len(run)
		} else {
			n += utf8.RuneLen(r) // a valid rune: Chunks yields U+FFFD for a lone surrogate, as Any decodes it
		}
	}
	return n
}

// equalValue is Equal(x.Any(), b), read in place. equalDepth's depth bound is never reached: a tape is at
// most tape.MaxDepth deep, and the comparison goes no deeper than x.
func equalValue(x tape.Value, b any) bool {
	k := kindOfValue(x)
	if k != kindOf(b) {
		return false
	}
	switch k {
	case kindNull:
		return true
	case kindBool:
		return x.Bool() == b.(bool)
	case kindString:
		return x.Is(b.(string))
	case kindNumber:
		na, _ := numberOf(json.Number(x.Text())) // as typeKw.evalValue
		nb, ok := numberOf(b)
		return ok && na.f == nb.f && cmpNumber(na, nb) == 0
	case kindArray:
		xb := b.([]any)
		if x.Len() != len(xb) {
			return false
		}
		var e tape.Value
		for _, eb := range xb {
			e = x.After(e)
			if !equalValue(e, eb) {
				return false
			}
		}
		return true
	case kindObject:
		mb := b.(map[string]any)
		if x.Len() != len(mb) { // no name repeats (ValidValue): Len counts the members Any keeps
			return false
		}
		for name, e := range x.Members() {
			vb, ok := mb[string(name.Bytes())]
			if !ok || !equalValue(e, vb) {
				return false
			}
		}
		return true
	}
	return false
}

// maxScan is how many member names a keyword may compare, looking up names in an object with Get, before
// it builds a map of the object's members instead.
const maxScan = 256

// object looks up the members of object x by name: with Get (a scan of the members) while the keyword
// asks about few names or the object is small, else in a map of the members built once, so that a keyword
// naming many properties stays linear in the size of a large object, as the map Any builds makes it.
type object struct {
	x tape.Value
	m map[string]tape.Value
}

// objectOf prepares lookups of up to names names in x.
func objectOf(x tape.Value, names int) object {
	if names*x.Len() <= maxScan {
		return object{x: x}
	}
	m := make(map[string]tape.Value, x.Len())
	for name, val := range x.Members() {
		m[string(name.Bytes())] = val
	}
	return object{x: x, m: m}
}

// get is the member named name, or Missing.
func (o object) get(name string) tape.Value {
	if o.m != nil {
		return o.m[name]
	}
	return o.x.Get(name)
}

// hasValue is has for a member name read in place.
func (s *nameSet) hasValue(name tape.Value) bool {
	if s.m != nil {
		_, ok := s.m[string(name.Bytes())]
		return ok
	}
	for _, n := range s.list {
		if name.Is(n) {
			return true
		}
	}
	return false
}
