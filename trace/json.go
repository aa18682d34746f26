// json.go: the engine's JSON decoder: one pass, exact keys, bounded depth, exact numbers.

package trace

import (
	"fmt"

	"attest-engine/tape"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth bounds the nesting of arrays and objects in any decoded document
// (tape.MaxDepth).
const MaxDepth = tape.MaxDepth

// SyntaxError reports input that is not one well-formed JSON value.
type SyntaxError = tape.SyntaxError

// DuplicateKeyError reports an object that names the same member twice.
type DuplicateKeyError = tape.DuplicateKeyError

// Decode parses data, which must hold exactly one JSON value with optional
// surrounding white space, into the engine's value model: nil, bool, string,
// json.Number, []any and map[string]any (tape.Parse, then Value.Any).
//
// On a duplicate member name Decode returns the value together with a
// *DuplicateKeyError (the later member wins, as in encoding/json); on any
// other problem it returns nil and a *SyntaxError.
func Decode(data []byte) (any, error) {
	doc, err := tape.Parse(data)
	if doc == nil {
		return nil, err
	}
	v := doc.Root().Any()
	doc.Release()
	return v, err
}

// Reuse lets a decode report where members are and take values decoded
// before instead of decoding the same text again: SDKs send the same
// assertion specs with every trace of a suite. It watches the members named
// by its Watch entries, each in the objects at its depth (the top-level
// object is depth 1).
type Reuse struct {
	Depth   int // the depth of a Watch whose own Depth is 0
	Members []Watch
}

// Watch is one member name a Reuse watches. At each such member, Lookup (if
// not nil) is offered the rest of the input. It returns the length n of a
// JSON object or array text, decoded before (whole, with no duplicate keys)
// to v, that the rest starts with. Such a text ends at its closing bracket,
// so it is that member's whole value, and v is what decoding it again would
// give. v must come from a decode at the same depth (its nesting is not
// checked against MaxDepth again). Values handed out this way are shared: no
// one may modify them. A Watch with an empty Key watches nothing.
type Watch struct {
	Key    string
	Depth  int // 0: Reuse.Depth
	Lookup func(rest []byte) (n int, v any, ok bool)
	// Decoded, if not nil, is called with the text (a slice of the input)
	// and value of each such member that Lookup did not supply.
	Decoded func(text []byte, v any)

	// Set by DecodeReusing: the text (a slice of the input) and value of the
	// last such member, and whether Lookup supplied it.
	Text   []byte
	Value  any
	Reused bool
}

// DecodeReusing is Decode with r (which may be nil) consulted on the way.
func DecodeReusing(data []byte, r *Reuse) (any, error) {
	d := getDecoder(data)
	defer putDecoder(d)
	d.reuse = r
	d.skipSpace()
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos != len(d.data) {
		return nil, d.errorf("unexpected data after top-level value")
	}
	if d.dup != nil {
		return v, d.dup
	}
	return v, nil
}

type decoder struct {
	data   []byte
	pos    int
	depth  int
	dup    *DuplicateKeyError
	intern interner
	buf    []byte // scratch for strings with escapes

	members []member // members of the objects being decoded, innermost last
	elems   []any    // elements of the arrays being decoded, innermost last
	reuse   *Reuse
}

func (d *decoder) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: d.pos, Msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value() (any, error) {
	if d.pos >= len(d.data) {
		return nil, d.errorf("unexpected end of input")
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		b, err := d.str()
		if err != nil {
			return nil, err
		}
		return d.intern.value(b, false), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == 'N' || c == 'I':
		if err := d.nonFinite(); err != nil {
			return nil, err
		}
		fallthrough
	default:
		return nil, d.errorf("invalid character %s looking for beginning of value", quoteByte(c))
	}
}

// nonFinite returns the error for a NaN or Infinity token at d.pos, or nil
// when none is there.
func (d *decoder) nonFinite() error {
	for _, word := range [...]string{"NaN", "Infinity"} {
		if len(d.data)-d.pos >= len(word) && string(d.data[d.pos:d.pos+len(word)]) == word {
			tok := word
			if d.pos > 0 && d.data[d.pos-1] == '-' && word == "Infinity" {
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

func (d *decoder) literal(word string) error {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return d.errorf("invalid literal, expected %s", word)
	}
	d.pos += len(word)
	return nil
}

func (d *decoder) enter() error {
	d.depth++
	if d.depth > MaxDepth {
		return d.errorf("nesting exceeds maximum depth %d", MaxDepth)
	}
	return nil
}

func (d *decoder) object() (any, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	d.pos++ // '{'
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		d.depth--
		return make(map[string]any), nil
	}
	// Members are gathered on a stack shared by all objects being decoded,
	// then put into a map made at its final size: no map ever grows.
	base := len(d.members)
	for {
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.errorf("expected string for object key")
		}
		keyAt := d.pos
		b, err := d.str()
		if err != nil {
			return nil, err
		}
		k := d.intern.key(b) // a string, never boxed: keys cost no allocation once interned
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.errorf("expected ':' after object key")
		}
		d.pos++
		d.skipSpace()
		var v any
		if w := d.watching(k); w != nil {
			v, err = d.watched(w)
		} else {
			v, err = d.value()
		}
		if err != nil {
			return nil, err
		}
		d.members = append(d.members, member{key: k, val: v, at: keyAt})
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.errorf("unexpected end of input in object")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.skipSpace()
			continue
		case '}':
			d.pos++
			d.depth--
		default:
			return nil, d.errorf("expected ',' or '}' in object")
		}
		break
	}
	ms := d.members[base:]
	m := make(map[string]any, len(ms))
	for _, e := range ms {
		m[e.key] = e.val // a later duplicate wins, as in encoding/json
	}
	if len(m) != len(ms) {
		d.noteDuplicate(ms)
	}
	clear(ms) // the stack is reused: drop its references
	d.members = d.members[:base]
	return m, nil
}

