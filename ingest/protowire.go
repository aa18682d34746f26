// protowire.go: a protobuf wire-format reader: tags, varints, fixed32/64, length-delimited fields; unknown fields skipped.

package ingest

import (
	"errors"
	"fmt"
)

// Wire types of the protobuf encoding (protobuf.dev, "Encoding": the tag is
// field_number << 3 | wire_type). Explicit numbers: they are the format.
type wireType uint8

const (
	wireVarint  wireType = 0
	wireFixed64 wireType = 1
	wireBytes   wireType = 2 // length-delimited: strings, bytes, messages, packed repeated
	wireGroupSt wireType = 3 // deprecated groups: proto3 never emits them
	wireGroupEn wireType = 4
	wireFixed32 wireType = 5
)

func (t wireType) String() string {
	switch t {
	case wireVarint:
		return "varint"
	case wireFixed64:
		return "fixed64"
	case wireBytes:
		return "length-delimited"
	case wireFixed32:
		return "fixed32"
	}
	return fmt.Sprintf("wire type %d", uint8(t))
}

// maxFieldNumber is protobuf's largest field number, 2^29-1.
const maxFieldNumber = 1<<29 - 1

var (
	errTruncated = errors.New("truncated varint")
	errOverflow  = errors.New("varint longer than 64 bits")
)

// field is one field read from a message: its number, its wire type and
// its value (u for varint and fixed types, b for length-delimited; b is a
// subslice of the input, never a copy).
type field struct {
	num uint32
	typ wireType
	u   uint64
	b   []byte
}

// fields reads a message's fields in order. Every length is checked
// against the bytes left before slicing, so no input makes it read out of
// bounds; groups are refused (proto3 has none, and skipping one means
// matching nested start and end tags). The position is an offset, not a
// shrinking slice: moving it writes no pointer, so the loop that reads
// every field pays no write barrier while the collector runs.
type fields struct {
	b []byte
	i int // b[i:] is not read yet
}

func (r *fields) more() bool { return r.i < len(r.b) }

func (r *fields) varint() (uint64, error) {
	var v uint64
	b := r.b[r.i:]
	for i := 0; i < 10; i++ {
		if i >= len(b) {
			return 0, errTruncated
		}
		c := b[i]
		if i == 9 && c > 1 { // the tenth byte holds the 64th bit only
			return 0, errOverflow
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			r.i += i + 1
			return v, nil
		}
	}
	return 0, errOverflow
}

// next reads the next field; call it only while more().
func (r *fields) next() (field, error) {
	var tag uint64
	var err error
	if r.i < len(r.b) && r.b[r.i] < 0x80 { // one byte, as every tag of the schemas read here
		tag = uint64(r.b[r.i])
		r.i++
	} else if tag, err = r.varint(); err != nil {
		return field{}, fmt.Errorf("field tag: %v", err)
	}
	n := tag >> 3
	if n == 0 || n > maxFieldNumber {
		return field{}, fmt.Errorf("field number %d out of range", n)
	}
	f := field{num: uint32(n), typ: wireType(tag & 7)}
	left := len(r.b) - r.i
	switch f.typ {
	case wireVarint:
		if f.u, err = r.varint(); err != nil {
			return field{}, fmt.Errorf("field %d: %v", f.num, err)
		}
	case wireFixed64:
		if left < 8 {
			return field{}, fmt.Errorf("field %d: fixed64 needs 8 bytes, %d left", f.num, left)
		}
		b := r.b[r.i : r.i+8]
		f.u = uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		r.i += 8
	case wireFixed32:
		if left < 4 {
			return field{}, fmt.Errorf("field %d: fixed32 needs 4 bytes, %d left", f.num, left)
		}
		b := r.b[r.i : r.i+4]
		f.u = uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24
		r.i += 4
	case wireBytes:
		var n uint64
		if left > 0 && r.b[r.i] < 0x80 { // a length under 128
			n = uint64(r.b[r.i])
			r.i++
		} else if n, err = r.varint(); err != nil {
			return field{}, fmt.Errorf("field %d length: %v", f.num, err)
		}
		if left = len(r.b) - r.i; n > uint64(left) {
			return field{}, fmt.Errorf("field %d: length %d past the end (%d bytes left)", f.num, n, left)
		}
		end := r.i + int(n)
		f.b = r.b[r.i:end:end]
		r.i = end
	case wireGroupSt, wireGroupEn:
		return field{}, fmt.Errorf("field %d: groups (wire types 3 and 4) are not supported", f.num)
	default:
		return field{}, fmt.Errorf("field %d: invalid wire type %d", f.num, f.typ)
	}
	return f, nil
}

// want checks a known field's wire type: a sender that encodes a known
// field with another type does not speak this schema, and guessing would
// read garbage.
func (f field) want(t wireType, name string) error {
	if f.typ != t {
		return fmt.Errorf("field %d (%s) is %v, want %v", f.num, name, f.typ, t)
	}
	return nil
}
