// protolazy.go: a protobuf span's attributes kept as sent until its trace is mapped: compact, and nothing in them for the collector to scan.

package ingest

import (
	"encoding/base64"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// A span decoded from a binary protobuf request keeps its attributes as
// their KeyValue fields, copied out of the body (Span.AttrsProto), until
// its trace is mapped: a request's spans wait in the listener's queue,
// the assembler and the kept cache for seconds, and as maps of boxed
// values they were most of the heap the collector scanned, about three
// times the bytes they were sent in. They are checked in full when the
// request is (a request with an attribute the decoder refuses is refused
// whole, as before), and Span.Size counts them as the map they become,
// so that every bound on held spans counts what they will hold.

// lazyAttrs checks the attributes (field 9) of span b, of which there are
// n, and returns them as sent, the first maxProtoAttrs of them, with what
// they hold once decoded (attrsHeld).
func lazyAttrs(b []byte, n int) (raw []byte, held int, err error) {
	span := msg{cur: fields{b: b}}
	if _, err := attrMapProto(span, 9, spanSchema, n, 0, false); err != nil {
		return nil, 0, err
	}
	size, read := 0, 0
	for r := (fields{b: b}); r.more() && read < maxProtoAttrs; {
		f, _ := r.nextIn(spanSchema) // checked above
		if f.num == 9 {
			size += 1 + uvarintLen(uint64(len(f.b))) + len(f.b)
			read++
		}
	}
	raw = make([]byte, 0, size)
	read = 0
	for r := (fields{b: b}); r.more() && read < maxProtoAttrs; {
		f, _ := r.nextIn(spanSchema)
		if f.num == 9 {
			raw = append(appendUvarint(append(raw, 9<<3|byte(wireBytes)), uint64(len(f.b))), f.b...)
			read++
		}
	}
	return raw, attrsHeld(msg{cur: fields{b: raw}}, 9, spanSchema, 0), nil
}

// DecodeAttrs decodes the attributes a span from binary protobuf carries
// as sent (AttrsProto) into Attrs, as ParseOTLPProto gives them.
func (sp *Span) DecodeAttrs() {
	if sp.AttrsProto == nil {
		return
	}
	r := msg{cur: fields{b: sp.AttrsProto}}
	n, _ := count(r, spanSchema, 9)
	sp.Attrs, _ = attrMapProto(r, 9, spanSchema, n, 0, true) // checked when decoded
	sp.AttrsProto = nil
}

// attrsHeld is mapHeld of the map attrMapProto builds from the same
// KeyValues (a repeated key counted each time), without building it.
func attrsHeld(r msg, num uint32, s schema, depth int) int {
	n, sum := 0, 0
	for r.more() && n < maxProtoAttrs {
		f, err := r.nextIn(s)
		if err != nil {
			break
		}
		if f.num != num {
			continue
		}
		n++
		key, val, _ := readKeyValue(f.b)
		sum += words8(pbLen(key)) + valueHeldProto(val, depth+1)
	}
	slots := heldMinMap
	if n > 7 {
		slots = 1 << bits.Len(uint(n*8/7))
	}
	return heldMap + slots*heldSlot + sum
}

// valueHeldProto is valueHeld of what value builds from v.
func valueHeldProto(v parts, depth int) int {
	if depth > maxValueDepth {
		return 0
	}
	last, from, err := member(v)
	if err != nil {
		return 0
	}
	var buf [32]byte
	switch last.num {
	case 1:
		return heldIface + words8(pbLen(last.b))
	case 3:
		return heldIface + words8(len(strconv.AppendInt(buf[:0], int64(last.u), 10)))
	case 4:
		f := math.Float64frombits(last.u)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0
		}
		return heldIface + words8(len(strconv.AppendFloat(buf[:0], f, 'g', -1, 64)))
	case 5:
		list := msg{val: from, num: 5}
		n := 0
		sum := 0
		for list.more() {
			f, err := list.nextIn(listSchema)
			if err != nil {
				break
			}
			if f.num == 1 {
				n++
				sum += valueHeldProto(parts{cur: fields{b: f.b}}, depth+1)
			}
		}
		return heldSlice + 16*n + sum
	case 6:
		return attrsHeld(msg{val: from, num: 6}, 1, listSchema, depth)
	case 7:
		return heldIface + words8(base64.StdEncoding.EncodedLen(len(last.b)))
	}
	return 0 // bool and nothing set: no allocation
}

// pbLen is len(pbString(b)).
func pbLen(b []byte) int {
	if utf8.Valid(b) {
		return len(b)
	}
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			n += len("\uFFFD")
		} else {
			n += size
		}
		b = b[size:]
	}
	return n
}

// words8 is words for a length.
func words8(n int) int { return (n + 7) &^ 7 }

func uvarintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}
