// derive.go: tool_call steps from a model's messages when no tool span made them.

package ingest

// No instrumentation of a model client makes a span for the tools the
// application runs: the calls exist only in the messages (the assistant's
// tool calls with their ids and arguments, then the tool messages with the
// results). A tool call in an llm_call's output messages becomes a
// tool_call step of its own, right after that llm_call, in message order,
// with the result of the tool message that answers it (by call id, in any
// llm_call's input messages of the trace), marked metadata.derived =
// "messages". It is not derived when the application made a tool span for
// it: a span with the same gen_ai.tool.call.id (or the other conventions'
// id), or, for a span without an id, one per span of the same tool name.
// A call id is derived once per trace, however many llm_calls repeat it.
// A call seen first in a later llm_call's input (not in the first one's,
// which carries the history from before the trace) and answered there is
// derived right before that llm_call: some producers record no tool calls
// in a call's output (Traceloop's Responses API spans).

// indexTools notes the tool spans' call ids, and the names of those
// without one.
func (m *mapper) indexTools() {
	m.toolIDs, m.toolSeen = map[string]bool{}, map[string]int{}
	for i := range m.spans {
		if m.ops[i] != opExecuteTool {
			continue
		}
		sp := &m.spans[i]
		id := m.str(i, attrToolCallID)
		if id == "" {
			id, _ = firstStr(sp, "tool_call.id", convOI, "tool.id", convOI, "ai.toolCall.id", convVercel)
		}
		if id != "" {
			m.toolIDs[id] = true
			continue
		}
		name := m.str(i, attrToolName)
		if name == "" {
			name, _ = firstStr(sp, "tool.name", convOI, "ai.toolCall.name", convVercel, tlName, convOLL)
		}
		m.toolSeen[nonEmpty(name, nonEmpty(trimOp(sp.Name, opExecuteTool), opExecuteTool))]++
	}
}

// derive returns steps with the derived tool_call steps inserted.
func (m *mapper) derive(steps []any) []any {
	responses := map[string]any{}
	calls := 0
	first := -1 // the first llm_call: the history its input carries is from before the trace
	for k, s := range steps {
		st, _ := s.(map[string]any)
		if st["type"] != "llm_call" {
			continue
		}
		if first < 0 {
			first = k
		}
		for _, p := range partsOf(stepMessages(st, "args")) {
			switch p["type"] {
			case "tool_call_response":
				id, _ := p["id"].(string)
				if _, seen := responses[id]; id != "" && !seen && p["response"] != nil {
					responses[id] = p["response"]
				}
			case "tool_call":
				calls++
			}
		}
		for _, p := range partsOf(stepMessages(st, "result")) {
			if p["type"] == "tool_call" {
				calls++
			}
		}
	}
	if calls == 0 {
		return steps
	}
	if m.derived == nil {
		m.derived = map[string]bool{}
	}
	before := map[string]bool{} // calls already in the first llm_call's input
	if first >= 0 {
		for _, p := range partsOf(stepMessages(steps[first].(map[string]any), "args")) {
			if id, _ := p["id"].(string); p["type"] == "tool_call" && id != "" {
				before[id] = true
			}
		}
	}
	out := make([]any, 0, len(steps)+calls)
	for k, s := range steps {
		st, _ := s.(map[string]any)
		if st["type"] != "llm_call" {
			out = append(out, s)
			continue
		}
		spanID := st["metadata"].(map[string]any)["span_id"]
		// A call first seen in a later call's input, answered there, whose
		// own output no producer recorded (Traceloop's Responses spans):
		// it happened between the two.
		if k != first {
			for _, p := range partsOf(stepMessages(st, "args")) {
				if id, _ := p["id"].(string); p["type"] == "tool_call" && id != "" && !before[id] && responses[id] != nil {
					out = m.appendDerived(out, p, responses, spanID)
				}
			}
		}
		out = append(out, s)
		for _, p := range partsOf(stepMessages(st, "result")) {
			if p["type"] == "tool_call" {
				out = m.appendDerived(out, p, responses, spanID)
			}
		}
	}
	return out
}

// stepMessages is an llm_call step's args.messages or result.messages.
func stepMessages(st map[string]any, member string) []any {
	o, _ := st[member].(map[string]any)
	msgs, _ := o["messages"].([]any)
	return msgs
}

// appendDerived appends the tool_call step of call p unless a tool span
// made it or it was derived before.
func (m *mapper) appendDerived(out []any, p map[string]any, responses map[string]any, spanID any) []any {
	id, _ := p["id"].(string)
	name, _ := p["name"].(string)
	name = nonEmpty(name, "tool")
	switch {
	case id != "" && (m.toolIDs[id] || m.derived[id]):
		return out
	case !m.toolIDs[id] && m.toolSeen[name] > 0:
		m.toolSeen[name]-- // the application's own span for it, without an id
		if id != "" {
			m.derived[id] = true // accounted for: not derived from a later input either
		}
		return out
	}
	if id != "" {
		m.derived[id] = true
	}
	meta := map[string]any{"derived": "messages", "span_id": spanID}
	step := map[string]any{"type": "tool_call", "name": name, "metadata": meta}
	if id != "" {
		meta["tool_call_id"] = id
	}
	if a := p["arguments"]; a != nil {
		step["args"] = object(a, "arguments")
	}
	if r := responses[id]; r != nil && id != "" {
		step["result"] = object(r, "result")
	}
	m.tools = true
	return append(out, step)
}

// partsOf lists the parts of normalised messages.
func partsOf(msgs []any) []map[string]any {
	var out []map[string]any
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		parts, _ := mm["parts"].([]any)
		for _, p := range parts {
			if pm, ok := p.(map[string]any); ok {
				out = append(out, pm)
			}
		}
	}
	return out
}
