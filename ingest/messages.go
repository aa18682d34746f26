// messages.go: GenAI message attributes (gen_ai.input.messages and friends) read as values and as text.

package ingest

import "strings"

// maxMessageJSON bounds a message attribute decoded from its JSON string.
const maxMessageJSON = 8 << 20

// messages reads a message attribute: a JSON string holding an array of
// messages (the conventions' recorded form), an array value, or (the
// deprecated gen_ai.prompt / gen_ai.completion) plain text, which becomes one
// message with the given role; normalised (normalize.go). What it maps is
// paid for from q (quota.go): the JSON string's elements are decoded one at
// a time, each once paid for, and an array value's messages cost as their
// text would; those q cannot pay for are dropped, counted.
func (q *quota) messages(v any, role string) []any {
	switch x := v.(type) {
	case []any:
		return q.normMessages(q.paid(x), role)
	case map[string]any:
		return q.normMessages(q.paid([]any{x}), role)
	case string:
		t := strings.TrimSpace(x)
		if strings.HasPrefix(t, "[") {
			if list, ok := q.list(t); ok {
				return q.normMessages(list, role)
			}
		} else if strings.HasPrefix(t, "{") {
			if d, ok := q.decode(t); ok { // paid for: normalised as it is
				return q.normMessages([]any{d}, role)
			}
		}
		if x == "" {
			return nil
		}
		return []any{map[string]any{"role": role, "parts": []any{textPart(x)}}}
	}
	return nil
}

// paid is the messages of a decoded list that q pays for, each as its
// text would cost; the rest are dropped, counted.
func (q *quota) paid(msgs []any) []any {
	out := msgs[:0:0]
	for _, m := range msgs {
		n, within := valueNodes(m, q.budgetNodes())
		if !within {
			q.dropped++
			continue
		}
		if q.take(units(n)) {
			out = append(out, m)
		}
	}
	return out
}

// text joins the text of messages, optionally only those with a role.
func text(msgs []any, role string) string {
	var b strings.Builder
	only := "" // the one text so far: returned as it is, not copied
	for _, m := range msgs {
		mm, ok := m.(map[string]any)
		if !ok {
			continue
		}
		if r, _ := mm["role"].(string); role != "" && r != role {
			continue
		}
		t := messageText(mm)
		switch {
		case t == "":
			continue
		case only == "" && b.Len() == 0:
			only = t
			continue
		case only != "":
			b.WriteString(only)
			only = ""
		}
		b.WriteByte('\n')
		b.WriteString(t)
	}
	if only != "" {
		return only
	}
	return b.String()
}

// lastText is the text of the last message with role (any role if "").
func lastText(msgs []any, role string) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		mm, ok := msgs[i].(map[string]any)
		if !ok {
			continue
		}
		if r, _ := mm["role"].(string); role != "" && r != role {
			continue
		}
		if t := messageText(mm); t != "" {
			return t
		}
	}
	return ""
}

// messageText is a message's text parts: the conventions' parts
// ({"type":"text","content":...}), or the older content string or
// content-part list ({"type":"text","text":...}).
func messageText(m map[string]any) string {
	if s, ok := m["content"].(string); ok {
		return s
	}
	parts, _ := m["parts"].([]any)
	if parts == nil {
		parts, _ = m["content"].([]any)
	}
	var b strings.Builder
	only := "" // the one text so far: returned as it is, not copied
	for _, p := range parts {
		pm, ok := p.(map[string]any)
		if !ok {
			continue
		}
		if t, _ := pm["type"].(string); t != "text" && t != "" {
			continue
		}
		s, ok := pm["content"].(string)
		if !ok {
			s, _ = pm["text"].(string)
		}
		switch {
		case s == "":
		case only == "" && b.Len() == 0:
			only = s
		default:
			b.WriteString(only)
			b.WriteString(s)
			only = ""
		}
	}
	if only != "" {
		return only
	}
	return b.String()
}
