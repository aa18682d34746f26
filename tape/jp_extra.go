// jp_extra.go: After and Member, for jsonpath's walker: an array's elements in O(1) each; Member is Get.

package tape

// After is the element of array v that follows e: the first element when
// e is Missing, Missing after the last one or when v is not an array. e must
// be an element of v (from Index or After); for any other Value of v's
// subtree the result is some Value of that subtree, for a Value outside it
// Missing. Unlike Elems, a loop over After needs no closure, and unlike
// Index(i) each step costs O(1).
func (v Value) After(e Value) Value {
	if v.Kind() != Array {
		return Value{}
	}
	n := v.d.nodes[v.i]
	if e.d == nil {
		if n.n == 0 {
			return Value{}
		}
		return Value{v.d, v.i + 1}
	}
	if e.d != v.d || e.i <= v.i || e.i >= n.next {
		return Value{}
	}
	if next := v.d.nodes[e.i].next; next < n.next {
		return Value{v.d, next}
	}
	return Value{}
}

// Member is Get(name), which took over its in-place loop: of a name given
// twice, the last member, as Get and Any.
func (v Value) Member(name string) Value { return v.Get(name) }
