// record.go: the session's record of every result, native and plugin, for reports.

package rpc

import (
	"strconv"
	"sync"

	"attest-engine/assert"
)

// Recorded is one result of the session as a report shows it.
type Recorded struct {
	TraceID string
	Suite   string // evaluate_batch's optional suite ("" when none)
	Plugin  string // plugin_name for submit_plugin_result results; "" for native ones
	Type    string // the assertion type when the recorder knows it (the eval command); "" otherwise
	Result  assert.Result
}

// recorder keeps results only when a report was asked for (--report).
type recorder struct {
	mu   sync.Mutex
	path string // where the report goes when serving ends; "": no report
	list []Recorded
}

func (r *recorder) add(traceID, suite, plugin string, results ...assert.Result) {
	if r.path == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, res := range results {
		r.list = append(r.list, Recorded{TraceID: traceID, Suite: suite, Plugin: plugin, Result: res})
	}
}

// snapshot copies the record, so a report can be written while late results
// (a drain that timed out) are still being added.
func (r *recorder) snapshot() []Recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Recorded(nil), r.list...)
}

// groupByTrace gathers recorded results into one TraceReport per trace_id,
// traces in the order first seen, results in the order recorded. A trace's
// duration is the sum of its results' durations: the server keeps no wall
// time per trace (several batches and plugin results may share one).
func groupByTrace(list []Recorded) []TraceReport {
	index := map[string]int{}
	var out []TraceReport
	for _, rec := range list {
		i, ok := index[rec.TraceID]
		if !ok {
			i = len(out)
			index[rec.TraceID] = i
			name := rec.TraceID
			if name == "" {
				name = "#" + strconv.Itoa(i+1)
			}
			out = append(out, TraceReport{Name: name, TraceID: rec.TraceID})
		}
		out[i].Results = append(out[i].Results, rec)
		out[i].DurationMS += rec.Result.DurationMS
	}
	return out
}