// watching returns the Watch for a member named k of the object being
// decoded, or nil.
func (d *decoder) watching(k string) *Watch {
	if d.reuse == nil || k == "" {
		return nil
	}
	for i := range d.reuse.Members {
		w := &d.reuse.Members[i]
		depth := w.Depth
		if depth == 0 {
			depth = d.reuse.Depth
		}
		if depth == d.depth && w.Key == k {
			return w
		}
	}
	return nil
}

// watched is value for a member that w watches: an earlier value when
// w.Lookup knows the text, else a fresh decode. Lookup's answer is checked
// as far as it can be without decoding: an object or array text within the
// input.
func (d *decoder) watched(w *Watch) (any, error) {
	start := d.pos
	rest := d.data[start:]
	if w.Lookup != nil {
		if n, v, ok := w.Lookup(rest); ok && n >= 2 && n <= len(rest) &&
			(rest[0] == '{' && rest[n-1] == '}' || rest[0] == '[' && rest[n-1] == ']') {
			d.pos += n
			w.Text, w.Value, w.Reused = rest[:n], v, true
			return v, nil
		}
	}
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	w.Text, w.Value, w.Reused = d.data[start:d.pos], v, false
	if w.Decoded != nil {
		w.Decoded(w.Text, v)
	}
	return v, nil
}

// member is an object member waiting for its map.
type member struct {
	key string
	val any
	at  int // offset of the key
}

// noteDuplicate records the earliest repeated member name of the document.
func (d *decoder) noteDuplicate(ms []member) {
	seen := make(map[string]bool, len(ms))
	for _, e := range ms {
		if seen[e.key] {
			if d.dup == nil || e.at < d.dup.Offset {
				d.dup = &DuplicateKeyError{Offset: e.at, Key: e.key}
			}
			return
		}
		seen[e.key] = true
	}
}

func (d *decoder) array() (any, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	d.pos++ // '['
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		d.depth--
		return []any{}, nil
	}
	// Elements are gathered on a stack shared by all arrays being decoded,
	// like the members of objects, then copied to a slice of the final size.
	base := len(d.elems)
	for {
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		d.elems = append(d.elems, v)
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.errorf("unexpected end of input in array")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.skipSpace()
			continue
		case ']':
			d.pos++
			d.depth--
		default:
			return nil, d.errorf("expected ',' or ']' in array")
		}
		break
	}
	es := d.elems[base:]
	a := make([]any, len(es))
	copy(a, es)
	clear(es) // the stack is reused: drop its references
	d.elems = d.elems[:base]
	return a, nil
}

