// memo.go: the assertions of recent batches, kept by their exact text so that a suite's repeated assertions are decoded once.

package rpc

import (
	"bytes"
	"reflect"
	"sync"

	"attest-engine/assert"
	"attest-engine/trace"
)

// An SDK evaluating a suite sends the same assertions with every trace, byte
// for byte. The memo keeps the assertions array of the last few batches by
// its text: a batch whose params.assertions text is one of them skips
// decoding that part of the line and reading the assertion objects, and its
// specs are the very maps already compiled (assert confirms cache hits on
// those by identity first). Traces are never memoized: each is decoded and
// validated afresh.
//
// Bounds: memoEntries arrays of at most memoMaxText bytes each.
const (
	memoEntries = 8
	memoMaxText = 64 << 10
)

type memoEntry struct {
	text  []byte // the array's exact text, as it was in a request
	value []any  // its decoded value; shared read-only
	list  []assert.Assertion
}

type assertionMemo struct {
	mu      sync.Mutex
	entries []*memoEntry // most recently used first
}

// reuse is the decoder hook for one request line: params is the top-level
// object's member (depth 1), assertions a member of params (depth 2).
func (m *assertionMemo) reuse() *trace.Reuse {
	return &trace.Reuse{Depth: 2, Key: "assertions", Lookup: m.lookup}
}

func (m *assertionMemo) lookup(rest []byte) (int, any, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, e := range m.entries {
		if bytes.HasPrefix(rest, e.text) {
			copy(m.entries[1:i+1], m.entries[:i])
			m.entries[0] = e
			return len(e.text), e.value, true
		}
	}
	return 0, nil, false
}

// list returns the assertions read from v when v is a memoized array.
func (m *assertionMemo) list(v any) ([]assert.Assertion, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.entries {
		if sameArray(e.value, v) {
			return e.list, true
		}
	}
	return nil, false
}

// sameObject reports whether v is the map m itself (not an equal one).
func sameObject(v any, m map[string]any) bool {
	o, ok := v.(map[string]any)
	return ok && reflect.ValueOf(o).UnsafePointer() == reflect.ValueOf(m).UnsafePointer()
}

// sameArray reports whether a and b are the same non-empty []any (the same
// elements in memory, not equal ones).
func sameArray(a, b any) bool {
	x, ok1 := a.([]any)
	y, ok2 := b.([]any)
	return ok1 && ok2 && len(x) > 0 && len(x) == len(y) && &x[0] == &y[0]
}

// add remembers the text of an assertions array that decoded to value and
// read as list without error. text must not change afterwards.
func (m *assertionMemo) add(text []byte, value any, list []assert.Assertion) {
	arr, ok := value.([]any)
	if !ok || len(arr) == 0 || len(text) > memoMaxText {
		return
	}
	e := &memoEntry{text: text, value: arr, list: list}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, old := range m.entries {
		if bytes.Equal(old.text, text) {
			return // two batches with the same new text decoded at once
		}
	}
	if len(m.entries) < memoEntries {
		m.entries = append(m.entries, nil)
	}
	copy(m.entries[1:], m.entries)
	m.entries[0] = e
}
