// scope.go: agent scoping: an assertion with agent_id is evaluated against that agent's trace of the tree.

package assert

import (
	"fmt"
	"strings"
)

// scope returns the input an assertion scoped to an agent reads: the trace
// of the tree (spec §3.3: the root and the sub_trace of every agent_call
// step, recursively) whose agent_id is a.AgentID. The root may be chosen
// too. When no trace or several traces carry that agent_id, the assertion
// cannot say which trace it means, so it fails (a Result, not an error):
// failed holds the explanation and in is nil.
//
// Several traces sharing an agent_id (the same tool agent called twice) is
// a failure rather than "the first one": an assertion that silently checks
// one of several runs could pass while another run is wrong. A JSONPath
// target such as steps[?name=='x'].sub_trace.output.message still reaches
// a particular one.
func scope(root *input, agentID string) (in *input, failed string) {
	nodes := root.tree()
	found := byAgent(nodes, agentID)
	switch len(found) {
	case 1:
		// The agent's trace is read in place in the batch's tape, not
		// encoded and parsed again for every assertion scoped to it.
		n := found[0]
		if n.parent == nil {
			return root, ""
		}
		scoped := newInput(n.value(root.root))
		if !scoped.root.Exists() { // not reached: the tape and the tree are one document
			return nil, fmt.Sprintf("Agent '%s': its trace could not be read.", agentID)
		}
		scoped.decodedOnce.Do(func() { scoped.decoded = n.trace })
		return scoped, ""
	case 0:
		return nil, unknownAgent(nodes, agentID).explanation
	}
	ids := make([]string, len(found))
	for i, n := range found {
		ids[i] = n.traceID
	}
	return nil, fmt.Sprintf("Agent '%s' is ambiguous: %d traces of the tree have this agent_id (trace_id %s); scope to one of them with a JSONPath target instead.",
		agentID, len(found), "'"+strings.Join(ids, "', '")+"'")
}

// scopedFailure is the result of an assertion whose agent scope failed: a
// hard failure, or a soft one when the assertion is soft.
func scopedFailure(p prepared, explanation string) Result {
	r := Result{AssertionID: p.a.ID, Status: HardFail, Explanation: explanation, RequestID: p.a.RequestID}
	if p.soft {
		r.Status = SoftFail
	}
	return r
}
