// fingerprint.go: cheap structural hashing and equality of decoded JSON values, for cache keys.

package assert

import (
	"encoding/json"
	"hash/maphash"
	"math"
	"reflect"
)

// seed is per process, so no input can be crafted to collide in advance.
var seed = maphash.MakeSeed()

// Type tags keep values of different JSON types apart ("1" vs 1).
const (
	tagNull uint64 = iota + 0x51ed2701
	tagFalse
	tagTrue
	tagString
	tagNumber
	tagArray
	tagObject
	tagOther
	tagText // a trace keyed by its exact text (traceKey)
)

// mix is a 64-bit finalizer (splitmix64): it spreads every input bit over
// the output, so sums of mixed values stay well distributed.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// hashValue hashes a value of the engine's value model. Object members are
// combined by addition, so the result does not depend on map order; array
// elements are chained, so it does depend on element order. It walks the
// value once and allocates nothing.
func hashValue(v any) uint64 {
	switch x := v.(type) {
	case nil:
		return mix(tagNull)
	case bool:
		if x {
			return mix(tagTrue)
		}
		return mix(tagFalse)
	case string:
		return mix(maphash.String(seed, x) ^ tagString)
	case json.Number:
		return mix(maphash.String(seed, string(x)) ^ tagNumber)
	case []any:
		h := uint64(tagArray)
		for _, e := range x {
			h = mix(h ^ hashValue(e))
		}
		return mix(h + uint64(len(x)))
	case map[string]any:
		h := uint64(tagObject) + uint64(len(x))
		for k, e := range x {
			h += mix(maphash.String(seed, k) + 0x9e3779b97f4a7c15*hashValue(e))
		}
		return mix(h)
	case float64:
		return mix(math.Float64bits(x) ^ tagNumber)
	default:
		return mix(tagOther)
	}
}

// traceKey identifies a trace for the idempotency record: by its exact text.
func traceKey(text []byte) uint64 {
	return mix(maphash.Bytes(seed, text) ^ tagText)
}

// sameJSON reports whether a and b are the same document: same types, same
// member names, same string and number texts. Cache hits are confirmed with
// it, so a hash collision can cost a compile, never a wrong answer.
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		if len(x) > 0 && &x[0] == &y[0] {
			return true // the same array
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		if reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer() {
			return true // the same map, as above
		}
		for k, xe := range x {
			ye, ok := y[k]
			if !ok || !sameJSON(xe, ye) {
				return false
			}
		}
		return true
	default:
		return false
	}
}
