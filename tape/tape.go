// tape.go: the tape's types: a Doc and its nodes, the kinds of JSON value, and the errors Parse reports.

package tape

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// MaxDepth bounds the nesting of arrays and objects in any document.
// encoding/json allows 10,000 levels; no trace needs more than a few dozen,
// and every later walk (validation, JSONPath, JSON Schema) recurses over
// the value, so a small bound keeps all of them cheap and safe.
const MaxDepth = 512

// SyntaxError reports input that is not one well-formed JSON value.
type SyntaxError struct {
	Offset int // byte offset of the problem in the input
	Msg    string
	// NonFinite marks a NaN, Infinity or -Infinity token, which JSON lacks
	// (RFC 8259 §6) and some encoders write by default (Python's json.dumps).
	NonFinite bool
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s at offset %d", e.Msg, e.Offset)
}

// DuplicateKeyError reports an object that names the same member twice: the
// earliest such repeat of the document. Parse still returns the document,
// so that a caller can answer with the request's id; it is the caller's
// choice to refuse it. Two parsers may disagree on which duplicate counts,
// so the engine refuses such documents rather than guess.
type DuplicateKeyError struct {
	Offset int
	Key    string
}

func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("duplicate object key %q at offset %d", e.Key, e.Offset)
}

// Kind is the JSON type of a Value.
type Kind uint8

// The kinds; Missing is the kind of the zero Value (a member or element
// that is not there).
const (
	Missing Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

// node is one token of the tape.
type node struct {
	// start and end delimit the token's text: a string's content between
	// its quotes, a number or literal's text, or an array or object from
	// its opening bracket to just past its closing one.
	start, end uint32
	// next is the index of the first node after this value's subtree.
	next uint32
	// n is an array's or object's number of elements or members; 1 for
	// true and for a string with escapes; else 0.
	n    uint32
	kind Kind
}

// Doc is a parsed JSON text. Its Values read the text in place: it must
// not change while the Doc is in use.
type Doc struct {
	src   []byte
	nodes []node
	// keys is noteDuplicate's scratch: the name nodes of the object whose
	// names it compares.
	keys  []uint32
	depth int
	pos   int
	dup   *DuplicateKeyError
	buf   []byte // Any's scratch for strings with escapes

	shared atomic.Bool // Share was called: mu guards intern and buf
	mu     sync.Mutex
	intern interner
}

var docs = sync.Pool{New: func() any { return new(Doc) }}

// maxKeptNodes is the largest tape a released Doc keeps for the next one.
const maxKeptNodes = 1 << 16
