// value.go holds ValidValue, which validates a tape.Value in place: the evaluator's verdict-only path over
// a tape (the keywords' own readings are in value_kw.go), and what they share: kinds, decoded text,
// equality with a decoded value, member lookup, and the per-call memo that keeps their cost that of eval.

package jsonschema

import (
	"encoding/json"

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
	if !v.enter() {
		v.stop(n)
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

// equalValue is Equal(x.Any(), b), read in place. equalDepth's depth bound is never reached: a tape is
// at most tape.MaxDepth deep, and the comparison goes no deeper than x.
func (v *validator) equalValue(x tape.Value, b any) bool {
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
		return string(v.text(x)) == b.(string)
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
			if !v.equalValue(e, eb) {
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
			vb, ok := mb[string(v.text(name))]
			if !ok || !v.equalValue(e, vb) {
				return false
			}
		}
		return true
	}
	return false
}

// tapeMemo keeps, for one ValidValue call, what reading a tape in place would otherwise redo on every
// evaluation at the same value, so that in-place reads cost what eval's reads of the decoded value cost
// (up to a constant) and the step limit bounds both alike: the decoded text of each string with escapes
// that is read, and a map of the members of each large object that is looked up by name. Each is made
// once per call, so all of it stays linear in the size of the instance.
type tapeMemo struct {
	texts   map[tape.Value][]byte
	objects map[tape.Value]map[string]tape.Value
}

// text is the decoded content of string x, x.Bytes(): a slice of the document, or for a string with
// escapes its decoded copy, made once per call.
func (v *validator) text(x tape.Value) []byte {
	if !x.Escaped() {
		return x.Raw()
	}
	if b, ok := v.texts[x]; ok {
		return b
	}
	if v.texts == nil {
		v.texts = map[tape.Value][]byte{}
	}
	b := x.Bytes()
	v.texts[x] = b
	return b
}

// smallObject is the number of members up to which an object's members are looked up by a scan.
const smallObject = 16

// member is the member of object x named name, or Missing (x names no member twice: see ValidValue).
// A small object is scanned; a large one's members are put in a map once per call, as Any would.
func (v *validator) member(x tape.Value, name string) tape.Value {
	if x.Len() <= smallObject {
		for k, val := range x.Members() {
			// A name's decoded text is never longer than its raw text, and shorter when it has
			// escapes (each stands for fewer bytes than it takes): most names are told apart by length.
			switch raw := k.Raw(); {
			case len(raw) == len(name):
				if string(raw) == name && !k.Escaped() {
					return val
				}
			case len(raw) > len(name) && k.Escaped():
				if string(v.text(k)) == name {
					return val
				}
			}
		}
		return tape.Value{}
	}
	m, ok := v.objects[x]
	if !ok {
		m = make(map[string]tape.Value, x.Len())
		for k, val := range x.Members() {
			m[string(v.text(k))] = val
		}
		if v.objects == nil {
			v.objects = map[tape.Value]map[string]tape.Value{}
		}
		v.objects[x] = m
	}
	return m[name]
}

// hasBytes is has for a name given as bytes.
func (s *nameSet) hasBytes(name []byte) bool {
	if s.m != nil {
		_, ok := s.m[string(name)]
		return ok
	}
	for _, n := range s.list {
		if string(name) == n {
			return true
		}
	}
	return false
}
