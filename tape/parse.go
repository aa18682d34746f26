// parse.go: the one pass that checks a JSON text and lays out its tape.

package tape

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf8"
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

// Parse checks that src holds exactly one JSON value with optional white
// space around it, and returns its Doc. Member names match exactly (no case
// folding), strings must be valid UTF-8, nesting is limited to MaxDepth,
// and the text must fit in 4 GiB. On a duplicate member name Parse returns
// the Doc together with a *DuplicateKeyError; on any other problem it
// returns nil and a *SyntaxError. The caller may Release the Doc when done.
func Parse(src []byte) (*Doc, error) {
	if uint64(len(src)) >= 1<<32-1 {
		return nil, &SyntaxError{Msg: "document larger than 4 GiB"}
	}
	d := docs.Get().(*Doc)
	d.src, d.pos, d.depth, d.dup = src, 0, 0, nil
	d.nodes, d.keys = d.nodes[:0], d.keys[:0]
	// Room for the tape up front: a request line (traces run at about one
	// node per ten bytes) gets an eighth of its length, so that it rarely
	// grows. A large text gets a thirty-second and grows by append when it
	// needs more: a large trace is mostly long strings (~50 bytes a node),
	// and an eighth of 10 MB reserved 25 MB for the 4 MB it used.
	want := len(src)/8 + 16
	if len(src) > 1<<20 {
		want = len(src) / 32
	}
	if cap(d.nodes) < want {
		d.nodes = make([]node, 0, want)
	}
	d.skipSpace()
	err := d.value()
	if err == nil {
		d.skipSpace()
		if d.pos != len(d.src) {
			err = d.errorf("unexpected data after top-level value")
		}
	}
	if err != nil {
		d.Release()
		return nil, err
	}
	if d.dup != nil {
		return d, d.dup
	}
	return d, nil
}

// Release returns d to be reused by a later Parse. Neither d nor any of
// its Values may be used after.
func (d *Doc) Release() {
	d.src, d.dup = nil, nil
	d.shared.Store(false)
	if cap(d.nodes) > maxKeptNodes {
		d.nodes = nil
	}
	if cap(d.keys) > 4096 {
		d.keys = nil
	}
	if cap(d.buf) > 64<<10 {
		d.buf = nil
	}
	docs.Put(d)
}

// Root is the document's top-level value.
func (d *Doc) Root() Value { return Value{d, 0} }

// Source is the text d was parsed from.
func (d *Doc) Source() []byte { return d.src }

func (d *Doc) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: d.pos, Msg: fmt.Sprintf(format, args...)}
}

// skipSpace moves d.pos past white space. Its loop works on locals: the
// compiler does not keep a field of *d in a register across a loop.
func (d *Doc) skipSpace() {
	src, p := d.src, d.pos
	for p < len(src) && isSpace[src[p]] {
		p++
	}
	d.pos = p
}

// isSpace marks the four white space bytes of RFC 8259 §2.
var isSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// push appends a node for a token that starts at start.
func (d *Doc) push(k Kind, start int) uint32 {
	i := uint32(len(d.nodes))
	d.nodes = append(d.nodes, node{start: uint32(start), kind: k})
	return i
}

// done sets the end of node i's text and the index past its subtree.
func (d *Doc) done(i uint32) {
	d.nodes[i].end = uint32(d.pos)
	d.nodes[i].next = uint32(len(d.nodes))
}

func (d *Doc) value() error {
	if d.pos >= len(d.src) {
		return d.errorf("unexpected end of input")
	}
	switch c := d.src[d.pos]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		return d.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case c == 't':
		return d.literal("true", Bool, 1)
	case c == 'f':
		return d.literal("false", Bool, 0)
	case c == 'n':
		return d.literal("null", Null, 0)
	case c == 'N' || c == 'I':
		if err := d.nonFinite(); err != nil {
			return err
		}
		fallthrough
	default:
		return d.errorf("invalid character %s looking for beginning of value", quoteByte(c))
	}
}

