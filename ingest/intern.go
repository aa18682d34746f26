// intern.go: short strings decoded from protobuf shared, not allocated again: attribute keys, operation and model names repeat in every span.

package ingest

import (
	"hash/maphash"
	"sync/atomic"
)

// internMax is the longest string interned; internSlots the table's size.
// The table is fixed (internSlots × internMax bytes at most), and a slot
// holds the last string hashed to it, so a stream of distinct strings
// only costs the lookups.
const (
	internMax   = 48
	internSlots = 1024
)

var (
	internSeed  = maphash.MakeSeed()
	internTable [internSlots]atomic.Pointer[string]
)

// intern is string(b) for valid UTF-8 b, the same string as an earlier
// call's when the table still holds it. Safe for concurrent use.
func intern(b []byte) string {
	if len(b) > internMax {
		return string(b)
	}
	slot := &internTable[maphash.Bytes(internSeed, b)%internSlots]
	if p := slot.Load(); p != nil && *p == string(b) {
		return *p
	}
	s := string(b)
	slot.Store(&s)
	return s
}
