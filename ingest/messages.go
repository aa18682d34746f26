// messages.go: GenAI message attributes (gen_ai.input.messages and friends) read as values and as text.

package ingest

import (
	"strings"

	"attest-engine/trace"
)

// maxMessageJSON bounds a message attribute decoded from its JSON string.
const maxMessageJSON = 8 << 20

// messages reads a message attribute: a JSON string holding an array of
// messages (the conventions' recorded form), an array value, or (the
// deprecated gen_ai.prompt / gen_ai.completion) plain text, which becomes one
// message with the given role; normalised (normalize.go).
func messages(v any, role string) []any {
	switch x := v.(type) {
	case []any:
		return normMessages(x, role)
	case map[string]any:
		return normMessages([]any{x}, role)
	case string:
		t := strings.TrimSpace(x)
		if len(t) <= maxMessageJSON && (strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{")) {
			if d, err := trace.Decode([]byte(t)); err == nil {
				return messages(d, role)
			}
		}
		if x == "" {
			return nil
		}
		return []any{map[string]any{"role": role, "parts": []any{textPart(x)}}}
	}
	return nil
}

// text joins the text of messages, optionally only those with a role.
func text(msgs []any, role string) string {
	var b strings.Builder
	for _, m := range msgs {
		mm, ok := m.(map[string]any)
		if !ok {
			continue
		}
		if r, _ := mm["role"].(string); role != "" && r != role {
			continue
		}
		t := messageText(mm)
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t)
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
		b.WriteString(s)
	}
	return b.String()
}
