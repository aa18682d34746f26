// intern.go: reusing the text and box of short strings and numbers that repeat, within and across documents.

package trace

import (
	"encoding/json"
	"sync"
)

// Short values repeat in traces (member names, step types, statuses, model
// names, small numbers), and each one decoded costs an allocation for its
// text and one for its interface box. The interner keeps the last value seen
// in each slot of small direct-mapped tables: a hit costs a comparison, a
// miss replaces the slot. The tables never grow, and they live in decoders
// that a sync.Pool hands from one Decode call to the next, so names such as
// "type" and "tool_call" are allocated once, not once per request.
const (
	maxInternLen = 32
	internSlots  = 512 // a power of two
)

type interner struct {
	keys [internSlots]string
	strs [internSlots]boxed
	nums [internSlots]boxed
}

type boxed struct {
	text string
	val  any
}

func internSlot(b []byte) int {
	h := uint32(len(b))
	for _, c := range b {
		h = h*31 + uint32(c)
	}
	return int((h ^ h>>15) & (internSlots - 1))
}

// key returns b as a string, shared with earlier equal member names.
func (in *interner) key(b []byte) string {
	if len(b) > maxInternLen {
		return string(b)
	}
	i := internSlot(b)
	if s := in.keys[i]; s == string(b) {
		return s
	}
	s := string(b)
	in.keys[i] = s
	return s
}

// value returns b as a boxed string or json.Number, shared with earlier equal ones.
func (in *interner) value(b []byte, number bool) any {
	if len(b) > maxInternLen {
		if number {
			return json.Number(b)
		}
		return string(b)
	}
	table := &in.strs
	if number {
		table = &in.nums
	}
	e := &table[internSlot(b)]
	if e.val != nil && e.text == string(b) {
		return e.val
	}
	e.text = string(b)
	if number {
		e.val = json.Number(e.text)
	} else {
		e.val = e.text
	}
	return e.val
}

// decoders reuses decoders, and with them their interners and scratch space.
var decoders = sync.Pool{New: func() any { return new(decoder) }}

func getDecoder(data []byte) *decoder {
	d := decoders.Get().(*decoder)
	d.data, d.pos, d.depth, d.dup = data, 0, 0, nil
	return d
}

func putDecoder(d *decoder) {
	d.data, d.dup, d.reuse = nil, nil, nil
	if cap(d.buf) > 64<<10 {
		d.buf = nil // do not keep a large string's scratch alive
	}
	if cap(d.members) > 4096 {
		d.members = nil
	}
	decoders.Put(d)
}
