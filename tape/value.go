// value.go: reading a Doc in place: kinds, members, elements, scalars, and Any.

package tape

import (
	"encoding/json"
	"iter"
	"unicode/utf16"
	"unicode/utf8"
)

// Value is one value of a Doc, read in place. The zero Value is Missing:
// what Get and Index return for a member or element that is not there.
// A Value is valid until its Doc is released.
type Value struct {
	d *Doc
	i uint32
}

// Kind is v's JSON type; Missing for the zero Value.
func (v Value) Kind() Kind {
	if v.d == nil {
		return Missing
	}
	return v.d.nodes[v.i].kind
}

// Exists reports whether v is a value (not Missing).
func (v Value) Exists() bool { return v.d != nil }

// Len is the number of an array's elements or an object's members; 0 for
// any other kind.
func (v Value) Len() int {
	if k := v.Kind(); k != Array && k != Object {
		return 0
	}
	return int(v.d.nodes[v.i].n)
}

// Text is v's exact text in the document (a string with its quotes).
func (v Value) Text() []byte {
	if v.d == nil {
		return nil
	}
	n := v.d.nodes[v.i]
	if n.kind == String {
		return v.d.src[n.start-1 : n.end+1]
	}
	return v.d.src[n.start:n.end]
}

// Offset is the byte offset of v's text in the document (a string's
// opening quote); -1 for Missing, which has no text.
func (v Value) Offset() int {
	if v.d == nil {
		return -1
	}
	if v.Kind() == String {
		return int(v.d.nodes[v.i].start) - 1
	}
	return int(v.d.nodes[v.i].start)
}

// next is the Value after v's subtree: its next sibling when it has one.
func (v Value) next() Value { return Value{v.d, v.d.nodes[v.i].next} }

// Get is the member of object v named name, or Missing. When the object
// names it more than once (Parse reported a *DuplicateKeyError), Get is the
// last such member, the one Any keeps, as in encoding/json: every reader of
// a Doc sees the same value. A name without escapes is compared in place,
// with no call per member.
func (v Value) Get(name string) Value {
	if v.Kind() != Object {
		return Value{}
	}
	var found Value
	nodes := v.d.nodes
	k := v.i + 1 // the first member's name
	for range nodes[v.i].n {
		kn := &nodes[k]
		match := false
		if kn.n == 0 {
			match = int(kn.end-kn.start) == len(name) && string(v.d.src[kn.start:kn.end]) == name
		} else {
			match = Value{v.d, k}.Is(name)
		}
		if match {
			found = Value{v.d, k + 1}
			if v.d.dup == nil { // no object of the Doc repeats a name
				return found
			}
		}
		k = nodes[k+1].next
	}
	return found
}

// Members yields the name (a String Value) and value of each member of
// object v, in document order; nothing for any other kind.
func (v Value) Members() iter.Seq2[Value, Value] {
	return func(yield func(Value, Value) bool) {
		if v.Kind() != Object {
			return
		}
		k := Value{v.d, v.i + 1}
		for range v.d.nodes[v.i].n {
			val := Value{v.d, k.i + 1}
			if !yield(k, val) {
				return
			}
			k = val.next()
		}
	}
}

// Elems yields the elements of array v in order; nothing for any other kind.
func (v Value) Elems() iter.Seq[Value] {
	return func(yield func(Value) bool) {
		if v.Kind() != Array {
			return
		}
		e := Value{v.d, v.i + 1}
		for range v.d.nodes[v.i].n {
			if !yield(e) {
				return
			}
			e = e.next()
		}
	}
}

// Index is element i of array v, or Missing.
func (v Value) Index(i int) Value {
	if v.Kind() != Array || i < 0 || i >= int(v.d.nodes[v.i].n) {
		return Value{}
	}
	e := Value{v.d, v.i + 1}
	for range i {
		e = e.next()
	}
	return e
}

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

// Bool is true for the literal true.
func (v Value) Bool() bool { return v.Kind() == Bool && v.d.nodes[v.i].n == 1 }

// Number is a number's text as written; "" for any other kind.
func (v Value) Number() json.Number {
	if v.Kind() != Number {
		return ""
	}
	return json.Number(v.Text())
}

