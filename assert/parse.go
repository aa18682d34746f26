// parse.go: reading the assertion objects of a batch (spec §2.2 table), for the server and the eval command alike.

package assert

import "fmt"

// Parse reads a batch's list of assertion objects as evaluate_batch
// defines them (spec §2.2): an entry that is not an assertion object is an
// *Error naming it ("#<n>" when it has no assertion_id).
func Parse(raw []any) ([]Assertion, error) {
	out := make([]Assertion, len(raw))
	for i, e := range raw {
		obj, ok := e.(map[string]any)
		if !ok {
			return nil, &Error{AssertionID: fmt.Sprintf("#%d", i), Message: "assertion must be a JSON object",
				Detail: "Each entry of assertions is an object {assertion_id, type, spec, request_id?}."}
		}
		id, ok := obj["assertion_id"].(string)
		if !ok || id == "" {
			return nil, &Error{AssertionID: fmt.Sprintf("#%d", i), Message: "missing required field 'assertion_id'",
				Detail: "Give every assertion a non-empty assertion_id string, unique within the batch."}
		}
		typ, ok := obj["type"].(string)
		if !ok {
			return nil, &Error{AssertionID: id, Message: "missing required field 'type'",
				Detail: "Set type to one of schema, constraint, trace, content, embedding, llm_judge."}
		}
		spec, ok := obj["spec"].(map[string]any)
		if !ok {
			return nil, &Error{AssertionID: id, Message: "missing required field 'spec'",
				Detail: "Every assertion carries a spec object with its type's fields (spec §4)."}
		}
		a := Assertion{ID: id, Type: typ, Spec: spec}
		// Additive field agent_id: evaluate against that agent's trace of
		// the tree (scope.go); absent or null: the root trace.
		switch aid := obj["agent_id"].(type) {
		case string:
			if aid == "" {
				return nil, &Error{AssertionID: id, Message: "agent_id must be a non-empty string",
					Detail: "Leave agent_id out (or null) to assert on the root trace, or name the agent_id of a trace in the tree."}
			}
			a.AgentID = aid
		case nil:
		default:
			return nil, &Error{AssertionID: id, Message: "agent_id must be a string",
				Detail: "agent_id is an optional string naming the agent_id of a trace in the tree."}
		}
		switch rid := obj["request_id"].(type) {
		case string:
			a.RequestID = rid
		case nil:
		default:
			return nil, &Error{AssertionID: id, Message: "request_id must be a string",
				Detail: "request_id is an optional idempotency key string."}
		}
		out[i] = a
	}
	return out, nil
}