// nonFinite returns the error for a NaN or Infinity token at d.pos, or nil
// when none is there.
func (d *Doc) nonFinite() error {
	for _, word := range [...]string{"NaN", "Infinity"} {
		if len(d.src)-d.pos >= len(word) && string(d.src[d.pos:d.pos+len(word)]) == word {
			tok := word
			if d.pos > 0 && d.src[d.pos-1] == '-' && word == "Infinity" {
				tok = "-" + word
			}
			return &SyntaxError{Offset: d.pos, NonFinite: true,
				Msg: fmt.Sprintf("%s is not a JSON value (RFC 8259 §6: numbers are finite)", tok)}
		}
	}
	return nil
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("0x%02x", c)
}

func (d *Doc) literal(word string, k Kind, n uint32) error {
	if len(d.src)-d.pos < len(word) || string(d.src[d.pos:d.pos+len(word)]) != word {
		return d.errorf("invalid literal, expected %s", word)
	}
	i := d.push(k, d.pos)
	d.nodes[i].n = n
	d.pos += len(word)
	d.done(i)
	return nil
}

func (d *Doc) enter() error {
	d.depth++
	if d.depth > MaxDepth {
		return d.errorf("nesting exceeds maximum depth %d", MaxDepth)
	}
	return nil
}

// object parses an object at d.pos (which holds '{'). Its loop keeps the
// position in a local and takes compact JSON's common case inline: a
// member name without escapes, then ':' and a string value with none, or
// a ',' or '}' right after a value. Anything else (white space, escapes,
// other values, errors) goes through the general path, which gives the
// same tokens and the same errors at the same offsets.
func (d *Doc) object() error {
	if err := d.enter(); err != nil {
		return err
	}
	obj := d.push(Object, d.pos)
	d.pos++ // '{'
	d.skipSpace()
	src, p := d.src, d.pos
	if p < len(src) && src[p] == '}' {
		d.pos = p + 1
		d.depth--
		d.done(obj)
		return nil
	}
	var (
		members uint32
		// seen has the nameBit of every name so far; again is set when a
		// name's bit was seen before or a name was not taken inline
		// (escapes, non-ASCII), and only then, with two members or more,
		// are the names compared (noteDuplicate).
		seen  uint64
		again bool
	)
	for {
		if p >= len(src) || src[p] != '"' {
			d.pos = p
			d.skipSpace()
			if p = d.pos; p >= len(src) || src[p] != '"' {
				return d.errorf("expected string for object key")
			}
		}
		if e := plainEnd(src, p+1); e < len(src) && src[e] == '"' {
			d.nodes = append(d.nodes, node{start: uint32(p + 1), end: uint32(e), next: uint32(len(d.nodes)) + 1, kind: String})
			bit := nameBit(src[p+1 : e])
			again = again || seen&bit != 0
			seen |= bit
			p = e + 1
		} else {
			d.pos = p
			if err := d.str(); err != nil {
				return err
			}
			again, p = true, d.pos
		}
		if p < len(src) && src[p] == ':' {
			p++
		} else {
			d.pos = p
			d.skipSpace()
			if p = d.pos; p >= len(src) || src[p] != ':' {
				return d.errorf("expected ':' after object key")
			}
			p++
		}
		if p < len(src) && src[p] == '"' {
			if e := plainEnd(src, p+1); e < len(src) && src[e] == '"' {
				d.nodes = append(d.nodes, node{start: uint32(p + 1), end: uint32(e), next: uint32(len(d.nodes)) + 1, kind: String})
				p = e + 1
				goto next
			}
		}
		d.pos = p
		d.skipSpace()
		if err := d.value(); err != nil {
			return err
		}
		p = d.pos
	next:
		members++
		if p < len(src) && src[p] == ',' {
			p++
			continue
		}
		if p < len(src) && src[p] == '}' {
			p++
			break
		}
		d.pos = p
		d.skipSpace()
		if p = d.pos; p >= len(src) {
			return d.errorf("unexpected end of input in object")
		}
		switch src[p] {
		case ',':
			p++
			continue
		case '}':
			p++
		default:
			return d.errorf("expected ',' or '}' in object")
		}
		break
	}
	d.pos = p
	d.depth--
	d.nodes[obj].n = members
	d.done(obj)
	if again && members > 1 {
		d.noteDuplicate(obj)
	}
	return nil
}

