// parse.go: the one pass that checks a JSON text and lays out its tape: Parse, values, arrays and objects.

package tape

import "fmt"

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
			err = d.errorf(MsgTrailingData)
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

// MsgTrailingData is the Msg of the *SyntaxError of a text that holds more
// after one whole JSON value.
const MsgTrailingData = "unexpected data after top-level value"

// ParseUnique is Parse with a duplicate member name an error like any
// other: it returns a Doc only for a text without one. The request line
// (rpc) keeps Parse, to answer such a line with its id.
func ParseUnique(src []byte) (*Doc, error) {
	d, err := Parse(src)
	if err != nil {
		if d != nil {
			d.Release()
		}
		return nil, err
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
	obj, empty, err := d.open(Object, '}')
	if err != nil || empty {
		return err
	}
	src, p := d.src, d.pos
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
	d.finish(obj, p, members)
	if again && members > 1 {
		d.noteDuplicate(obj)
	}
	return nil
}

// array parses an array at d.pos (which holds '['), with the position in
// a local and compact JSON's ',' and ']' taken inline, as object does.
func (d *Doc) array() error {
	arr, empty, err := d.open(Array, ']')
	if err != nil || empty {
		return err
	}
	src, p := d.src, d.pos
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
	d.finish(arr, p, elems)
	return nil
}

// open starts the array or object of kind k at d.pos, one level deeper,
// and lays out its node i; empty reports one closed (by closing) at once,
// its node then done.
func (d *Doc) open(k Kind, closing byte) (i uint32, empty bool, err error) {
	if err := d.enter(); err != nil {
		return 0, false, err
	}
	i = d.push(k, d.pos)
	d.pos++ // its opening bracket
	d.skipSpace()
	if d.pos < len(d.src) && d.src[d.pos] == closing {
		d.pos++
		d.depth--
		d.done(i)
		return i, true, nil
	}
	return i, false, nil
}

// finish ends container i, of n elements or members, whose closing bracket
// ends just before p.
func (d *Doc) finish(i uint32, p int, n uint32) {
	d.pos = p
	d.depth--
	d.nodes[i].n = n
	d.done(i)
}
