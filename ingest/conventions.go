// conventions.go: which convention names a span's operation (GenAI, OpenInference, OpenLLMetry, Vercel AI SDK), and the indexed attributes some of them flatten messages into.

package ingest

import (
	"slices"
	"strconv"
	"strings"
)

// Conventions and deliveries, as metadata.otel.sources names them
// (convention "/" delivery).
const (
	convGenAI      = "gen_ai"                   // the registry attributes on spans
	convDeprecated = "gen_ai-deprecated"        // gen_ai.prompt, gen_ai.completion, prompt/completion_tokens, gen_ai.system
	convEvents     = "gen_ai-events"            // gen_ai.{system,user,assistant,tool}.message and gen_ai.choice
	convDetails    = "gen_ai-operation-details" // gen_ai.client.inference.operation.details
	convOI         = "openinference"
	convOLL        = "openllmetry"
	convVercel     = "vercel-ai"

	delivAttrs  = "span-attributes"
	delivEvents = "span-events"
	delivLogs   = "log-records"
)

// Attribute names of the other conventions read.
const (
	oiKind        = "openinference.span.kind"
	oiModel       = "llm.model_name"
	oiInput       = "input.value"
	oiOutput      = "output.value"
	oiInMsgs      = "llm.input_messages."
	oiOutMsgs     = "llm.output_messages."
	tlKind        = "traceloop.span.kind"
	tlName        = "traceloop.entity.name"
	tlInput       = "traceloop.entity.input"
	tlOutput      = "traceloop.entity.output"
	tlRequestType = "llm.request.type"
	tlPrompt      = "gen_ai.prompt."
	tlCompletion  = "gen_ai.completion."
	aiOperation   = "ai.operationId"
)

// classify is a span's operation (one of the op* names, "retrieval", or ""
// for a span read through) and the convention that named it:
// gen_ai.operation.name; OpenInference's span kind; OpenLLMetry's
// traceloop.span.kind and llm.request.type; the Vercel AI SDK's
// operation id; else the span name's first word, which the GenAI
// conventions make "{gen_ai.operation.name} {target}".
func classify(sp *Span) (op, conv string) {
	if op, ok := sp.Attrs[attrOperation].(string); ok && op != "" {
		return op, convGenAI
	}
	if k, ok := sp.Attrs[oiKind].(string); ok {
		switch strings.ToUpper(k) {
		case "LLM":
			return opChat, convOI
		case "TOOL":
			return opExecuteTool, convOI
		case "AGENT":
			return opInvokeAgent, convOI
		case "RETRIEVER":
			return opRetrieval, convOI
		}
		return "", convOI // CHAIN, EMBEDDING and the rest: read through
	}
	if k, ok := sp.Attrs[tlKind].(string); ok {
		switch k {
		case "agent":
			return opInvokeAgent, convOLL
		case "tool":
			return opExecuteTool, convOLL
		}
		return "", convOLL // workflow, task
	}
	if t, ok := sp.Attrs[tlRequestType].(string); ok {
		switch t {
		case "chat":
			return opChat, convOLL
		case "completion":
			return opCompletion, convOLL
		}
	}
	id, _ := sp.Attrs[aiOperation].(string)
	if id == "" && strings.HasPrefix(sp.Name, "ai.") {
		id, _, _ = strings.Cut(sp.Name, " ")
	}
	if strings.HasPrefix(id, "ai.") {
		switch {
		case id == "ai.toolCall":
			return opExecuteTool, convVercel
		case strings.HasSuffix(id, ".doGenerate"), strings.HasSuffix(id, ".doStream"):
			return opChat, convVercel
		}
		return "", convVercel // ai.generateText, ai.streamText: the loop around the calls
	}
	name, _, _ := strings.Cut(sp.Name, " ")
	switch name {
	case opInvokeAgent, opExecuteTool, opChat, opGenerate, opCompletion:
		return name, convGenAI
	}
	return "", ""
}

// opRetrieval is a retrieval step (spec §3.3), from OpenInference's
// RETRIEVER spans.
const opRetrieval = "retrieval"

// maxIndex bounds the index of an indexed attribute (llm.input_messages.N…,
// gen_ai.prompt.N…): a larger one is not read.
const maxIndex = 100000

// indexed gathers the attributes prefix + "N." + rest into one map per
// index N (rest → value), in index order: OpenInference and OpenLLMetry
// flatten lists so, as span attributes hold no objects.
func indexed(attrs map[string]any, prefix string) []map[string]any {
	var byIndex map[int]map[string]any
	for k, v := range attrs {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		num, field, ok := strings.Cut(rest, ".")
		if !ok || field == "" || num == "" || len(num) > 6 {
			continue
		}
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 || n > maxIndex || strconv.Itoa(n) != num {
			continue
		}
		if byIndex == nil {
			byIndex = map[int]map[string]any{}
		}
		if byIndex[n] == nil {
			byIndex[n] = map[string]any{}
		}
		byIndex[n][field] = v
	}
	if byIndex == nil {
		return nil
	}
	keys := make([]int, 0, len(byIndex))
	for n := range byIndex {
		keys = append(keys, n)
	}
	slices.Sort(keys)
	out := make([]map[string]any, len(keys))
	for i, n := range keys {
		out[i] = byIndex[n]
	}
	return out
}

