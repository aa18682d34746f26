// memo.go: the assertions and traces of recent batches, kept by their exact text so that a repeated text is decoded once.

package rpc

import (
	"bytes"
	"reflect"
	"sync"

	"attest-engine/assert"
	"attest-engine/trace"
)

// An SDK evaluating a suite sends the same assertions with every trace, byte
// for byte, and one retrying a batch (spec §2.2: provider errors are
// retryable; request_id makes the retry idempotent) or splitting a trace's
// assertions over several batches sends the same trace again. Two memos keep
// the params.assertions array and the params.trace object of the last few
// batches by their text: a batch whose member text is one of them skips
// decoding that part of the line (trace.Reuse) and gets the very value
// decoded before. Memoized assertions also keep what was read from them, so
// their specs meet their compiled checks by identity (assert confirms cache
// hits on those). A memoized trace is still validated for every batch; the
// memo only saves building its value again.
//
// Values are shared between the requests that reuse them: nothing in the
// engine modifies a decoded value.
//
// Bounds: memoEntries texts of at most memoMaxText bytes each, per memo.
const (
	memoEntries = 8
	memoMaxText = 64 << 10
)

type memoEntry[T any] struct {
	text  []byte // the member's exact text, as it was in a request
	value any    // its decoded value; shared read-only
	extra T      // what the caller read from value
}

// memo keeps the texts of one member, most recently used first.
type memo[T any] struct {
	mu      sync.Mutex
	entries []*memoEntry[T]
}

// lookup is a trace.Watch's Lookup: the length and value of the known text
// that rest starts with.
func (m *memo[T]) lookup(rest []byte) (int, any, bool) {
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

// extra returns what was read from v when v is a memoized value itself.
func (m *memo[T]) extra(v any) (T, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.entries {
		if same(e.value, v) {
			return e.extra, true
		}
	}
	var zero T
	return zero, false
}

// add remembers a copy of text (a slice of a request line, which goes when
// the request does), which decoded to value (a non-empty array or an
// object) from which extra was read without error.
func (m *memo[T]) add(text []byte, value any, extra T) {
	if len(text) > memoMaxText || !same(value, value) {
		return
	}
	e := &memoEntry[T]{text: bytes.Clone(text), value: value, extra: extra}
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

// same reports whether a and b are the same decoded object or non-empty
// array: the same one in memory, not equal ones.
func same(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	case []any:
		y, ok := b.([]any)
		return ok && len(x) > 0 && len(x) == len(y) && &x[0] == &y[0]
	}
	return false
}

// memos are the server's two memos and the decoder hook that consults them.
type memos struct {
	assertions memo[[]assert.Assertion]
	traces     memo[struct{}]
	// The memos' lookups as funcs, made once (a method value made per
	// request would be an allocation each).
	lookupAssertions, lookupTrace func([]byte) (int, any, bool)
}

func newMemos() *memos {
	ms := &memos{}
	ms.lookupAssertions, ms.lookupTrace = ms.assertions.lookup, ms.traces.lookup
	return ms
}

// batchReuse is the decoder hook for one request line, made in one piece:
// params is the top-level object's member (depth 1); the watches are the
// assertions and trace members of params (depth 2), in that order.
type batchReuse struct {
	trace.Reuse
	watches [2]trace.Watch
}

func (ms *memos) reuse() *batchReuse {
	r := &batchReuse{watches: [2]trace.Watch{
		{Key: "assertions", Lookup: ms.lookupAssertions},
		{Key: "trace", Lookup: ms.lookupTrace},
	}}
	r.Reuse = trace.Reuse{Depth: 2, Members: r.watches[:]}
	return r
}
