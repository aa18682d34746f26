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
	Result  assert.Result
}

// recorder keeps results only when a report was asked for (Options.Report).
type recorder struct {
	mu   sync.Mutex
	on   bool
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
