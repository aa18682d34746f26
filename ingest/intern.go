// intern.go: short strings decoded from protobuf shared, not allocated again: attribute keys, operation and model names repeat in every span.

package ingest

import (
	"encoding/json"
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

// interned is a table entry: the string, and the same text boxed as the
// attribute value it is (a string, or a json.Number when num), so that a
// value met again costs neither the string nor the interface's box.
type interned struct {
	s   string
	num bool
	v   any
}

// internTable is zero until used: nothing is built at start.
var internTable [internSlots]atomic.Pointer[interned]

// lookup is the entry for b of kind num, from the table when it holds one.
func lookup(b []byte, num bool) *interned {
	h := uint32(2166136261) // FNV-1a: a collision costs a cache miss, nothing else
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	if num {
		h = ^h
	}
	slot := &internTable[h%internSlots]
	if e := slot.Load(); e != nil && e.num == num && e.s == string(b) {
		return e
	}
	e := &interned{s: string(b), num: num}
	if num {
		e.v = json.Number(e.s)
	} else {
		e.v = e.s
	}
	slot.Store(e)
	return e
}

// intern is string(b) for valid UTF-8 b, the same string as an earlier
// call's when the table still holds it. Safe for concurrent use.
func intern(b []byte) string {
	if len(b) > internMax {
		return string(b)
	}
	return lookup(b, false).s
}

// internValue is intern(b) boxed as an attribute value (a string).
func internValue(b []byte) any {
	if len(b) > internMax {
		return string(b)
	}
	return lookup(b, false).v
}

// internNumber is json.Number(b) boxed, b a number's decimal text.
func internNumber(b []byte) any {
	if len(b) > internMax {
		return json.Number(b)
	}
	return lookup(b, true).v
}
