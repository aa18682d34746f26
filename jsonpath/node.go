// node.go: what the walker reads of a document, and its reading of encoding/json values.

package jsonpath

import (
	"slices"
	"strings"
	"unicode/utf8"

	"attest-engine/jsonschema"
	"attest-engine/tape"
)

// node is a value of a document as the one walker (select.go, filter.go)
// reads it, whatever the document is made of: anyNode reads the values of
// encoding/json (Select), tapeNode reads a tape.Value in place
// (SelectValue). N is the implementing type itself and M the match it
// reports. Both are small structs: as type arguments they are passed by
// value, never boxed, and the walker's state stays on the stack.
type node[N, M any] interface {
	// kind is the JSON type; the walker looks only for Array, Object and
	// String (anyNode reports Missing for a Go value outside the model).
	kind() tape.Kind
	// size is the number of elements of an array, or of members of an
	// object; 0 for any other kind.
	size() int
	// member is the member of an object named name.
	member(name string) (N, bool)
	// index is element i of an array, 0 ≤ i < size.
	index(i int) N
	// elem is element k of an array of size() elements in a loop over all
	// of them: prev is element k-1 (ignored when k is 0), so that a
	// document read in place steps to the next element in O(1).
	elem(k int, prev N) N
	// members lists the members of an object, in sorted order of names
	// when sorted is set (the order of matches), else in any order and
	// perhaps without their names.
	members(sorted bool) []member[N]
	// runes is the number of Unicode code points of a string.
	runes() int
	// equal reports whether two values are equal (jsonschema.Equal).
	equal(o N) bool
	// equalLiteral reports whether the value equals x (jsonschema.Equal): a
	// literal (nil, bool, string, json.Number) or a length (int).
	equalLiteral(x any) bool
	// match is the match reported for the value, selected from root as h
	// tells.
	match(root N, h hit) M
}

// member is a member of an object.
type member[N any] struct {
	name  string
	value N
}

// hit is what the walker knows of a match besides the value it reached.
type hit struct {
	path *Path
	step int // the Match.Step
	// tail is crumbLength or crumbCount when the match is a number made by
	// .length (n) of the value reached (for a count, by path.segs[seg]);
	// else 0.
	tail crumbKind
	n    int
	seg  int
	loc  string // the Location, printed only for Select
}

// anyNode is a value in encoding/json's model: nil, bool, string,
// json.Number, []any and map[string]any (float64 and Go integers are
// numbers too).
type anyNode struct{ v any }

func (n anyNode) kind() tape.Kind {
	switch n.v.(type) {
	case []any:
		return tape.Array
	case map[string]any:
		return tape.Object
	case string:
		return tape.String
	}
	return tape.Missing
}

func (n anyNode) size() int {
	switch x := n.v.(type) {
	case []any:
		return len(x)
	case map[string]any:
		return len(x)
	}
	return 0
}

func (n anyNode) member(name string) (anyNode, bool) {
	m, ok := n.v.(map[string]any)
	if !ok {
		return anyNode{}, false
	}
	c, ok := m[name]
	return anyNode{c}, ok
}

func (n anyNode) index(i int) anyNode { return anyNode{n.v.([]any)[i]} }

func (n anyNode) elem(k int, _ anyNode) anyNode { return n.index(k) }

func (n anyNode) members(sorted bool) []member[anyNode] {
	m := n.v.(map[string]any)
	ms := make([]member[anyNode], 0, len(m))
	for k, v := range m {
		ms = append(ms, member[anyNode]{k, anyNode{v}})
	}
	if sorted {
		slices.SortFunc(ms, func(a, b member[anyNode]) int { return strings.Compare(a.name, b.name) })
	}
	return ms
}

func (n anyNode) runes() int { return utf8.RuneCountInString(n.v.(string)) }

func (n anyNode) equal(o anyNode) bool { return jsonschema.Equal(n.v, o.v) }

func (n anyNode) equalLiteral(x any) bool { return jsonschema.Equal(n.v, x) }

func (n anyNode) match(_ anyNode, h hit) Match {
	m := Match{Value: n.v, Location: h.loc, Step: h.step}
	if h.tail != 0 {
		m.Value = lengthNumber(h.n)
	}
	return m
}
