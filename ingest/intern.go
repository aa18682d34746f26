// intern.go: short strings decoded from protobuf shared, not allocated again: attribute keys, operation and model names repeat in every span.

package ingest

import "sync/atomic"

// internMax is the longest string interned; internSlots the table's size.
// The table is fixed (internSlots × internMax bytes at most), and a slot
// holds the last string hashed to it, so a stream of distinct strings
// only costs the lookups.
const (
	internMax   = 48
	internSlots = 1024
)

// internTable is zero until used: nothing is built at start.
var internTable [internSlots]atomic.Pointer[string]

// intern is string(b) for valid UTF-8 b, the same string as an earlier
// call's when the table still holds it. Safe for concurrent use.
func intern(b []byte) string {
	if len(b) > internMax {
		return string(b)
	}
	h := uint32(2166136261) // FNV-1a: a collision costs a cache miss, nothing else
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &internTable[h%internSlots]
	if p := slot.Load(); p != nil && *p == string(b) {
		return *p
	}
	s := string(b)
	slot.Store(&s)
	return s
}