// str scans a string at d.pos (which holds '"') and returns its decoded
// bytes: a slice of the input when it has no escapes, else of d.buf. They
// are valid until the next call; the caller makes the string (interned).
func (d *decoder) str() ([]byte, error) {
	d.pos++ // opening quote
	start := d.pos
	// Fast path: no escapes, so the string is a slice of the input; runes
	// of more than one byte are checked where they are.
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		if !strSpecial[c] {
			d.pos++
			continue
		}
		if c < utf8.RuneSelf {
			break // the closing quote, an escape or a control character
		}
		r, size := utf8.DecodeRune(d.data[d.pos:])
		if r == utf8.RuneError && size <= 1 {
			return nil, d.errorf("invalid UTF-8 in string")
		}
		d.pos += size
	}
	if d.pos < len(d.data) && d.data[d.pos] == '"' {
		d.pos++
		return d.data[start : d.pos-1], nil
	}
	d.buf = append(d.buf[:0], d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return d.buf, nil
		case c < 0x20:
			return nil, d.errorf("invalid control character %s in string", quoteByte(c))
		case c == '\\':
			if err := d.escape(); err != nil {
				return nil, err
			}
		case c < 0x80:
			d.buf = append(d.buf, c)
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size <= 1 {
				return nil, d.errorf("invalid UTF-8 in string")
			}
			d.buf = append(d.buf, d.data[d.pos:d.pos+size]...)
			d.pos += size
		}
	}
	return nil, d.errorf("unexpected end of input in string")
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

func (d *decoder) escape() error {
	if d.pos+1 >= len(d.data) {
		return d.errorf("unexpected end of input in string escape")
	}
	c := d.data[d.pos+1]
	d.pos += 2
	switch c {
	case '"', '\\', '/':
		d.buf = append(d.buf, c)
	case 'b':
		d.buf = append(d.buf, '\b')
	case 'f':
		d.buf = append(d.buf, '\f')
	case 'n':
		d.buf = append(d.buf, '\n')
	case 'r':
		d.buf = append(d.buf, '\r')
	case 't':
		d.buf = append(d.buf, '\t')
	case 'u':
		r, err := d.hex4()
		if err != nil {
			return err
		}
		if utf16.IsSurrogate(r) {
			r2 := rune(-1)
			if d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
				save := d.pos
				d.pos += 2
				if r2, err = d.hex4(); err != nil {
					return err
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					r = dec
				} else {
					d.pos = save // not a pair: decode the second escape on its own
					r = utf8.RuneError
				}
			} else {
				r = utf8.RuneError // lone surrogate, as encoding/json does
			}
		}
		d.buf = utf8.AppendRune(d.buf, r)
	default:
		d.pos--
		return d.errorf("invalid escape %s in string", quoteByte(c))
	}
	return nil
}

func (d *decoder) hex4() (rune, error) {
	if len(d.data)-d.pos < 4 {
		return 0, d.errorf("unexpected end of input in \\u escape")
	}
	var r rune
	for _, c := range d.data[d.pos : d.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, d.errorf("invalid \\u escape")
		}
	}
	d.pos += 4
	return r, nil
}

// number checks the RFC 8259 number grammar and keeps the text as json.Number,
// so later comparisons can be exact.
func (d *decoder) number() (any, error) {
	start := d.pos
	if d.data[d.pos] == '-' {
		d.pos++
	}
	switch {
	case d.pos < len(d.data) && d.data[d.pos] == '0':
		d.pos++
	case d.pos < len(d.data) && d.data[d.pos] >= '1' && d.data[d.pos] <= '9':
		d.digits()
	default:
		if d.pos < len(d.data) && d.data[d.pos] == 'I' {
			if err := d.nonFinite(); err != nil {
				return nil, err
			}
		}
		return nil, d.errorf("invalid number")
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if d.digits() == 0 {
			return nil, d.errorf("invalid number: no digits after decimal point")
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if d.digits() == 0 {
			return nil, d.errorf("invalid number: no digits in exponent")
		}
	}
	return d.intern.value(d.data[start:d.pos], true), nil
}

func (d *decoder) digits() int {
	n := 0
	for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
		d.pos++
		n++
	}
	return n
}
