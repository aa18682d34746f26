// semconv.go: the OpenTelemetry GenAI semantic-convention names read, and the deprecated ones with their warnings.

package ingest

import (
	"encoding/json"
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
	attrCacheRead      = "gen_ai.usage.cache_read.input_tokens"
	attrCacheCreation  = "gen_ai.usage.cache_creation.input_tokens"
	attrReasoning      = "gen_ai.usage.reasoning.output_tokens"
)

// GenAI event names (gen-ai-events): one event per message, and the
// operation-details event carrying the message attributes above. They come
// as span events (attributes hold the body's fields) or as log records
// (named by the record's event_name or its event.name attribute, the body
// holding the fields).
const (
	evSystem  = "gen_ai.system.message"
	evUser    = "gen_ai.user.message"
	evAssist  = "gen_ai.assistant.message"
	evTool    = "gen_ai.tool.message"
	evChoice  = "gen_ai.choice"
	evDetails = "gen_ai.client.inference.operation.details"
	evPrompt  = "gen_ai.content.prompt"     // deprecated: attribute gen_ai.prompt
	evOutput  = "gen_ai.content.completion" // deprecated: attribute gen_ai.completion
)

// genaiEvents are the events a span keeps whole (eventKeeper) and the log
// records joined to spans (logs.go).
var genaiEvents = map[string]bool{evSystem: true, evUser: true, evAssist: true, evTool: true, evChoice: true,
	evDetails: true, evPrompt: true, evOutput: true}

// eventRole is the role of an event-per-message event's message.
var eventRole = map[string]string{evSystem: "system", evUser: "user", evAssist: "assistant", evTool: "tool", evChoice: "assistant"}

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

// find reads a current attribute of span i: on the span, else on its
// operation-details event (a span event or a log record), else by its
// deprecated name on the span or on a span event (the gen_ai.content.*
// events that carried gen_ai.prompt and gen_ai.completion); with where it
// was found (convention "/" delivery).
func (m *mapper) find(i int, name string) (any, string, bool) {
	sp := &m.spans[i]
	if v, ok := sp.Attrs[name]; ok && v != nil {
		return v, convGenAI + "/" + delivAttrs, true
	}
	if v, deliv, ok := detailsAttr(m.spanEvents(i), name); ok {
		return v, convDetails + "/" + deliv, true
	}
	old, ok := replacedBy()[name]
	if !ok {
		return nil, "", false
	}
	if v, ok := sp.Attrs[old]; ok && v != nil {
		m.warn.once(old)
		return v, convDeprecated + "/" + delivAttrs, true
	}
	for _, e := range m.spanEvents(i) {
		if v, ok := e.Attrs[old]; ok && v != nil {
			m.warn.once(old)
			return v, convDeprecated + "/" + delivery(&e), true
		}
	}
	return nil, "", false
}

func (m *mapper) attr(i int, name string) (any, bool) {
	v, _, ok := m.find(i, name)
	return v, ok
}

func (m *mapper) str(i int, name string) string {
	v, _ := m.attr(i, name)
	s, _ := v.(string)
	return s
}

// number reads an integer-valued attribute; ok is false when it is absent
// or not a number.
func (m *mapper) number(i int, name string) (json.Number, string, bool) {
	v, src, _ := m.find(i, name)
	n, ok := asNumber(v)
	return n, src, ok
}

// asNumber is a number value, or a string holding one (a lenient exporter
// that sends "42" as a string).
func asNumber(v any) (json.Number, bool) {
	switch n := v.(type) {
	case json.Number:
		return n, true
	case string:
		if d, err := trace.Decode([]byte(n)); err == nil {
			if num, ok := d.(json.Number); ok {
				return num, true
			}
		}
	}
	return "", false
}