// oiMessages reads OpenInference's flattened messages (prefix
// llm.input_messages. or llm.output_messages.) into the OpenAI shape that
// normMessage reads.
func oiMessages(attrs map[string]any, prefix, role string) []any {
	var out []any
	for _, f := range indexed(attrs, prefix) {
		m := map[string]any{}
		if r, ok := f["message.role"].(string); ok {
			m["role"] = r
		}
		if c, ok := f["message.content"]; ok {
			m["content"] = c
		} else if cs := indexed(f, "message.contents."); cs != nil {
			var parts []any
			for _, c := range cs {
				parts = append(parts, map[string]any{"type": c["message_content.type"], "text": c["message_content.text"]})
			}
			m["content"] = parts
		}
		if id, ok := f["message.tool_call_id"].(string); ok {
			m["tool_call_id"] = id
		}
		if n, ok := f["message.name"].(string); ok {
			m["name"] = n
		}
		var calls []any
		for _, c := range indexed(f, "message.tool_calls.") {
			call := map[string]any{"name": c["tool_call.function.name"]}
			if id, ok := c["tool_call.id"].(string); ok {
				call["id"] = id
			}
			if a, ok := c["tool_call.function.arguments"]; ok {
				call["arguments"] = a
			}
			calls = append(calls, call)
		}
		if calls != nil {
			m["tool_calls"] = calls
		}
		out = append(out, m)
	}
	return normMessages(out, role)
}

// tlMessages reads OpenLLMetry's indexed messages (gen_ai.prompt.N.* or
// gen_ai.completion.N.*: role, content, tool_call_id, finish_reason,
// tool_calls.K.{id, name, arguments}, function_call.{name, arguments}).
func tlMessages(attrs map[string]any, prefix, role string) []any {
	var out []any
	for _, f := range indexed(attrs, prefix) {
		m := map[string]any{}
		for _, k := range []string{"role", "content", "tool_call_id", "finish_reason"} {
			if v, ok := f[k]; ok {
				m[k] = v
			}
		}
		var calls []any
		for _, c := range indexed(f, "tool_calls.") {
			calls = append(calls, c)
		}
		if name, ok := f["function_call.name"]; ok {
			calls = append(calls, map[string]any{"name": name, "arguments": f["function_call.arguments"]})
		}
		if calls != nil {
			m["tool_calls"] = calls
		}
		out = append(out, m)
	}
	return normMessages(out, role)
}

// vercelOutput is the assistant message of a Vercel AI SDK call:
// ai.response.text and ai.response.toolCalls (JSON text of
// [{toolCallId, toolName, args | input}]).
func vercelOutput(attrs map[string]any) ([]any, bool) {
	text, okText := attrs["ai.response.text"].(string)
	calls, okCalls := attrs["ai.response.toolCalls"]
	if !okText && !okCalls {
		return nil, false
	}
	m := map[string]any{"role": "assistant"}
	if okText {
		m["content"] = text
	}
	if list, ok := decodeJSONish(calls).([]any); ok {
		m["tool_calls"] = list
	}
	if fr, ok := attrs["ai.response.finishReason"].(string); ok {
		m["finish_reason"] = fr
	}
	return normMessages([]any{m}, "assistant"), true
}

// vercelInput is ai.prompt.messages (the call's messages, JSON text), else
// ai.prompt (JSON text of {system, prompt, messages}).
func vercelInput(attrs map[string]any) ([]any, bool) {
	if v, ok := attrs["ai.prompt.messages"]; ok {
		if list, ok := decodeJSONish(v).([]any); ok {
			return normMessages(list, "user"), true
		}
	}
	p, ok := decodeJSONish(attrs["ai.prompt"]).(map[string]any)
	if !ok {
		return nil, false
	}
	var msgs []any
	if s, ok := p["system"].(string); ok {
		msgs = append(msgs, map[string]any{"role": "system", "content": s})
	}
	if list, ok := p["messages"].([]any); ok {
		msgs = append(msgs, list...)
	}
	if s, ok := p["prompt"].(string); ok {
		msgs = append(msgs, map[string]any{"role": "user", "content": s})
	}
	return normMessages(msgs, "user"), true
}

// LookedFor names, for a field ("content", "tokens" or "cost"), the
// conventions and deliveries the mapping reads it from: what a check
// skipped for its absence says was looked for.
func LookedFor(field string) string {
	switch field {
	case "content":
		return "gen_ai.input/output.messages (span attributes or the operation-details event), gen_ai.*.message and gen_ai.choice events (span events or log records), " +
			"OpenInference llm.*_messages, OpenLLMetry gen_ai.prompt.N/completion.N, Vercel AI SDK ai.prompt/ai.response.*, deprecated gen_ai.prompt/completion"
	case "tokens":
		return "gen_ai.usage.* (span attributes or the operation-details event), OpenInference llm.token_count.*, OpenLLMetry llm.usage.*, Vercel AI SDK ai.usage.*"
	case "cost":
		return "OpenInference llm.cost.total, gen_ai.usage.cost (span attributes)"
	case "tools":
		return "execute_tool spans, OpenInference TOOL, OpenLLMetry tool and Vercel AI SDK ai.toolCall spans"
	}
	return ""
}
