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
	for _, s := range steps {
		st, _ := s.(map[string]any)
		if st["type"] != "llm_call" {
			continue
		}
		args, _ := st["args"].(map[string]any)
		msgs, _ := args["messages"].([]any)
		for _, p := range partsOf(msgs) {
			if p["type"] == "tool_call_response" {
				id, _ := p["id"].(string)
				if _, seen := responses[id]; id != "" && !seen {
					responses[id] = p["response"]
				}
			}
		}
		res, _ := st["result"].(map[string]any)
		out, _ := res["messages"].([]any)
		for _, p := range partsOf(out) {
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
	out := make([]any, 0, len(steps)+calls)
	for _, s := range steps {
		out = append(out, s)
		st, _ := s.(map[string]any)
		if st["type"] != "llm_call" {
			continue
		}
		res, _ := st["result"].(map[string]any)
		msgs, _ := res["messages"].([]any)
		spanID := st["metadata"].(map[string]any)["span_id"]
		for _, p := range partsOf(msgs) {
			if p["type"] != "tool_call" {
				continue
			}
			id, _ := p["id"].(string)
			name, _ := p["name"].(string)
			name = nonEmpty(name, "tool")
			switch {
			case id != "" && (m.toolIDs[id] || m.derived[id]):
				continue
			case !m.toolIDs[id] && m.toolSeen[name] > 0:
				m.toolSeen[name]-- // the application's own span for it, without an id
				continue
			}
			if id != "" {
				m.derived[id] = true
			}
			meta := map[string]any{"derived": "messages", "span_id": spanID}
			step := map[string]any{"type": "tool_call", "name": name, "metadata": meta}
			if id != "" {
				meta["tool_call_id"] = id
			}
			if a, ok := p["arguments"]; ok {
				step["args"] = object(a, "arguments")
			}
			if r, ok := responses[id]; ok && id != "" {
				step["result"] = object(r, "result")
			}
			out = append(out, step)
		}
	}
	return out
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
