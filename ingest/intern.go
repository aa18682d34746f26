// intern.go: short strings decoded from protobuf shared, not allocated again: attribute keys, operation and model names repeat in every span.

package ingest

import (
	"encoding/json"
	"sync/atomic"
)

// internMax is the longest string interned; internSlots the size of each
// table. A table is fixed (internSlots × internMax bytes at most), and a
// slot holds the last string hashed to it, so a stream of distinct
// strings only costs the lookups.
const (
	internMax   = 48
	internSlots = 1024
)

// The tables hold each string boxed as the attribute value it is (a
// string, a json.Number), so that a value met again costs neither its
// text nor the interface's box, and a key is the string in the box. One
// table per type: a slot (atomic.Value) keeps one type. Zero until used:
// nothing is built at start.
var (
	internStrings [internSlots]atomic.Value // of string
	internNumbers [internSlots]atomic.Value // of json.Number
)

func internSlot(b []byte) uint32 {
	h := uint32(2166136261) // FNV-1a: a collision costs a cache miss, nothing else
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return h % internSlots
}

// intern is string(b) for valid UTF-8 b, the same string as an earlier
// call's when the table still holds it. Safe for concurrent use.
func intern(b []byte) string {
	if len(b) > internMax {
		return string(b)
	}
	return internValue(b).(string)
}

// internValue is intern(b) boxed as an attribute value (a string).
func internValue(b []byte) any {
	if len(b) > internMax {
		return string(b)
	}
	slot := &internStrings[internSlot(b)]
	v := slot.Load()
	if s, ok := v.(string); ok && s == string(b) {
		return v
	}
	v = string(b)
	slot.Store(v)
	return v
}

// internNumber is json.Number(b) boxed, b a number's decimal text.
func internNumber(b []byte) any {
	if len(b) > internMax {
		return json.Number(b)
	}
	slot := &internNumbers[internSlot(b)]
	v := slot.Load()
	if n, ok := v.(json.Number); ok && string(n) == string(b) {
		return v
	}
	v = json.Number(b)
	slot.Store(v)
	return v
}
