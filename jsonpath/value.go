// value.go: SelectValue, which walks a tape.Value in place, and its reading of tape values.

package jsonpath

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"attest-engine/jsonschema"
	"attest-engine/tape"
)

// ValueMatch is one value selected by SelectValue, read in place.
type ValueMatch struct {
	// Value is the selected value, shared with the document. It is Missing
	// when the match is a number made by .length, which is then Length
	// (and when the path is $ and the root is Missing).
	Value tape.Value
	// Length is the number made by .length: a count of elements, members,
	// code points or matches. 0 when Value is set.
	Length int
	// Step is the index into the top-level steps array the match went
	// through, or -1, as in Match.
	Step int

	// Where the match is, for Location: Value, or for a length the value
	// at offset at, reached from root; then the .length taken of it (tail,
	// and for a count path.segs[seg]). Kept small (64 bytes): the result
	// is the one allocation of most selections.
	root tape.Value
	path *Path
	at   uint32
	seg  uint8 // < maxSegments
	tail crumbKind
}

// SelectValue returns every match of p in root, in document order, read in
// place: the same matches as p.Select(root.Any()), in the same order, with
// the same locations (members of an object in sorted order of names), for
// a document that names no member twice in an object. (tape.Parse reports
// one that does with a *tape.DuplicateKeyError, and the engine refuses it.
// In such a document a name selects the member Any keeps, the last, but a
// wildcard or a filter on the object visits every member of the name.)
//
// SelectValue never fails: a path that finds nothing returns no matches.
// It allocates only its result for a path of names and indexes, and for
// one of up to 8 segments whose filters on arrays compare with literals,
// such as steps[?name=='lookup_order'].result; wildcards and filters on
// objects allocate a list of members.
func (p *Path) SelectValue(root tape.Value) []ValueMatch { return p.AppendValue(nil, root) }

// AppendValue is SelectValue appending the matches to dst: a caller with
// room on its stack for a few matches allocates nothing for a path of
// names and indexes.
func (p *Path) AppendValue(dst []ValueMatch, root tape.Value) []ValueMatch {
	// dst is only appended to, never handed to the walk (whose state
	// escapes through the node methods): so it may stay on the caller's
	// stack.
	if p.static {
		if m, ok := static[tapeNode, ValueMatch](p, tapeNode{root}); ok {
			return append(dst, m)
		}
		return dst
	}
	ms := walkAll[tapeNode, ValueMatch](p, tapeNode{root}, false)
	if cap(dst) == 0 {
		return ms
	}
	return append(dst, ms...)
}

// Location is where the match is, in the short form, exactly as
// Match.Location for the same match of Select: itself a path that selects
// exactly this match, e.g. steps[2].result.amount; "$" for the whole
// document. It is printed when asked, by a walk from the root to the match
// (except for a path of names and indexes, whose location is its text).
func (m ValueMatch) Location() string {
	if m.path == nil {
		return "$" // the zero ValueMatch
	}
	if m.path.static {
		return m.path.text
	}
	if !m.root.Exists() || m.tail == 0 && !m.Value.Exists() {
		return "$" // only $ matches in a Missing root
	}
	off := int(m.at)
	if m.tail == 0 {
		off = m.Value.Offset()
	}
	// Values of a document start at different offsets.
	var b []byte
	first := true
	for v := m.root; v.Offset() != off; first = false {
		var cr crumb
		if v, cr = towards(v, off); !v.Exists() {
			break // not in root's subtree: not a match of SelectValue
		}
		b = appendCrumb(b, &cr, first)
	}
	if m.tail != 0 {
		b = appendCrumb(b, &crumb{kind: m.tail, seg: &m.path.segs[m.seg]}, first)
		first = false
	}
	if first {
		return "$"
	}
	return string(b)
}

// towards returns the element or member of v whose text holds offset
// off, and the step to it.
func towards(v tape.Value, off int) (tape.Value, crumb) {
	holds := func(c tape.Value) bool {
		start := c.Offset()
		return start <= off && off < start+len(c.Text())
	}
	switch v.Kind() {
	case tape.Array:
		j := 0
		for e := range v.Elems() {
			if holds(e) {
				return e, crumb{kind: crumbIndex, index: j}
			}
			j++
		}
	case tape.Object:
		for k, c := range v.Members() {
			if holds(c) {
				return c, crumb{kind: crumbName, name: k.Str()}
			}
		}
	}
	return tape.Value{}, crumb{}
}

// Any is the matched value in the engine's value model, as
// Match.Value: the Value's Any, or the json.Number of a length.
func (m ValueMatch) Any() any {
	if m.tail != 0 {
		return lengthNumber(m.Length)
	}
	return m.Value.Any()
}

