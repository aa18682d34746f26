// assertions.go: params.assertions read from the tape straight into assertions, their specs known by their text when they can be.

package rpc

import (
	"attest-engine/assert"
	"attest-engine/tape"
)

// Assertion types, as constants: a type read from a line takes no
// allocation when it is one of them.
var assertionTypes = [...]string{"schema", "constraint", "trace", "trace_tree", "content", "embedding", "llm_judge"}

// readAssertions reads params.assertions (an array) straight into
// assertions when every element has the shape SDKs send: an object whose
// assertion_id is a non-empty string, type a string, spec an object,
// request_id (when present) a string or null and agent_id a non-empty
// string or null; other members are ignored, as assert.Parse ignores them.
// That is what assert.Parse would make of the array decoded plainly,
// without making it. Any other shape is left to the plain decode and to
// assert.Parse, which names what is wrong; readAssertions reports false.
func (r *request) readAssertions(av tape.Value, sp *specs) bool {
	list := r.small[:0]
	var room [len(r.small)]tape.Value
	vals := room[:0] // each assertion's spec object, read after the loop
	if n := av.Len(); n > len(r.small) {
		list = make([]assert.Assertion, 0, n)
		vals = make([]tape.Value, 0, n)
	}
	for e := range av.Elems() {
		a, v, ok := readAssertion(e)
		if !ok {
			clear(list)
			return false
		}
		list, vals = append(list, a), append(vals, v)
	}
	sp.read(vals, list)
	r.list, r.read = list, true
	return true
}

// Members of an assertion object, as bits of what was seen.
const (
	seenID = 1 << iota
	seenType
	seenSpec
)

// readAssertion reads one element of params.assertions but its spec, which
// it returns as read (spec), or gives up (ok false). The line has no member
// named twice (parse refuses it).
func readAssertion(e tape.Value) (a assert.Assertion, spec tape.Value, ok bool) {
	if e.Kind() != tape.Object {
		return a, spec, false
	}
	seen := 0
	for k, v := range e.Members() {
		switch string(k.Bytes()) {
		case "assertion_id":
			if a.ID = v.Str(); v.Kind() != tape.String || a.ID == "" {
				return a, spec, false
			}
			seen |= seenID
		case "type":
			if v.Kind() != tape.String {
				return a, spec, false
			}
			a.Type = typeName(v.Bytes())
			seen |= seenType
		case "spec":
			if v.Kind() != tape.Object {
				return a, spec, false
			}
			spec = v
			seen |= seenSpec
		case "request_id":
			switch v.Kind() {
			case tape.String:
				a.RequestID = v.Str()
			case tape.Null:
			default:
				return a, spec, false
			}
		case "agent_id":
			switch v.Kind() {
			case tape.String:
				if a.AgentID = v.Str(); a.AgentID == "" {
					return a, spec, false
				}
			case tape.Null:
			default:
				return a, spec, false
			}
		}
	}
	return a, spec, seen == seenID|seenType|seenSpec
}

// specs reads the spec objects of one line's assertions: as the value the
// engine decoded from the same text before (known, when not nil:
// assert/spectext.go), else decoded and, for the first maxFreshSpecs of the
// line, remembered by the engine.
type specs struct {
	known *assert.Engine
	fresh int
}

const maxFreshSpecs = 16

// read sets the Spec of each of list's assertions to its spec object in
// vals, read as spec does: the known ones found at once (one lock).
func (sp *specs) read(vals []tape.Value, list []assert.Assertion) {
	if sp.known != nil {
		var room [8][]byte
		var found [8]map[string]any
		texts, known := room[:0], found[:0]
		if len(vals) > len(room) {
			texts, known = make([][]byte, 0, len(vals)), make([]map[string]any, 0, len(vals))
		}
		for _, v := range vals {
			texts, known = append(texts, v.Text()), append(known, nil)
		}
		sp.known.LookupSpecs(texts, known)
		for i, m := range known {
			list[i].Spec = m
		}
	}
	for i, v := range vals {
		if list[i].Spec == nil {
			list[i].Spec = sp.decode(v)
		}
	}
}

// spec is spec object v as a value no one may modify.
func (sp *specs) spec(v tape.Value) map[string]any {
	if sp.known != nil {
		if m, ok := sp.known.KnownSpec(v.Text()); ok {
			return m
		}
	}
	return sp.decode(v)
}

// decode is spec object v decoded, and remembered by its text for the first
// maxFreshSpecs of the line.
func (sp *specs) decode(v tape.Value) map[string]any {
	m, _ := v.Any().(map[string]any)
	if sp.known != nil && sp.fresh < maxFreshSpecs {
		sp.known.RememberSpec(v.Text(), m)
		sp.fresh++
	}
	return m
}

// materialise is params.assertions (an array) decoded plainly, for
// assert.Parse, except that the spec object of an assertion object is read
// as spec does.
func (sp *specs) materialise(av tape.Value) []any {
	out := make([]any, 0, av.Len())
	for e := range av.Elems() {
		if e.Kind() != tape.Object {
			out = append(out, e.Any())
			continue
		}
		obj := make(map[string]any, e.Len())
		for k, v := range e.Members() {
			if v.Kind() == tape.Object && k.Is("spec") {
				obj["spec"] = sp.spec(v)
			} else {
				obj[k.Str()] = v.Any()
			}
		}
		out = append(out, obj)
	}
	return out
}

// typeName is s as a string, one of the constants when it names a type.
func typeName(s []byte) string {
	for _, t := range assertionTypes {
		if string(s) == t {
			return t
		}
	}
	return string(s)
}
