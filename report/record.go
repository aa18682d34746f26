// record.go: one recorded result, and grouping a session's results into traces.

package report

import (
	"strconv"

	"attest-engine/assert"
)

// Recorded is one result as a report shows it.
type Recorded struct {
	TraceID string
	Suite   string // evaluate_batch's optional suite ("" when none)
	Plugin  string // plugin_name for submit_plugin_result results; "" for native ones
	Type    string // the assertion type when the recorder knows it; "" otherwise (plugin results)
	// Spec is the assertion's spec as the HTML report shows it (SpecText:
	// indented JSON cut to 4 KiB), filled only for an HTML report.
	Spec string
	// CaseKey and AssertionKey are the result's stable keys (package
	// resultkey): what was evaluated and what checked it, the same in every
	// run of the suite. "" when the writer of the record computed none.
	CaseKey, AssertionKey string
	// KeyLabel is how a person names the assertion key (resultkey.Label:
	// the type and the spec's canonical text, cut to 160 bytes), written
	// beside it: a key's results in two runs carry different assertion_ids.
	KeyLabel string
	// Repeat is the run of a simulated scenario the result belongs to
	// (evaluate_batch's repeat), when HasRepeat.
	Repeat    int64
	HasRepeat bool
	Result    assert.Result
}

// byTrace gathers recorded results into one Trace per trace_id, traces in
// the order first seen, results in the order recorded. A trace's duration
// is the sum of its results' durations: the server keeps no wall time per
// trace (several batches and plugin results may share one).
func byTrace(list []Recorded) []Trace {
	index := map[string]int{}
	var out []Trace
	for _, rec := range list {
		i, ok := index[rec.TraceID]
		if !ok {
			i = len(out)
			index[rec.TraceID] = i
			name := rec.TraceID
			if name == "" {
				name = "#" + strconv.Itoa(i+1)
			}
			out = append(out, Trace{Name: name, TraceID: rec.TraceID, CaseKey: rec.CaseKey})
		}
		out[i].Results = append(out[i].Results, rec)
		out[i].DurationMS += rec.Result.DurationMS
	}
	return out
}
