// held.go: what a decoded span holds in memory, estimated from its fields: the measure of every bound on spans held.

package ingest

import (
	"encoding/json"
	"math/bits"
)

// Memory the Go runtime gives the parts of a span (amd64, Go's swiss-table
// maps), rounded up; TestHeldEstimate checks the estimate against the heap
// the decoders really take, for spans of many shapes.
const (
	heldSpan   = 256 // the Span struct (184 bytes) in a slice, plus its id strings' allocation headroom
	heldIface  = 16  // a value boxed in an interface: a string or json.Number header
	heldMap    = 48  // a map's header
	heldSlot   = 33  // a map[string]any slot (key and value headers) with its control byte
	heldSlice  = 24  // a []any's header, boxed
	heldEvent  = 80  // an Event in a span's slice (72 bytes)
	heldMinMap = 8   // slots of the smallest map table
)

// What the assembler holds of a trace besides its spans, counted against
// --max-open-bytes with them: an open trace's record, its entries in the
// open map, the LRU list and the root queue, and its span-id set (per span
// id beyond the id's bytes); a closed trace kept for late spans adds its
// entry in the kept cache and its hold. Without them a flood of one-span
// traces held ~4 times what was counted.
const (
	heldTrace  = 640
	heldSpanID = 48
	heldKept   = 256
)

// spanHeld estimates the bytes sp holds once decoded: its struct, its
// strings, its attributes and kept events, and for a log carrier its key
// and its records' packed text or bodies (the service name is shared by
// the spans of a resource and not counted). It is what Span.Size records and
// what --max-open-bytes and the pipeline's byte bounds count, whichever
// encoding the span came in.
func spanHeld(sp *Span) int {
	n := heldSpan + len(sp.TraceID) + len(sp.SpanID) + len(sp.ParentID) + words(sp.Name) + words(sp.Status)
	n += mapHeld(sp.Attrs) + words(sp.LogKey)
	for _, e := range sp.Events {
		n += heldEvent + words(e.Name) + mapHeld(e.Attrs) + words(e.Packed)
		if e.Body != nil {
			n += valueHeld(e.Body)
		}
	}
	return n
}

func mapHeld(m map[string]any) int {
	if m == nil {
		return 0
	}
	slots := heldMinMap
	if len(m) > 7 {
		// A table grows to the next power of two past a load of 7/8.
		slots = 1 << bits.Len(uint(len(m)*8/7))
	}
	n := heldMap + slots*heldSlot
	for k, v := range m {
		n += words(k) + valueHeld(v)
	}
	return n
}

// valueHeld is what a value of the engine's model holds beyond the
// interface that refers to it.
func valueHeld(v any) int {
	switch x := v.(type) {
	case string:
		return heldIface + words(string(x))
	case json.Number:
		return heldIface + words(string(x))
	case []any:
		n := heldSlice + 16*cap(x)
		for _, e := range x {
			n += valueHeld(e)
		}
		return n
	case map[string]any:
		return mapHeld(x)
	}
	return 0 // bool and nil: no allocation
}

// words is a string's bytes as allocated: in 8-byte steps (the smallest
// size classes).
func words(s string) int { return (len(s) + 7) &^ 7 }
