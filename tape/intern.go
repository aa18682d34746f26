// intern.go: reusing the text and box of short strings and numbers that repeat, within and across documents.

package tape

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
)

// Short values repeat in traces (member names, step types, statuses, model
// names, small numbers), and each one decoded costs an allocation for its
// text and one for its interface box. The interner keeps the last two values
// seen in each pair of slots of small tables: a hit costs a comparison or
// two, a miss moves the pair's newer value to its second slot and takes the
// first, so two frequent names that hash alike ("user_message" and
// "total_tokens") both stay. The tables never grow, and they live in decoders
// that a sync.Pool hands from one Decode call to the next, so names such as
// "type" and "tool_call" are allocated once, not once per request.
const (
	maxInternLen = 32
	internSlots  = 512 // a power of two
)

type interner struct {
	keys [internSlots]string
	strs [internSlots]any // each a string
	nums [internSlots]any // each a json.Number
}

// internSlot returns the first slot of b's pair (even); the other is slot+1.
// It reads at most 16 bytes of b (its first and last 8, which overlap in a
// shorter b), in two loads when b has 8 or more: a slot is a guess, and a
// wrong one costs a comparison and a miss, never a wrong value.
func internSlot(b []byte) int {
	var h uint64
	if n := len(b); n >= 8 {
		h = binary.LittleEndian.Uint64(b) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(b[n-8:]), 29)
	} else {
		for _, c := range b {
			h = h<<8 | uint64(c)
		}
	}
	h = (h ^ uint64(len(b))) * 0x9e3779b97f4a7c15
	return int(h>>40) & (internSlots - 2)
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
	if s := in.keys[i+1]; s == string(b) {
		return s
	}
	s := string(b)
	in.keys[i+1], in.keys[i] = in.keys[i], s
	return s
}

// value returns b as a boxed string or json.Number, shared with earlier equal
// ones. A slot's box is its own record of the text it holds.
func (in *interner) value(b []byte, number bool) any {
	if number {
		if len(b) > maxInternLen {
			return json.Number(b)
		}
		i := internSlot(b)
		for _, e := range [2]any{in.nums[i], in.nums[i+1]} {
			if n, ok := e.(json.Number); ok && string(n) == string(b) {
				return e
			}
		}
		in.nums[i+1], in.nums[i] = in.nums[i], json.Number(b)
		return in.nums[i]
	}
	if len(b) > maxInternLen {
		return string(b)
	}
	i := internSlot(b)
	for _, e := range [2]any{in.strs[i], in.strs[i+1]} {
		if s, ok := e.(string); ok && s == string(b) {
			return e
		}
	}
	in.strs[i+1], in.strs[i] = in.strs[i], string(b)
	return in.strs[i]
}
