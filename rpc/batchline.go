// batchline.go: reading an evaluate_batch line: the decoder's hooks for the trace's text, the assertions and their specs.

package rpc

import (
	"reflect"
	"sync"

	"attest-engine/assert"
	"attest-engine/trace"
)

// parseBatch is parse for an evaluate_batch line: it notes params.trace's
// text for the idempotency record, takes assertion specs whose text the
// engine knows from earlier requests without decoding them, and has the
// engine remember the others (assert/spectext.go).
func (s *Server) parseBatch(line []byte) (*request, *Error) {
	r := s.specHooks.Get().(*batchReuse)
	defer r.release(&s.specHooks)
	req, perr := parseReusing(line, &r.Reuse)
	if perr != nil {
		return req, perr
	}
	// The members seen may be another object's at the same depth: a text
	// counts only when it is params' own member.
	if tw := &r.watches[0]; same(tw.Value, req.params["trace"]) {
		req.traceText = tw.Text
	}
	if r.n > 0 && s.engine != nil {
		// Only the specs of params' own assertions are remembered.
		remember := func(sp map[string]any) {
			for _, f := range r.fresh[:r.n] {
				if same(f.value, sp) {
					s.engine.RememberSpec(f.text, sp)
					return
				}
			}
		}
		switch list := req.params["assertions"].(type) {
		case *taken:
			for _, a := range list.list {
				remember(a.Spec)
			}
		case []any:
			for _, a := range list {
				obj, _ := a.(map[string]any)
				if sp, ok := obj["spec"].(map[string]any); ok {
					remember(sp)
				}
			}
		}
	}
	return req, nil
}

// batchReuse is the decoder hook for one evaluate_batch line (made once per
// pooled hook, so that a request allocates none): the watches are params'
// trace member (depth 2), its assertions member (depth 2, read straight into
// assertions when it can be: assertions.go), and the spec members of the
// assertions (depth 4) when it could not; fresh notes the specs decoded
// afresh, up to maxFreshSpecs of them.
type batchReuse struct {
	trace.Reuse
	watches [3]trace.Watch
	known   func([]byte) (int, any, bool) // the engine's KnownSpec
	fresh   [maxFreshSpecs]struct {
		text  []byte
		value any
	}
	n    int
	list []assert.Assertion // readAssertions' scratch
}

const maxFreshSpecs = 16

func newBatchReuse(known func([]byte) (int, any, bool)) *batchReuse {
	r := &batchReuse{known: known}
	r.watches = [3]trace.Watch{
		{Key: "trace", Depth: 2},
		{Key: "assertions", Depth: 2, Lookup: r.readAssertions},
		{Key: "spec", Depth: 4, Lookup: known, Decoded: r.noteFresh},
	}
	r.Reuse = trace.Reuse{Members: r.watches[:]}
	return r
}

// noteFresh notes a spec's text and the value decoded from it.
func (r *batchReuse) noteFresh(text []byte, v any) {
	if r.n < maxFreshSpecs {
		r.fresh[r.n].text, r.fresh[r.n].value = text, v
		r.n++
	}
}

// release drops what r saw of a line and returns it to the pool.
func (r *batchReuse) release(pool *sync.Pool) {
	for i := range r.watches {
		w := &r.watches[i]
		w.Text, w.Value, w.Reused = nil, nil, false
	}
	clear(r.fresh[:r.n])
	r.n = 0
	if cap(r.list) > 256 {
		r.list = nil // do not keep a huge batch's scratch alive
	}
	pool.Put(r)
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

// costly reports whether a decoded evaluate_batch request holds an
// assertion of layer 5 or 6 (assert.Costly), judged by its type.
func costly(req *request) bool {
	switch list := req.params["assertions"].(type) {
	case *taken:
		for _, a := range list.list {
			if assert.Costly(a.Type) {
				return true
			}
		}
	case []any:
		for _, a := range list {
			obj, _ := a.(map[string]any)
			if typ, _ := obj["type"].(string); assert.Costly(typ) {
				return true
			}
		}
	}
	return false
}