// tapeNode is a value of a tape, read in place.
type tapeNode struct{ v tape.Value }

func (n tapeNode) kind() tape.Kind { return n.v.Kind() }

func (n tapeNode) size() int { return n.v.Len() }

func (n tapeNode) member(name string) (tapeNode, bool) {
	c := n.v.Get(name)
	return tapeNode{c}, c.Exists()
}

func (n tapeNode) index(i int) tapeNode { return tapeNode{n.v.Index(i)} }

func (n tapeNode) elem(_ int, prev tapeNode) tapeNode { return tapeNode{n.v.After(prev.v)} }

// members leaves the names out when they are not sorted: no caller
// reads them then, and decoding them costs.
func (n tapeNode) members(sorted bool) []member[tapeNode] {
	ms := make([]member[tapeNode], 0, n.v.Len())
	for k, c := range n.v.Members() {
		m := member[tapeNode]{value: tapeNode{c}}
		if sorted {
			m.name = k.Str()
		}
		ms = append(ms, m)
	}
	if sorted {
		slices.SortFunc(ms, func(a, b member[tapeNode]) int { return strings.Compare(a.name, b.name) })
	}
	return ms
}

func (n tapeNode) runes() int { return n.v.RuneCount() }

func (n tapeNode) match(root tapeNode, h hit) ValueMatch {
	m := ValueMatch{Value: n.v, Step: h.step, root: root.v, path: h.path}
	if h.tail != 0 {
		m.Value, m.Length = tape.Value{}, h.n
		m.at, m.seg, m.tail = uint32(n.v.Offset()), uint8(h.seg), h.tail
	}
	return m
}

func (n tapeNode) equal(o tapeNode) bool { return equalTape(n.v, o.v) }

// equalLiteral is jsonschema.Equal(n.v.Any(), x) without building the value.
func (n tapeNode) equalLiteral(x any) bool {
	switch x := x.(type) {
	case nil:
		return n.v.Kind() == tape.Null
	case bool:
		return n.v.Kind() == tape.Bool && n.v.Bool() == x
	case string:
		return n.v.Is(x)
	case json.Number:
		return n.v.Kind() == tape.Number && equalNumber(n.v.Text(), []byte(x))
	case int:
		var buf [20]byte
		return n.v.Kind() == tape.Number && equalNumber(n.v.Text(), strconv.AppendInt(buf[:0], int64(x), 10))
	}
	return false
}

// equalTape is jsonschema.Equal(a.Any(), b.Any()) without building the
// values: same kind, numbers equal by value, strings by code points,
// arrays element by element, objects member by member.
func equalTape(a, b tape.Value) bool {
	k := a.Kind()
	if k != b.Kind() {
		return false
	}
	switch k {
	case tape.Bool:
		return a.Bool() == b.Bool()
	case tape.Number:
		return equalNumber(a.Text(), b.Text())
	case tape.String:
		return string(a.Bytes()) == string(b.Bytes())
	case tape.Array:
		if a.Len() != b.Len() {
			return false
		}
		var ea, eb tape.Value
		for range a.Len() {
			ea, eb = a.After(ea), b.After(eb)
			if !equalTape(ea, eb) {
				return false
			}
		}
		return true
	case tape.Object:
		return equalObject(a, b)
	}
	return true // null
}

// bigObject is the size past which equalObject looks members up in a map
// rather than by a scan: comparing two objects stays linear in their size.
const bigObject = 16

func equalObject(a, b tape.Value) bool {
	if a.Len() != b.Len() {
		return false
	}
	get := b.Get
	if b.Len() > bigObject {
		m := make(map[string]tape.Value, b.Len())
		for k, c := range b.Members() {
			m[k.Str()] = c
		}
		get = func(name string) tape.Value { return m[name] }
	}
	for k, c := range a.Members() {
		if !equalTape(c, get(k.Str())) {
			return false
		}
	}
	return true
}

// equalNumber compares two JSON numbers by value, as jsonschema.Equal
// does. Integers without fraction or exponent, which JSON writes without
// leading zeros, are equal only when written alike, or both zero (-0 and
// 0); anything else goes to jsonschema.
func equalNumber(a, b []byte) bool {
	if string(a) == string(b) {
		return true
	}
	if plainInteger(a) && plainInteger(b) {
		return isZero(a) && isZero(b)
	}
	return jsonschema.Equal(json.Number(a), json.Number(b))
}

// plainInteger reports digits with an optional minus sign.
func plainInteger(s []byte) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(s) > 0
}

func isZero(s []byte) bool { return string(s) == "0" || string(s) == "-0" }
