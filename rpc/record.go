// record.go: the session's record of every result, native and plugin, for reports.

package rpc

import (
	"sync"

	"attest-engine/assert"
)

// Recorded is one result of the session as a report shows it.
type Recorded struct {
	TraceID string
	Suite   string // evaluate_batch's optional suite ("" when none)
	Plugin  string // plugin_name for submit_plugin_result results; "" for native ones
	Result  assert.Result
}

// recorder keeps results only when a report was asked for (--report).
type recorder struct {
	mu      sync.Mutex
	enabled bool
	list    []Recorded
}

func (r *recorder) add(traceID, suite, plugin string, results ...assert.Result) {
	if r == nil || !r.enabled {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, res := range results {
		r.list = append(r.list, Recorded{TraceID: traceID, Suite: suite, Plugin: plugin, Result: res})
	}
}
