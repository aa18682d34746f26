// oversize.go: a trace assembled from spans that is too large to evaluate, answered before its text is written.

package watch

import (
	"math"
	"strconv"

	"attest-engine/assert"
	"attest-engine/ingest"
	"attest-engine/resultkey"
	"attest-engine/trace"
)

// oversize fails every line of a trace assembled from spans whose Attest
// text would exceed spec §7's size limit (rule 4, the first rule a mapped
// trace can fail: the mapping always writes the fields the earlier rules
// check), with the error validation gives, and the case key it would have:
// the text, several times the memory its spans hold (a message is written
// as a message, the prompt and the user's message), is never written.
func (e *evaluator) oversize(t ingest.Trace, out []Result) bool {
	if ingest.JSONSize(t.Value, trace.MaxTraceBytes) <= trace.MaxTraceBytes {
		return false
	}
	agent, _ := t.Value["agent_id"].(string)
	in, ok := t.Value["input"]
	if ck, err := resultkey.Case(agent, in, ok); err == nil {
		for i := range out {
			out[i].CaseKey = ck
		}
	}
	err := &trace.Error{Message: "trace exceeds max size: " + strconv.Itoa(ingest.JSONSize(t.Value, math.MaxInt)) + " > 10485760 bytes",
		Detail: trace.SizeDetail}
	fail(out, nil, wire(assert.FailureOf(err, e.timeout)))
	return true
}
