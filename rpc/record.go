// record.go: the session's record of every result, native and plugin, for the report asked for with --report.

package rpc

import (
	"sync"

	"attest-engine/assert"
)

// Record is one result of the session, as Options.Report receives it.
type Record struct {
	TraceID string
	Suite   string // evaluate_batch's optional suite ("" when none)
	Plugin  string // plugin_name for submit_plugin_result results; "" for native ones
	Type    string // the assertion's type; "" for plugin results
	Spec    string // Options.ReportSpec of the assertion's spec; "" without it, and for plugin results
	// CaseKey and AssertionKey are the result's stable keys (package resultkey); "" for plugin results.
	CaseKey, AssertionKey string
	// Repeat is the batch's repeat when HasRepeat (a run of a simulated scenario).
	Repeat    int64
	HasRepeat bool
	Result    assert.Result
}

// recorder keeps results only when a report was asked for (Options.Report,
// or RecordTo). With RecordTo it keeps none itself: each goes to the sink
// as it is recorded.
type recorder struct {
	mu   sync.Mutex
	on   bool
	spec func(map[string]any) string // Options.ReportSpec
	list []Record
	sink func(Record) // RecordTo's add
	done func()       // RecordTo's done
}

// RecordTo hands every result of the session to add as it is recorded,
// in the order Options.Report would list them (under one lock: a batch's
// results come together), instead of keeping them for Options.Report; done
// is called once when serving ends, where Report would be, whichever way
// it ends. main's --report passes them to a report.Spool this way, so a
// long session's results wait on disk past a bound rather than all in
// memory. add must not block for long: it runs under the recorder's lock.
// Call RecordTo before Serve.
func (s *Server) RecordTo(add func(Record), done func()) {
	s.record.on, s.record.sink, s.record.done = true, add, done
}

// keep records one result; the caller holds r.mu.
func (r *recorder) keep(rec Record) {
	if r.sink != nil {
		r.sink(rec)
		return
	}
	r.list = append(r.list, rec)
}

func (r *recorder) add(traceID, suite, plugin string, results ...assert.Result) {
	if !r.on {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, res := range results {
		r.keep(Record{TraceID: traceID, Suite: suite, Plugin: plugin, Result: res})
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
			rec.Type, rec.AssertionKey = list[i].Type, k.keys[i]
			if r.spec != nil {
				rec.Spec = r.spec(list[i].Spec)
			}
		}
		r.keep(rec)
	}
}

// snapshot copies the record, so a report can be written while late results
// (a drain that timed out) are still being added.
func (r *recorder) snapshot() []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Record(nil), r.list...)
}

// report hands the session's record to Options.Report when serving ends,
// whichever way it ends: after the shutdown answer, at end of input, or at
// SIGTERM. What it does with them never changes the protocol's answers.
func (s *Server) report() {
	if s.record.done != nil {
		s.record.done()
		return
	}
	if s.reportTo != nil {
		s.reportTo(s.record.snapshot())
	}
}
