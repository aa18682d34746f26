// select.go: Select, which walks a document along a Path and reports matches.

package jsonpath

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Match is one value selected by a Path.
type Match struct {
	// Value is the selected value, shared with the document (not a copy),
	// or a json.Number made by .length.
	Value any
	// Location is where Value is, in the short form: itself a path that
	// selects exactly this match, e.g. steps[2].result.amount; "$" for the
	// whole document.
	Location string
	// Step is the index into the top-level steps array the match went
	// through, or -1.
	Step int
}

// Select returns every match of p in doc, in document order. Members of an
// object, which encoding/json does not keep in order, are visited in
// sorted order of their names. Select never fails: a path that finds
// nothing returns no matches.
func (p *Path) Select(doc any) []Match {
	if p.static {
		// Names and indexes only: at most one match, at a location known
		// when the path was parsed.
		v := doc
		for i := range p.segs {
			var ok bool
			if v, _, ok = child(&p.segs[i], v); !ok {
				return nil
			}
		}
		return []Match{{Value: v, Location: p.text, Step: p.step}}
	}
	// The walk pushes at most one crumb per segment: the trail never grows.
	s := selector{root: doc, segs: p.segs, trail: make([]crumb, 0, len(p.segs))}
	s.walk(doc, 0)
	return s.out
}

// selector is the state of one Select: a depth-first walk that keeps the
// trail of steps from the root to the current value for the Location.
type selector struct {
	root  any
	segs  []segment
	trail []crumb
	buf   []byte // reused to print every location of this Select
	out   []Match
	// consts holds the results of constant filters (such as $.a==$.b),
	// evaluated once per Select however many elements they are applied
	// to: comparing the whole document once per element would be
	// quadratic.
	consts []constResult
}

type constResult struct {
	f     *filter
	holds bool
}

type crumbKind uint8

const (
	crumbName   crumbKind = iota + 1 // a member
	crumbIndex                       // an array element
	crumbLength                      // the length of an array or a string
	crumbCount                       // the number of matches of seg
)

type crumb struct {
	kind  crumbKind
	name  string
	index int
	seg   *segment
}

func (s *selector) walk(v any, i int) {
	if i == len(s.segs) {
		s.emit(v)
		return
	}
	seg := &s.segs[i]
	switch seg.kind {
	case segName, segIndex:
		c, j, ok := child(seg, v)
		if !ok {
			return
		}
		if seg.kind == segName {
			s.visit(c, i, crumb{kind: crumbName, name: seg.name})
		} else {
			s.visit(c, i, crumb{kind: crumbIndex, index: j})
		}
	case segLength:
		switch x := v.(type) {
		case map[string]any:
			if c, ok := x["length"]; ok {
				s.visit(c, i, crumb{kind: crumbName, name: "length"})
			}
		case []any:
			s.visit(lengthNumber(len(x)), i, crumb{kind: crumbLength})
		case string:
			s.visit(lengthNumber(utf8.RuneCountInString(x)), i, crumb{kind: crumbLength})
		}
	case segWildcard, segFilter:
		s.branch(v, seg, i)
	}
}

// visit walks the rest of the path from c, reached from the current value
// by cr.
func (s *selector) visit(c any, i int, cr crumb) {
	s.trail = append(s.trail, cr)
	s.walk(c, i+1)
	s.trail = s.trail[:len(s.trail)-1]
}

// branch applies a wildcard or a filter: to the elements of an array in
// order, to the members of an object in sorted order of names.
func (s *selector) branch(v any, seg *segment, i int) {
	n := 0
	switch x := v.(type) {
	case []any:
		for j, e := range x {
			if seg.kind == segFilter && !s.test(seg.filter, e) {
				continue
			}
			if seg.count {
				n++
			} else {
				s.visit(e, i, crumb{kind: crumbIndex, index: j})
			}
		}
	case map[string]any:
		if seg.count {
			for _, e := range x {
				if seg.kind != segFilter || s.test(seg.filter, e) {
					n++
				}
			}
			break
		}
		for _, k := range sortedKeys(x) {
			e := x[k]
			if seg.kind != segFilter || s.test(seg.filter, e) {
				s.visit(e, i, crumb{kind: crumbName, name: k})
			}
		}
	default:
		return
	}
	if seg.count {
		s.visit(lengthNumber(n), i, crumb{kind: crumbCount, seg: seg})
	}
}

func (s *selector) emit(v any) {
	step := -1
	if len(s.trail) >= 2 && s.trail[0].kind == crumbName && s.trail[0].name == "steps" && s.trail[1].kind == crumbIndex {
		step = s.trail[1].index
	}
	s.out = append(s.out, Match{Value: v, Location: s.location(), Step: step})
}

// location prints the trail in the short form.
func (s *selector) location() string {
	if len(s.trail) == 0 {
		return "$"
	}
	if s.buf == nil {
		s.buf = make([]byte, 0, 128)
	}
	b := s.buf[:0]
	for i := range s.trail {
		c := &s.trail[i]
		switch c.kind {
		case crumbName:
			b = appendName(b, c.name, i == 0)
		case crumbIndex:
			b = appendIndex(b, c.index)
		case crumbLength:
			if i > 0 {
				b = append(b, '.')
			}
			b = append(b, "length"...)
		case crumbCount:
			b = appendSegment(b, c.seg, i == 0)
		}
	}
	s.buf = b
	return string(b)
}

// child applies a name or index segment to v; for an index it also returns
// the position counted from the start.
func child(seg *segment, v any) (any, int, bool) {
	switch seg.kind {
	case segName:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, 0, false
		}
		c, ok := m[seg.name]
		return c, 0, ok
	case segIndex:
		a, ok := v.([]any)
		if !ok {
			return nil, 0, false
		}
		i := seg.index
		if i < 0 {
			i += len(a)
		}
		if i < 0 || i >= len(a) {
			return nil, 0, false
		}
		return a[i], i, true
	}
	return nil, 0, false
}

func lengthNumber(n int) json.Number { return json.Number(strconv.Itoa(n)) }

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
