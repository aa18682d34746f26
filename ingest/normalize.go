// normalize.go: messages of every shape producers send, normalised to the GenAI conventions' role-and-parts form.

package ingest

import (
	"fmt"
	"strings"

	"attest-engine/trace"
)

// Every message read, whatever its convention, becomes the current GenAI
// conventions' form (gen-ai-input-messages.json):
//
//	{"role": "user", "parts": [{"type": "text", "content": "…"}], "finish_reason": "stop"}
//
// with parts of type text, tool_call {id, name, arguments} and
// tool_call_response {id, response}; a part of any other type is kept as
// sent. Arguments and responses sent as JSON text are decoded when they
// hold an object or an array, so that one call reads the same whichever
// convention carried it.
//
// Shapes read: the conventions' parts; a content string or content-part
// list (OpenAI chat, the event bodies, Vercel's ai.prompt.messages,
// Anthropic's blocks, Responses API items); tool_calls
// [{id, function: {name, arguments}}] and function_call; a tool message's
// tool_call_id (or, in a gen_ai.tool.message body, id); and a choice's
// {message, finish_reason}.

// normMessages normalises a list of messages; role is the role of one
// without its own.
func normMessages(msgs []any, role string) []any {
	return normList(msgs, role, 0)
}

func normList(msgs []any, role string, depth int) []any {
	out := make([]any, 0, len(msgs))
	for _, m := range msgs {
		n := normMessage(m, role)
		if n == nil {
			continue
		}
		if inner := embedded(n); inner != nil && depth == 0 {
			out = append(out, normList(inner, role, depth+1)...)
			continue
		}
		out = append(out, n)
	}
	return out
}

// embedded is the list a message holds as its only text when that text is
// the JSON of a list of messages or Responses API items (Traceloop records
// a Responses call's input so), else nil.
func embedded(m map[string]any) []any {
	parts, _ := m["parts"].([]any)
	if len(parts) != 1 {
		return nil
	}
	p, _ := parts[0].(map[string]any)
	s, _ := p["content"].(string)
	if p["type"] != "text" || !strings.HasPrefix(strings.TrimSpace(s), "[") {
		return nil
	}
	list, _ := decodeJSONish(s).([]any)
	if len(list) == 0 {
		return nil
	}
	for _, e := range list {
		em, ok := e.(map[string]any)
		if !ok {
			return nil
		}
		if _, ok := em["role"].(string); !ok && !responsesItems[fmt.Sprint(em["type"])] {
			return nil
		}
	}
	return list
}

// responsesItems are the Responses API's input and output item types read
// as messages.
var responsesItems = map[string]bool{"message": true, "function_call": true, "function_call_output": true}

// normMessage normalises one message; nil when it is not an object.
func normMessage(v any, role string) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		if s, ok := v.(string); ok { // a body that is only the text
			return map[string]any{"role": role, "parts": []any{textPart(s)}}
		}
		return nil
	}
	inner, ok := m["message"].(map[string]any)
	if s, isText := m["message"].(string); isText { // a span event's attribute: JSON text
		inner, ok = decodeJSONish(s).(map[string]any)
	}
	if ok { // a choice: {index, finish_reason, message}
		out := normMessage(inner, role)
		if fr, ok := m["finish_reason"].(string); ok && out["finish_reason"] == nil {
			out["finish_reason"] = fr
		}
		return out
	}
	switch m["type"] { // a Responses API item without a role
	case "function_call":
		if _, ok := m["role"]; !ok {
			return map[string]any{"role": "assistant", "parts": []any{toolCallPart(m)}}
		}
	case "function_call_output":
		if _, ok := m["role"]; !ok {
			return map[string]any{"role": "tool", "parts": []any{normPart(m)}}
		}
	}
	if r, ok := m["role"].(string); ok && r != "" {
		role = r
	}
	out := map[string]any{"role": role}
	parts := []any{}
	if ps, ok := m["parts"].([]any); ok {
		for _, p := range ps {
			parts = append(parts, normPart(p))
		}
	}
	callID := firstString(m, "tool_call_id", "tool_use_id")
	if callID == "" && role == "tool" {
		callID, _ = m["id"].(string)
	}
	switch c := m["content"].(type) {
	case string:
		if role == "tool" {
			parts = append(parts, map[string]any{"type": "tool_call_response", "id": callID, "response": decodeJSONish(c)})
		} else {
			parts = append(parts, textPart(c))
		}
	case []any:
		for _, p := range c {
			parts = append(parts, normPart(p))
		}
	case map[string]any:
		parts = append(parts, normPart(c))
	}
	if calls, ok := m["tool_calls"].([]any); ok {
		for _, c := range calls {
			parts = append(parts, toolCallPart(c))
		}
	} else if s, ok := m["tool_calls"].(string); ok { // a span event's attribute: JSON text
		if calls, ok := decodeJSONish(s).([]any); ok {
			for _, c := range calls {
				parts = append(parts, toolCallPart(c))
			}
		}
	}
	if fc, ok := m["function_call"].(map[string]any); ok {
		parts = append(parts, toolCallPart(fc))
	}
	if role == "tool" {
		parts = toolResponse(parts, callID)
	}
	out["parts"] = parts
	if fr, ok := m["finish_reason"].(string); ok {
		out["finish_reason"] = fr
	}
	if n, ok := m["name"].(string); ok && n != "" {
		out["name"] = n
	}
	return out
}

