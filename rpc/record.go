// record.go: the session's record of every result, native and plugin, for the report asked for with --report.

package rpc

import (
	"sync"

	"attest-engine/assert"
)

// Record is one result of the session, as RecordTo's add receives it.
type Record struct {
	TraceID string
	Suite   string // evaluate_batch's optional suite ("" when none)
	Plugin  string // plugin_name for submit_plugin_result results; "" for native ones
	Type    string // the assertion's type; "" for plugin results
	Spec    string // Options.ReportSpec of the assertion's spec; "" without it, and for plugin results
	// CaseKey and AssertionKey are the result's stable keys (package resultkey); "" for plugin results.
	CaseKey, AssertionKey string
	KeyLabel              string // how a person names the assertion key (resultkey.Label)
	// Repeat is the batch's repeat when HasRepeat (a run of a simulated scenario).
	Repeat    int64
	HasRepeat bool
	Result    assert.Result
}

// recorder hands results on only when a report was asked for (RecordTo);
// it keeps none itself.
type recorder struct {
	mu   sync.Mutex
	on   bool
	spec func(map[string]any) string // Options.ReportSpec
	sink func(Record)                // RecordTo's add
	done func()                      // RecordTo's done
}

// RecordTo hands every result of the session, native and plugin, to add
// as it is recorded, in the order recorded (under one lock: a batch's
// results come together); done is called once when serving ends, whichever
// way it ends: after the shutdown answer, at end of input, or at SIGTERM.
// The server's --report (package serve) passes them to a report.Spool, so a
// long session's results wait on disk past a bound rather than all in
// memory. add must not block for long: it runs under the recorder's lock.
// What add and done do never changes the protocol's answers. Call RecordTo
// before Serve.
func (s *Server) RecordTo(add func(Record), done func()) {
	s.record.on, s.record.sink, s.record.done = true, add, done
}

func (r *recorder) add(traceID, suite, plugin string, results ...assert.Result) {
	if !r.on {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, res := range results {
		r.sink(Record{TraceID: traceID, Suite: suite, Plugin: plugin, Result: res})
	}
}

// addBatch records an evaluate_batch's results with their assertions' type
// and, when Options.ReportSpec is set, spec text (list is the batch's
// assertions, results one per assertion in the same order, as
// assert.Engine.Run answers). The text is kept rather than the decoded
// spec, which could be a large schema held for the whole session.
func (r *recorder) addBatch(traceID, suite string, list []assert.Assertion, results []assert.Result, k *batchKeys) {
	if !r.on {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, res := range results {
		rec := Record{TraceID: traceID, Suite: suite, Result: res, CaseKey: k.caseKey, Repeat: k.repeat, HasRepeat: k.hasRepeat}
		if i < len(list) && list[i].ID == res.AssertionID {
			rec.Type, rec.AssertionKey, rec.KeyLabel = list[i].Type, k.keys[i], k.labels[i]
			if r.spec != nil {
				rec.Spec = r.spec(list[i].Spec)
			}
		}
		r.sink(rec)
	}
}

// report ends the session's record when serving ends (RecordTo's done).
func (s *Server) report() {
	if s.record.done != nil {
		s.record.done()
	}
}