// noteDuplicate records the first member of object obj whose name an
// earlier member of the same object has, when it comes before every
// duplicate recorded so far: the document's earliest repeat.
func (d *Doc) noteDuplicate(obj uint32) {
	keys := d.keys[:0]
	for k, i := obj+1, uint32(0); i < d.nodes[obj].n; i++ {
		keys = append(keys, k)
		k = d.nodes[k+1].next // past the member's value
	}
	d.keys = keys
	at := func(j int) {
		k := d.nodes[keys[j]]
		if off := int(k.start) - 1; d.dup == nil || off < d.dup.Offset {
			d.dup = &DuplicateKeyError{Offset: off, Key: string(Value{d, keys[j]}.Bytes())}
		}
	}
	escaped := false
	for _, k := range keys {
		escaped = escaped || d.nodes[k].n != 0
	}
	if len(keys) <= 16 && !escaped {
		// seen has the bit (nameBit) of each name so far: a name whose bit
		// is not set is new, and only the others are compared with the
		// names before them.
		var seen uint64
		for j, k := range keys {
			kj := &d.nodes[k]
			name := d.src[kj.start:kj.end]
			bit := nameBit(name)
			if seen&bit != 0 {
				for _, i := range keys[:j] {
					if ki := &d.nodes[i]; string(d.src[ki.start:ki.end]) == string(name) {
						at(j)
						return
					}
				}
			}
			seen |= bit
		}
		return
	}
	seen := make(map[string]bool, len(keys))
	for j, k := range keys {
		name := string(Value{d, k}.Bytes())
		if seen[name] {
			at(j)
			return
		}
		seen[name] = true
	}
}

// nameBit is one of 64 bits, chosen by a name's length and its first and
// last bytes: equal names have the same bit.
func nameBit(name []byte) uint64 {
	h := uint(len(name))
	if len(name) > 0 {
		h = h*31 + uint(name[0])*7 + uint(name[len(name)-1])
	}
	return 1 << (h & 63)
}

// array parses an array at d.pos (which holds '['), with the position in
// a local and compact JSON's ',' and ']' taken inline, as object does.
func (d *Doc) array() error {
	if err := d.enter(); err != nil {
		return err
	}
	arr := d.push(Array, d.pos)
	d.pos++ // '['
	d.skipSpace()
	src, p := d.src, d.pos
	if p < len(src) && src[p] == ']' {
		d.pos = p + 1
		d.depth--
		d.done(arr)
		return nil
	}
	var elems uint32
	for {
		d.pos = p
		d.skipSpace()
		if err := d.value(); err != nil {
			return err
		}
		p = d.pos
		elems++
		if p < len(src) && src[p] == ',' {
			p++
			continue
		}
		if p < len(src) && src[p] == ']' {
			p++
			break
		}
		d.skipSpace()
		if p = d.pos; p >= len(src) {
			return d.errorf("unexpected end of input in array")
		}
		switch src[p] {
		case ',':
			p++
			continue
		case ']':
			p++
		default:
			return d.errorf("expected ',' or ']' in array")
		}
		break
	}
	d.pos = p
	d.depth--
	d.nodes[arr].n = elems
	d.done(arr)
	return nil
}

