// prefix.go: decoding one value at the start of a text, for readers that walk a document's outer structure themselves.

package trace

import "bytes"

// DecodeValue decodes the one JSON value that data starts with (no white
// space before it), as Decode would decode it inside a document where it
// sits at nesting depth depth, and returns it with the length of its text.
// It is for readers that walk a document's outer structure themselves and
// give up on anything unusual: an error says only that the text is not a
// well-formed value there (a duplicate member name included), so that the
// caller can decode the document plainly for the exact error.
func DecodeValue(data []byte, depth int) (v any, n int, err error) {
	d := getDecoder(data)
	defer putDecoder(d)
	d.depth = depth
	if v, err = d.value(); err != nil {
		return nil, 0, err
	}
	if d.dup != nil {
		return nil, 0, d.dup
	}
	return v, d.pos, nil
}

// DecodeString decodes the JSON string that data starts with, and returns
// its bytes (a slice of data when it has no escapes, else new) with the
// length of its text; ok is false when data does not start with a
// well-formed string.
func DecodeString(data []byte) (s []byte, n int, ok bool) {
	if len(data) == 0 || data[0] != '"' {
		return nil, 0, false
	}
	// Printable ASCII without escapes (ids, type names, member names):
	// no decoder needed.
	for i := 1; i < len(data); i++ {
		c := data[i]
		if c == '"' {
			return data[1:i], i + 1, true
		}
		if strSpecial[c] {
			break
		}
	}
	d := getDecoder(data)
	defer putDecoder(d)
	b, err := d.str()
	if err != nil {
		return nil, 0, false
	}
	if len(b) != d.pos-2 {
		// Escapes, which always shorten the text: b is the decoder's
		// scratch, reused by the next decode.
		b = bytes.Clone(b)
	}
	return b, d.pos, true
}
