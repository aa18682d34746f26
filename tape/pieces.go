// pieces.go: what the trace rules read in place: a document's duplicate names, a string's raw text, decoded pieces and length in code points, a flat walk.

package tape

import (
	"iter"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// HasDuplicate reports whether v's document names a member of some object
// twice (Parse returned a *DuplicateKeyError with it). In such a document
// Get, like Any, takes the later member.
func (v Value) HasDuplicate() bool { return v.d != nil && v.d.dup != nil }

// Raw is the text of string v between its quotes, escapes not decoded, as
// a slice of the document; nil for any other kind. When Escaped is false it
// is also the decoded content.
func (v Value) Raw() []byte {
	if v.Kind() != String {
		return nil
	}
	n := v.d.nodes[v.i]
	return v.d.src[n.start:n.end]
}

// Escaped reports whether string v's text has escapes (then Bytes and Str
// allocate); false for any other kind.
func (v Value) Escaped() bool { return v.Kind() == String && v.d.nodes[v.i].n != 0 }

// Tokens yields v and every value and member name inside it, in document
// order: an array before its elements, an object before each member's name
// (a String Value) and then that member's value. A flat walk, without
// recursion; nothing for Missing.
func (v Value) Tokens() iter.Seq[Value] {
	return func(yield func(Value) bool) {
		if v.d == nil {
			return
		}
		for i := v.i; i < v.d.nodes[v.i].next; i++ {
			if !yield(Value{v.d, i}) {
				return
			}
		}
	}
}

// Chunks yields the decoded content of string v in order, in pieces: each
// run of text between escapes as a slice of the document (with r = -1), and
// each escape as the rune it decodes to (with run nil), a surrogate pair as
// one rune and a lone surrogate as U+FFFD, exactly as Bytes decodes them. It
// allocates nothing; it yields nothing for any other kind.
func (v Value) Chunks() iter.Seq2[[]byte, rune] {
	return func(yield func(run []byte, r rune) bool) {
		s := v.Raw()
		start := 0
		for i := 0; i < len(s); {
			if s[i] != '\\' {
				i++
				continue
			}
			if start < i && !yield(s[start:i], -1) {
				return
			}
			var r rune
			r, i = escapeAt(s, i)
			if !yield(nil, r) {
				return
			}
			start = i
		}
		if start < len(s) {
			yield(s[start:], -1)
		}
	}
}

// RuneCount is the number of code points of string v's decoded content,
// counted in place (a surrogate pair is one, as Bytes decodes it); 0 for
// any other kind.
func (v Value) RuneCount() int {
	if !v.Escaped() {
		return utf8.RuneCount(v.Raw())
	}
	n := 0
	for run := range v.Chunks() {
		if run != nil {
			n += utf8.RuneCount(run)
		} else {
			n++
		}
	}
	return n
}

// LoneSurrogate reports whether string v's text escapes a surrogate code
// point that is not half of a pair ("\ud800", "\udc00"): decoded, such an
// escape becomes U+FFFD, as in encoding/json, so "\ud800" and "\ufffd"
// read alike; I-JSON (RFC 7493 §2.1), and so RFC 8785, refuses it. False for
// any other kind.
func (v Value) LoneSurrogate() bool {
	if !v.Escaped() {
		return false
	}
	s := v.Raw()
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			i++
			continue
		}
		start := i
		_, i = escapeAt(s, i)
		if i-start == 6 && s[start+1] == 'u' {
			if r, _ := hex4(s[start+2:]); utf16.IsSurrogate(r) {
				return true // a surrogate escape read alone: a pair is 12 bytes
			}
		}
	}
	return false
}

// FindLoneSurrogate returns where in v a string or member name holds a lone
// surrogate escape (LoneSurrogate), as a path from v: members by name after
// a dot, elements by index in brackets ("args.items[2].name"); a member name
// that holds one is named by its own path. found is false when there is none.
// Nesting is bounded by MaxDepth, as in every parsed document. The path is
// built only once one is found, from the pieces on the way back up: built on
// the way down, every value of a document nested d deep with long member
// names cost a copy of its ancestors' names, O(d · size) bytes for nothing.
func FindLoneSurrogate(v Value) (path string, found bool) {
	var up []pathPiece // from the lone surrogate up to v
	if !findLone(v, &up) {
		return "", false
	}
	var b strings.Builder
	for i := len(up) - 1; i >= 0; i-- {
		if p := up[i]; p.index >= 0 {
			b.WriteString("[" + strconv.Itoa(p.index) + "]")
		} else {
			if i < len(up)-1 {
				b.WriteByte('.')
			}
			b.WriteString(p.name.Str())
		}
	}
	return b.String(), true
}

// pathPiece is a step of a path: an element's index, or (index -1) a member's name.
type pathPiece struct {
	name  Value
	index int
}

func findLone(v Value, up *[]pathPiece) bool {
	switch v.Kind() {
	case String:
		return v.LoneSurrogate()
	case Array:
		i := 0
		for e := range v.Elems() {
			if findLone(e, up) {
				*up = append(*up, pathPiece{index: i})
				return true
			}
			i++
		}
	case Object:
		for name, e := range v.Members() {
			if name.LoneSurrogate() || findLone(e, up) {
				*up = append(*up, pathPiece{name: name, index: -1})
				return true
			}
		}
	}
	return false
}