// str checks a string at d.pos (which holds '"') and lays out its node:
// its content between the quotes, marked when it has escapes.
func (d *Doc) str() error {
	d.pos++ // opening quote
	start, escaped := uint32(d.pos), uint32(0)
	for d.pos < len(d.src) {
		src := d.src
		p := plainEnd(src, d.pos)
		if d.pos = p; p == len(src) {
			break
		}
		switch c := src[p]; {
		case c == '"':
			// The node is written whole, once, at the end.
			i := uint32(len(d.nodes))
			d.nodes = append(d.nodes, node{start: start, end: uint32(d.pos), next: i + 1, n: escaped, kind: String})
			d.pos++
			return nil
		case c == '\\':
			escaped = 1
			if err := d.escape(); err != nil {
				return err
			}
		case c < 0x20:
			return d.errorf("invalid control character %s in string", quoteByte(c))
		default:
			r, size := utf8.DecodeRune(d.src[d.pos:])
			if r == utf8.RuneError && size <= 1 {
				return d.errorf("invalid UTF-8 in string")
			}
			d.pos += size
		}
	}
	return d.errorf("unexpected end of input in string")
}

// strSpecial marks the bytes that end a string's fast path: the closing
// quote, an escape, a control character, or the start of a multi-byte rune.
var strSpecial = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	return t
}()

// plainEnd is the index of the first byte at or after p that ends a
// string's fast path (strSpecial), or len(src). The bytes are taken four at
// a time while four remain, on a slice whose length the compiler knows, so
// that no byte is bounds-checked.
func plainEnd(src []byte, p int) int {
	rest := src[p:]
	for len(rest) >= 4 {
		if strSpecial[rest[0]] {
			break
		}
		if strSpecial[rest[1]] {
			rest = rest[1:]
			break
		}
		if strSpecial[rest[2]] {
			rest = rest[2:]
			break
		}
		if strSpecial[rest[3]] {
			rest = rest[3:]
			break
		}
		rest = rest[4:]
	}
	for len(rest) > 0 && !strSpecial[rest[0]] {
		rest = rest[1:]
	}
	return len(src) - len(rest)
}

// escape checks the escape at d.pos (which holds '\\').
func (d *Doc) escape() error {
	if d.pos+1 >= len(d.src) {
		return d.errorf("unexpected end of input in string escape")
	}
	c := d.src[d.pos+1]
	d.pos += 2
	switch c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return nil
	case 'u':
		if len(d.src)-d.pos < 4 {
			return d.errorf("unexpected end of input in \\u escape")
		}
		if _, ok := hex4(d.src[d.pos:]); !ok {
			return d.errorf("invalid \\u escape")
		}
		d.pos += 4
		return nil
	}
	d.pos--
	return d.errorf("invalid escape %s in string", quoteByte(c))
}

// hex4 reads the four hex digits b starts with.
func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// number checks the RFC 8259 number grammar; the text is kept as written,
// so later comparisons can be exact. The position is kept in a local, and
// set in d.pos before any error.
func (d *Doc) number() error {
	src, start := d.src, d.pos
	p := start
	if src[p] == '-' {
		p++
	}
	switch {
	case p < len(src) && src[p] == '0':
		p++
	case p < len(src) && src[p] >= '1' && src[p] <= '9':
		p = digits(src, p)
	default:
		d.pos = p
		if p < len(src) && src[p] == 'I' {
			if err := d.nonFinite(); err != nil {
				return err
			}
		}
		return d.errorf("invalid number")
	}
	if p < len(src) && src[p] == '.' {
		q := digits(src, p+1)
		if d.pos = q; q == p+1 {
			return d.errorf("invalid number: no digits after decimal point")
		}
		p = q
	}
	if p < len(src) && (src[p] == 'e' || src[p] == 'E') {
		p++
		if p < len(src) && (src[p] == '+' || src[p] == '-') {
			p++
		}
		q := digits(src, p)
		if d.pos = q; q == p {
			return d.errorf("invalid number: no digits in exponent")
		}
		p = q
	}
	d.nodes = append(d.nodes, node{start: uint32(start), end: uint32(p), next: uint32(len(d.nodes)) + 1, kind: Number})
	d.pos = p
	return nil
}

// digits is the index past the decimal digits src has from p on.
func digits(src []byte, p int) int {
	for p < len(src) && src[p] >= '0' && src[p] <= '9' {
		p++
	}
	return p
}