// Is reports whether v is the string s, without allocating.
func (v Value) Is(s string) bool {
	if v.Kind() != String {
		return false
	}
	n := v.d.nodes[v.i]
	if n.n == 0 {
		return string(v.d.src[n.start:n.end]) == s
	}
	text := v.d.src[n.start:n.end]
	if len(s) > len(text) { // an escape is never shorter than what it stands for
		return false
	}
	var buf [128]byte // escaped names are short: decode them on the stack
	return string(unescape(buf[:0], text)) == s
}

// Bytes is the decoded content of string v: a slice of the document when
// it has no escapes, else new. Nil for any other kind.
func (v Value) Bytes() []byte {
	if v.Kind() != String {
		return nil
	}
	n := v.d.nodes[v.i]
	if n.n == 0 {
		return v.d.src[n.start:n.end]
	}
	return unescape(nil, v.d.src[n.start:n.end])
}

// Str is the decoded content of string v ("" for any other kind), a new
// string unless it is short and was seen before (the Doc's interner).
func (v Value) Str() string {
	if v.Kind() != String {
		return ""
	}
	d := v.d
	n := d.nodes[v.i]
	if n.n != 0 {
		return string(unescape(nil, d.src[n.start:n.end]))
	}
	if !d.shared.Load() {
		return d.intern.key(d.src[n.start:n.end])
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.intern.key(d.src[n.start:n.end])
}

// Share declares that v's document is read by several goroutines from now
// on: its Values then take a lock for what they keep (Str's interner, Any's
// scratch). Call it before handing Values to another goroutine that reads
// alongside; a Doc read by one goroutine at a time takes no lock.
func (v Value) Share() {
	if v.d != nil {
		v.d.shared.Store(true)
	}
}

// Any is v in the engine's value model: nil, bool, string, json.Number,
// []any and map[string]any (a later duplicate member wins, as in
// encoding/json). The result shares nothing with the document.
func (v Value) Any() any {
	if v.d == nil {
		return nil
	}
	if v.d.shared.Load() {
		v.d.mu.Lock()
		defer v.d.mu.Unlock()
	}
	val, _ := v.d.build(v.i)
	return val
}

// build makes node i's value (d.mu held when the Doc is shared: the
// interner is not safe for concurrent use) and returns it with the index past its subtree.
func (d *Doc) build(i uint32) (any, uint32) {
	n := d.nodes[i]
	switch n.kind {
	case Null:
		return nil, i + 1
	case Bool:
		return n.n == 1, i + 1
	case Number:
		return d.intern.value(d.src[n.start:n.end], true), i + 1
	case String:
		if n.n != 0 {
			d.buf = unescape(d.buf[:0], d.src[n.start:n.end])
			return d.intern.value(d.buf, false), i + 1
		}
		return d.intern.value(d.src[n.start:n.end], false), i + 1
	case Array:
		a := make([]any, n.n)
		j := i + 1
		for k := range a {
			a[k], j = d.build(j)
		}
		return a, j
	}
	m := make(map[string]any, n.n)
	j := i + 1
	for range n.n {
		var k string
		if kn := d.nodes[j]; kn.n != 0 {
			k = string(unescape(nil, d.src[kn.start:kn.end]))
		} else {
			k = d.intern.key(d.src[kn.start:kn.end])
		}
		m[k], j = d.build(j + 1)
	}
	return m, j
}

// unescape appends the decoded content of string text s, which has
// escapes, to b. The parser checked every escape; a lone surrogate becomes
// U+FFFD, as in encoding/json.
func unescape(b, s []byte) []byte {
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			b = append(b, s[i])
			i++
			continue
		}
		var r rune
		r, i = escapeAt(s, i)
		b = utf8.AppendRune(b, r)
	}
	return b
}

// escapeAt decodes the escape at s[i] (a backslash; the parser checked
// every escape) and returns its rune and the index past it: a surrogate
// pair is one rune, a lone surrogate U+FFFD, as in encoding/json.
func escapeAt(s []byte, i int) (rune, int) {
	c := s[i+1]
	i += 2
	switch c {
	case 'b':
		return '\b', i
	case 'f':
		return '\f', i
	case 'n':
		return '\n', i
	case 'r':
		return '\r', i
	case 't':
		return '\t', i
	case 'u':
		r, _ := hex4(s[i:])
		i += 4
		if !utf16.IsSurrogate(r) {
			return r, i
		}
		r2 := rune(-1)
		if i+5 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
			r2, _ = hex4(s[i+2:])
		}
		if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
			return dec, i + 6
		}
		return utf8.RuneError, i // not a pair: the second escape is read on its own
	}
	return rune(c), i // '"', '\\', '/'
}