// toolResponse makes the text parts of a tool message (OpenInference's
// message.contents, a content-part list) its one tool_call_response, when
// it has none.
func toolResponse(parts []any, id string) []any {
	var text strings.Builder
	texts := 0
	for _, p := range parts {
		pm, _ := p.(map[string]any)
		switch pm["type"] {
		case "tool_call_response":
			return parts
		case "text":
			s, _ := pm["content"].(string)
			text.WriteString(s)
			texts++
		}
	}
	if texts == 0 {
		return parts
	}
	out := []any{map[string]any{"type": "tool_call_response", "id": id, "response": decodeJSONish(text.String())}}
	for _, p := range parts {
		if pm, _ := p.(map[string]any); pm["type"] != "text" {
			out = append(out, p)
		}
	}
	return out
}

func textPart(s string) map[string]any { return map[string]any{"type": "text", "content": s} }

// normPart normalises one content part.
func normPart(v any) any {
	p, ok := v.(map[string]any)
	if !ok {
		if s, ok := v.(string); ok {
			return textPart(s)
		}
		return v
	}
	typ, _ := p["type"].(string)
	switch typ {
	case "", "text", "input_text", "output_text":
		if s, ok := p["content"].(string); ok {
			return textPart(s)
		}
		if s, ok := p["text"].(string); ok {
			return textPart(s)
		}
	case "tool_call", "tool-call", "tool_use", "function_call":
		return toolCallPart(p)
	case "tool_call_response", "tool-result", "tool_result", "function_call_output":
		out := map[string]any{"type": "tool_call_response", "id": firstString(p, "id", "toolCallId", "tool_use_id", "call_id")}
		for _, k := range []string{"response", "result", "output", "content"} {
			if r, ok := p[k]; ok {
				out["response"] = toolOutput(r)
				break
			}
		}
		return out
	}
	return p
}

// toolOutput unwraps Vercel's typed tool output ({"type": "json" or
// "text", "value": …}) and decodes JSON text.
func toolOutput(v any) any {
	if m, ok := v.(map[string]any); ok && len(m) == 2 {
		if t, _ := m["type"].(string); t == "json" || t == "text" {
			if val, ok := m["value"]; ok {
				v = val
			}
		}
	}
	return decodeJSONish(v)
}

// toolCallPart reads a tool call of any shape: the conventions' part,
// OpenAI's {id, type: "function", function: {name, arguments}}, Vercel's
// {toolCallId, toolName, args | input}, Anthropic's tool_use, the
// Responses API's function_call item, and the indexed conventions' flat
// {id, name, arguments}.
func toolCallPart(v any) any {
	c, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{"type": "tool_call"}
	if id := firstString(c, "call_id", "id", "toolCallId"); id != "" {
		out["id"] = id
	}
	src := c
	if fn, ok := c["function"].(map[string]any); ok {
		src = fn
	}
	if name := firstString(src, "name", "toolName"); name != "" {
		out["name"] = name
	}
	for _, k := range []string{"arguments", "args", "input"} {
		if a, ok := src[k]; ok && a != nil {
			out["arguments"] = decodeJSONish(a)
			break
		}
	}
	return out
}

// decodeJSONish decodes JSON text holding an object or an array; anything
// else is returned as it is.
func decodeJSONish(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	t := strings.TrimSpace(s)
	if len(t) > maxMessageJSON || !(strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) {
		return v
	}
	if d, err := trace.Decode([]byte(t)); err == nil {
		return d
	}
	return v
}

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// carriesContent reports whether normalised messages hold any content: a
// text, a tool call's arguments or a tool's response (null is none). With
// capture off, producers still send the events, and some the message
// attributes, without these.
func carriesContent(msgs []any) bool {
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		parts, _ := mm["parts"].([]any)
		for _, p := range parts {
			pm, _ := p.(map[string]any)
			switch pm["type"] {
			case "text":
				if s, _ := pm["content"].(string); s != "" {
					return true
				}
			case "tool_call":
				if pm["arguments"] != nil {
					return true
				}
			case "tool_call_response":
				if pm["response"] != nil {
					return true
				}
			default:
				return true
			}
		}
	}
	return false
}
