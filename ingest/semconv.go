// semconv.go: the OpenTelemetry GenAI semantic-convention names read, and the deprecated ones with their warnings.

package ingest

import (
	"encoding/json"
	"strings"
	"sync"

	"attest-engine/trace"
)

// Attribute names of the OpenTelemetry GenAI semantic conventions
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/).
const (
	attrOperation      = "gen_ai.operation.name"
	attrAgentName      = "gen_ai.agent.name"
	attrAgentID        = "gen_ai.agent.id"
	attrToolName       = "gen_ai.tool.name"
	attrToolCallID     = "gen_ai.tool.call.id"
	attrToolArgs       = "gen_ai.tool.call.arguments"
	attrToolResult     = "gen_ai.tool.call.result"
	attrRequestModel   = "gen_ai.request.model"
	attrResponseModel  = "gen_ai.response.model"
	attrInputTokens    = "gen_ai.usage.input_tokens"
	attrOutputTokens   = "gen_ai.usage.output_tokens"
	attrProvider       = "gen_ai.provider.name"
	attrInputMessages  = "gen_ai.input.messages"
	attrOutputMessages = "gen_ai.output.messages"
	attrSystemInstr    = "gen_ai.system_instructions"
	attrFinishReasons  = "gen_ai.response.finish_reasons"
)

// Operation names (gen_ai.operation.name) that become Attest steps.
const (
	opInvokeAgent = "invoke_agent"
	opExecuteTool = "execute_tool"
	opChat        = "chat"
	opGenerate    = "generate_content"
	opCompletion  = "text_completion"
)

// deprecated maps each deprecated attribute name to its replacement. They
// are read when the replacement is absent, with one warning per name per
// process.
var deprecated = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"gen_ai.system":                  attrProvider,
		"gen_ai.usage.prompt_tokens":     attrInputTokens,
		"gen_ai.usage.completion_tokens": attrOutputTokens,
		"gen_ai.prompt":                  attrInputMessages,
		"gen_ai.completion":              attrOutputMessages,
	}
})

// deprecatedNames are deprecated's keys, sorted: the attributes a span's
// events are read for (parseEvents).
var deprecatedNames = [...]string{"gen_ai.completion", "gen_ai.prompt", "gen_ai.system", "gen_ai.usage.completion_tokens", "gen_ai.usage.prompt_tokens"}

// replacedBy is deprecated reversed: the old name to try for a current one.
var replacedBy = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for old, cur := range deprecated() {
		m[cur] = old
	}
	return m
})

// Warnings reports each deprecated attribute name once, to Func.
type Warnings struct {
	Func func(msg string) // nil: no warnings
	mu   sync.Mutex
	seen map[string]bool
}

func (w *Warnings) once(old string) {
	if w == nil || w.Func == nil {
		return
	}
	w.mu.Lock()
	first := !w.seen[old]
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	w.seen[old] = true
	w.mu.Unlock()
	if first {
		w.Func("span attribute " + old + " is deprecated in the OpenTelemetry GenAI semantic conventions; read as " + deprecated()[old] + " (this warning is shown once)")
	}
}

// attr reads a current attribute, falling back to its deprecated name. For
// messages the deprecated form may also be an event of the same name
// (gen_ai.content.prompt / gen_ai.content.completion events).
func (m *mapper) attr(sp *Span, name string) (any, bool) {
	if v, ok := sp.Attrs[name]; ok && v != nil {
		return v, true
	}
	old, ok := replacedBy()[name]
	if !ok {
		return nil, false
	}
	if v, ok := sp.Attrs[old]; ok && v != nil {
		m.warn.once(old)
		return v, true
	}
	for _, e := range sp.Events {
		if v, ok := e.Attrs[old]; ok && v != nil {
			m.warn.once(old)
			return v, true
		}
	}
	return nil, false
}

func (m *mapper) str(sp *Span, name string) string {
	v, _ := m.attr(sp, name)
	s, _ := v.(string)
	return s
}

// number reads an integer-valued attribute; ok is false when it is absent
// or not a number.
func (m *mapper) number(sp *Span, name string) (json.Number, bool) {
	v, _ := m.attr(sp, name)
	switch n := v.(type) {
	case json.Number:
		return n, true
	case string: // a lenient exporter that sends "42" as a string
		if d, err := trace.Decode([]byte(n)); err == nil {
			if num, ok := d.(json.Number); ok {
				return num, true
			}
		}
	}
	return "", false
}

// operation is gen_ai.operation.name, or the span name's first word, which
// the conventions make "{gen_ai.operation.name} {target}".
func operation(sp *Span) string {
	if op, ok := sp.Attrs[attrOperation].(string); ok && op != "" {
		return op
	}
	name := sp.Name
	if i := strings.IndexByte(name, ' '); i >= 0 {
		name = name[:i]
	}
	switch name {
	case opInvokeAgent, opExecuteTool, opChat, opGenerate, opCompletion:
		return name
	}
	return ""
}
