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
	Result  assert.Result
}

// recorder keeps results only when a report was asked for (Options.Report).
type recorder struct {
	mu   sync.Mutex
	on   bool
	spec func(map[string]any) string // Options.ReportSpec
	list []Record
}

func (r *recorder) add(traceID, suite, plugin string, results ...assert.Result) {
	if !r.on {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, res := range results {
		r.list = append(r.list, Record{TraceID: traceID, Suite: suite, Plugin: plugin, Result: res})
	}
}

// addBatch records an evaluate_batch's results with their assertions' type
// and, when Options.ReportSpec is set, spec text (list is the batch's
// assertions, results one per assertion in the same order, as
// assert.Engine.Run answers). The text is kept rather than the decoded
// spec, which could be a large schema held for the whole session.
func (r *recorder) addBatch(traceID, suite string, list []assert.Assertion, results []assert.Result) {
	if !r.on {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, res := range results {
		rec := Record{TraceID: traceID, Suite: suite, Result: res}
		if i < len(list) && list[i].ID == res.AssertionID {
			rec.Type = list[i].Type
			if r.spec != nil {
				rec.Spec = r.spec(list[i].Spec)
			}
		}
		r.list = append(r.list, rec)
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
	if s.reportTo != nil {
		s.reportTo(s.record.snapshot())
	}
}
