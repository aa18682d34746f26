// equal.go holds JSON value kinds, exact deep equality and hashing (for enum, const and uniqueItems).

package jsonschema

import (
	"encoding/json"
	"hash/maphash"
	"math"
)

// kind is the JSON type of a value (§6.1.1 of the validation spec lists the seven primitive types;
// "integer" is a number with a zero fractional part and is checked separately).
type kind uint8

const (
	kindInvalid kind = iota
	kindNull
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

var kindNames = [...]string{"invalid value", "null", "boolean", "number", "string", "array", "object"}

func (k kind) String() string { return kindNames[k] }

// TypeName names the JSON type of v for messages: null, boolean, number, string, array or object, and
// "invalid value" for anything outside the value model (NaN and the infinities included).
func TypeName(v any) string { return kindOf(v).String() }

// kindOf classifies a Go value in the engine's value model; anything else (including NaN) is invalid.
func kindOf(v any) kind {
	switch x := v.(type) {
	case nil:
		return kindNull
	case bool:
		return kindBool
	case string:
		return kindString
	case json.Number, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return kindNumber
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return kindInvalid
		}
		return kindNumber
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return kindInvalid
		}
		return kindNumber
	case []any:
		return kindArray
	case map[string]any:
		return kindObject
	}
	return kindInvalid
}

// maxValueDepth bounds recursion over values; encoding/json already stops at 10000 levels, this also
// covers values built in Go (which could even be cyclic).
const maxValueDepth = 10000

// Equal reports whether a and b are the same JSON value, as const, enum and uniqueItems compare them (§4.2.2
// of the core spec: "Two JSON instances are said to be equal if and only if they are of the same type and
// have the same value according to the data model"). Arrays compare element by element, objects member by
// member, and numbers by exact value, so 1 == 1.0 == 1e0 but 9007199254740993 != 9007199254740992. A value
// outside the value model, NaN, an infinity or a json.Number that is not RFC 8259 number text, equals
// nothing.
func Equal(a, b any) bool { return equalDepth(a, b, 0) }

func equalDepth(a, b any, depth int) bool {
	if depth > maxValueDepth {
		return false
	}
	ka, kb := kindOf(a), kindOf(b)
	if ka != kb {
		return false
	}
	switch ka {
	case kindNull:
		return true
	case kindBool:
		return a.(bool) == b.(bool)
	case kindString:
		return a.(string) == b.(string)
	case kindNumber:
		na, ok1 := numberOf(a)
		nb, ok2 := numberOf(b)
		return ok1 && ok2 && na.f == nb.f && cmpNumber(na, nb) == 0
	case kindArray:
		xa, xb := a.([]any), b.([]any)
		if len(xa) != len(xb) {
			return false
		}
		for i := range xa {
			if !equalDepth(xa[i], xb[i], depth+1) {
				return false
			}
		}
		return true
	case kindObject:
		ma, mb := a.(map[string]any), b.(map[string]any)
		if len(ma) != len(mb) {
			return false
		}
		for k, va := range ma {
			vb, ok := mb[k]
			if !ok || !equalDepth(va, vb, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// hashSeed is random per process so that nobody can precompute colliding instances.
var hashSeed = maphash.MakeSeed()

// hashJSON returns a hash consistent with Equal: equal values hash equally.
func hashJSON(v any) uint64 {
	var h maphash.Hash
	h.SetSeed(hashSeed)
	hashInto(&h, v, 0)
	return h.Sum64()
}

func hashInto(h *maphash.Hash, v any, depth int) {
	if depth > maxValueDepth {
		return
	}
	k := kindOf(v)
	h.WriteByte(byte(k))
	switch k {
	case kindBool:
		if v.(bool) {
			h.WriteByte(1)
		} else {
			h.WriteByte(0)
		}
	case kindString:
		h.WriteString(v.(string))
	case kindNumber:
		n, _ := numberOf(v)
		d := n.dec()
		if d.neg {
			h.WriteByte('-')
		}
		h.WriteString(d.hi)
		h.WriteString(d.lo)
		h.WriteByte('e')
		if d.eText != "" {
			h.WriteString(d.eText)
		} else {
			var b [8]byte
			for i := range b {
				b[i] = byte(d.exp >> (8 * i))
			}
			h.Write(b[:])
		}
	case kindArray:
		for _, e := range v.([]any) {
			hashInto(h, e, depth+1)
		}
		h.WriteByte(0xff)
	case kindObject:
		// Member order does not matter, so member hashes are combined with a commutative sum.
		var sum uint64
		for key, e := range v.(map[string]any) {
			var mh maphash.Hash
			mh.SetSeed(hashSeed)
			mh.WriteString(key)
			mh.WriteByte(0)
			hashInto(&mh, e, depth+1)
			sum += mh.Sum64()
		}
		var b [8]byte
		for i := range b {
			b[i] = byte(sum >> (8 * i))
		}
		h.Write(b[:])
	}
}

// valueSize is what reading v whole costs in work units (validate.go): one per
// value, plus the bytes of its strings, numbers and member names. It bounds
// what Equal and the uniqueItems hash read of v.
func valueSize(v any) int {
	switch x := v.(type) {
	case string:
		return 1 + len(x)
	case json.Number:
		return 1 + len(x)
	case []any:
		n := 1
		for _, e := range x {
			n += valueSize(e)
		}
		return n
	case map[string]any:
		n := 1
		for k, e := range x {
			n += len(k) + valueSize(e)
		}
		return n
	}
	return 1
}
