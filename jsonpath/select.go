// select.go: Select, and the one walker that follows a Path through a document of either kind.

package jsonpath

import (
	"encoding/json"
	"strconv"

	"attest-engine/tape"
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
		if m, ok := static[anyNode, Match](p, anyNode{doc}); ok {
			return []Match{m}
		}
		return nil
	}
	return walkAll[anyNode, Match](p, anyNode{doc}, true)
}

// static is the selection of a path of names and indexes only (Select's
// and AppendValue's): at most one match, at a location known when the path
// was parsed.
func static[N node[N, M], M any](p *Path, root N) (m M, ok bool) {
	v := root
	for i := range p.segs {
		if v, _, ok = child[N, M](&p.segs[i], v); !ok {
			return m, false
		}
	}
	return v.match(root, hit{path: p, step: p.step, loc: p.text}), true
}

// walkAll is the selection of a path with wildcards, filters or lengths,
// with locations printed when locate is set: one walk for both kinds of
// document. (Apart, so that a path of names does not pay for zeroing the
// trail.)
func walkAll[N node[N, M], M any](p *Path, root N, locate bool) []M {
	// The walk pushes at most one crumb per segment: the trail never
	// grows. That of a short path is on the stack, as is the walker. (The
	// trail is passed apart: the walker's fields reach the node methods,
	// unknown calls through which everything they point to escapes.)
	var short [8]crumb
	trail := short[:0]
	if len(p.segs) > len(short) {
		trail = make([]crumb, 0, len(p.segs))
	}
	w := walker[N, M]{root: root, path: p, segs: p.segs, locate: locate}
	w.walk(root, 0, trail)
	return w.out
}

// walker is the state of one selection: a depth-first walk that passes
// along the trail of steps from the root to the current value, for Step
// and, when locate is set, the Location.
type walker[N node[N, M], M any] struct {
	root   N
	path   *Path
	segs   []segment // path.segs
	locate bool
	buf    []byte // reused to print every location of this selection
	out    []M
	// consts holds the results of constant filters (such as $.a==$.b),
	// evaluated once per selection however many elements they are applied
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

func (w *walker[N, M]) walk(v N, i int, trail []crumb) {
	if i == len(w.segs) {
		w.emit(v, hit{}, trail)
		return
	}
	seg := &w.segs[i]
	switch seg.kind {
	case segName, segIndex:
		c, j, ok := child[N, M](seg, v)
		if !ok {
			return
		}
		if seg.kind == segName {
			w.walk(c, i+1, append(trail, crumb{kind: crumbName, name: seg.name}))
		} else {
			w.walk(c, i+1, append(trail, crumb{kind: crumbIndex, index: j}))
		}
	case segLength:
		switch v.kind() {
		case tape.Object:
			if c, ok := v.member("length"); ok {
				w.walk(c, i+1, append(trail, crumb{kind: crumbName, name: "length"}))
			}
		case tape.Array:
			w.length(v, i, hit{tail: crumbLength, n: v.size()}, trail)
		case tape.String:
			w.length(v, i, hit{tail: crumbLength, n: v.runes()}, trail)
		}
	case segWildcard, segFilter:
		w.branch(v, seg, i, trail)
	}
}

// length reports the number h made by segment i from v. It is a match when
// segment i is the last: no segment selects anything from a number.
func (w *walker[N, M]) length(v N, i int, h hit, trail []crumb) {
	if i+1 == len(w.segs) {
		w.emit(v, h, trail)
	}
}

// branch applies a wildcard or a filter: to the elements of an array in
// order, to the members of an object in sorted order of names.
func (w *walker[N, M]) branch(v N, seg *segment, i int, trail []crumb) {
	n := 0
	switch v.kind() {
	case tape.Array:
		var e N
		for j := range v.size() {
			e = v.elem(j, e)
			if seg.kind == segFilter && !w.test(seg.filter, e) {
				continue
			}
			if seg.count {
				n++
			} else {
				w.walk(e, i+1, append(trail, crumb{kind: crumbIndex, index: j}))
			}
		}
	case tape.Object:
		// A count needs no order.
		for _, m := range v.members(!seg.count) {
			if seg.kind == segFilter && !w.test(seg.filter, m.value) {
				continue
			}
			if seg.count {
				n++
			} else {
				w.walk(m.value, i+1, append(trail, crumb{kind: crumbName, name: m.name}))
			}
		}
	default:
		return
	}
	if seg.count {
		w.length(v, i, hit{tail: crumbCount, n: n, seg: i}, trail)
	}
}

// emit reports v, or the number h made from it, reached by trail.
func (w *walker[N, M]) emit(v N, h hit, trail []crumb) {
	h.path, h.step = w.path, -1
	if len(trail) >= 2 && trail[0].kind == crumbName && trail[0].name == "steps" && trail[1].kind == crumbIndex {
		h.step = trail[1].index
	}
	if w.locate {
		h.loc = w.location(&h, trail)
	}
	w.out = append(w.out, v.match(w.root, h))
}

// location prints the trail, then the length h made if any, in the short
// form.
func (w *walker[N, M]) location(h *hit, t []crumb) string {
	if len(t) == 0 && h.tail == 0 {
		return "$"
	}
	if w.buf == nil {
		w.buf = make([]byte, 0, 128)
	}
	b := w.buf[:0]
	for i := range t {
		b = appendCrumb(b, &t[i], i == 0)
	}
	if h.tail != 0 {
		b = appendCrumb(b, &crumb{kind: h.tail, seg: &w.segs[h.seg]}, len(t) == 0)
	}
	w.buf = b
	return string(b)
}

// appendCrumb prints one step of a location; first is set for the first.
func appendCrumb(b []byte, c *crumb, first bool) []byte {
	switch c.kind {
	case crumbName:
		return appendName(b, c.name, first)
	case crumbIndex:
		return appendIndex(b, c.index)
	case crumbLength:
		if !first {
			b = append(b, '.')
		}
		return append(b, "length"...)
	case crumbCount:
		return appendSegment(b, c.seg, first)
	}
	return b
}

// child applies a name or index segment to v; for an index it also returns
// the position counted from the start. (Small enough to inline: a member
// is the common case.)
func child[N node[N, M], M any](seg *segment, v N) (N, int, bool) {
	if seg.kind == segName {
		c, ok := v.member(seg.name)
		return c, 0, ok
	}
	return element[N, M](seg.index, v)
}

// element is element i of v, counting from the end when i is negative,
// and its position counted from the start.
func element[N node[N, M], M any](i int, v N) (N, int, bool) {
	var none N
	if v.kind() != tape.Array {
		return none, 0, false
	}
	n := v.size()
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return none, 0, false
	}
	return v.index(i), i, true
}

func lengthNumber(n int) json.Number { return json.Number(strconv.Itoa(n)) }
