// batchline.go: evaluate_batch's params read from the request line's tape: the trace, its text, the assertions.

package rpc

import (
	"sync/atomic"

	"attest-engine/assert"
	"attest-engine/tape"
)

// batchParams is an evaluate_batch request's params as read from its line's tape:
// valid until the request is released.
type batchParams struct {
	paramsTape tape.Value // params; Missing when the request has none
	trace      tape.Value // params.trace
	// list is params.assertions read straight into assertions (read is
	// true), in small when it fits; raw is the array decoded plainly for
	// assert.Parse when it has another shape (assertions.go).
	list  []assert.Assertion
	read  bool
	raw   []any
	small [8]assert.Assertion
}

// parseBatch is parse for an evaluate_batch line as the server reads it:
// assertion specs whose text the engine knows from earlier requests are
// taken as known, and the engine remembers the others (assert/spectext.go).
func (s *Server) parseBatch(line []byte) (*request, *Error) { return parseWith(line, s.engine) }

// readBatch reads evaluate_batch's params. What is wrong with them is
// answered later, by evaluate, in the order spec §7 asks for; the
// assertions are read now, so that the read loop knows whether the batch
// is costly and the specs are remembered even when the trace is invalid.
func (r *request) readBatch(params tape.Value, known *assert.Engine) {
	r.paramsTape = params
	r.trace = params.Get("trace")
	if av := params.Get("assertions"); av.Kind() == tape.Array {
		sp := specs{known: known}
		if !r.readAssertions(av, &sp) {
			r.raw = sp.materialise(av)
		}
	}
}

// assertions is evaluate_batch's assertions param (spec §2.2 table).
func (r *request) assertions() ([]assert.Assertion, error) {
	if r.read {
		return r.list, nil
	}
	switch r.paramsTape.Get("assertions").Kind() {
	case tape.Missing:
		return nil, newError(codeInvalidParams, "evaluate_batch takes {trace, assertions} (spec §2.2).", "invalid params: missing required field 'assertions'")
	case tape.Array:
		return assert.Parse(r.raw)
	}
	return nil, newError(codeInvalidParams, "Send assertions as a JSON array of assertion objects.", "invalid params: assertions must be an array")
}

// hold has req keep doc, the tape of its line, until release.
func (r *request) hold(doc *tape.Doc) {
	r.doc = doc
	if countDocs.Load() {
		docsHeld.Add(1)
	}
}

// release lets go of the request's tape: nothing may read the line through
// it after. The assertions read from it stay (they are copies).
func (r *request) release() {
	if r == nil || r.doc == nil {
		return
	}
	r.paramsTape, r.trace = tape.Value{}, tape.Value{}
	r.doc.Release()
	r.doc = nil
	if countDocs.Load() {
		docsHeld.Add(-1)
	}
}

// docsHeld counts the tapes that requests hold, while countDocs is set (by
// tests, while no request is being read: it costs a shared counter's update
// per request). countDocs is atomic so that a request still running from
// an earlier test reads it without a data race.
var (
	countDocs atomic.Bool
	docsHeld  atomic.Int64
)

// costly reports whether an evaluate_batch request holds an assertion of
// layer 5 or 6 (assert.Costly), judged by its type.
func costly(req *request) bool {
	if req.read {
		for _, a := range req.list {
			if assert.Costly(a.Type) {
				return true
			}
		}
		return false
	}
	for _, a := range req.raw {
		obj, _ := a.(map[string]any)
		if typ, _ := obj["type"].(string); assert.Costly(typ) {
			return true
		}
	}
	return false
}
