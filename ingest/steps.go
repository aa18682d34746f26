// steps.go: llm_call, tool_call, retrieval and agent fields read from a span by every convention, each noted with its source.

package ingest

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
)

// first is the first of a span's attributes that is set, with its
// convention: names and conventions alternate.
func first(sp *Span, pairs ...string) (any, string) {
	for k := 0; k+1 < len(pairs); k += 2 {
		if v, ok := sp.Attrs[pairs[k]]; ok && v != nil {
			return v, pairs[k+1] + "/" + delivAttrs
		}
	}
	return nil, ""
}

func firstStr(sp *Span, pairs ...string) (string, string) {
	v, src := first(sp, pairs...)
	s, _ := v.(string)
	if s == "" {
		return "", ""
	}
	return s, src
}

// agentID is an agent span's own name for its agent: gen_ai.agent.name,
// gen_ai.agent.id, OpenInference's agent.name, OpenLLMetry's
// traceloop.entity.name; "" when it has none.
func (m *mapper) agentID(i int) string {
	if a := m.str(i, attrAgentName); a != "" {
		return a
	}
	if a := m.str(i, attrAgentID); a != "" {
		return a
	}
	a, _ := firstStr(&m.spans[i], "agent.name", convOI, tlName, convOLL)
	return a
}

func (m *mapper) agentName(i int) string {
	return nonEmpty(m.agentID(i), nonEmpty(m.spans[i].Name, opInvokeAgent))
}

// agentInput is the agent's last user message: gen_ai.input.messages, else
// OpenInference's input.value or OpenLLMetry's traceloop.entity.input.
func (m *mapper) agentInput(i int) string {
	return m.agentText(i, attrInputMessages, "user", "user", oiInput, tlInput)
}

// agentOutput is the agent's last output message, or its output value.
func (m *mapper) agentOutput(i int) string {
	return m.agentText(i, attrOutputMessages, "assistant", "", oiOutput, tlOutput)
}

// agentText is the text of the last message of attr (read with role as
// its messages' default role; last names the role to look for, "" any),
// else the span's OpenInference or OpenLLMetry value; each noted as the
// trace's content source.
func (m *mapper) agentText(i int, attr, role, last, oi, tl string) string {
	if v, src, ok := m.find(i, attr); ok {
		msgs := m.q.messages(v, role)
		m.captured = m.captured || carriesContent(msgs)
		m.source("content", src)
		return lastText(msgs, last)
	}
	if s, src := firstStr(&m.spans[i], oi, convOI, tl, convOLL); s != "" {
		m.captured = true
		m.source("content", src)
		return s
	}
	return ""
}

func (m *mapper) toolStep(i int) map[string]any {
	sp := &m.spans[i]
	name := m.str(i, attrToolName)
	if name == "" {
		name, _ = firstStr(sp, "tool.name", convOI, "ai.toolCall.name", convVercel, tlName, convOLL)
	}
	if name == "" {
		name = nonEmpty(trimOp(sp.Name, opExecuteTool), opExecuteTool)
	}
	s := m.step(i, "tool_call", name)
	m.tools = true
	id := m.str(i, attrToolCallID)
	if id == "" {
		id, _ = firstStr(sp, "tool_call.id", convOI, "tool.id", convOI, "ai.toolCall.id", convVercel)
	}
	if id != "" {
		s["metadata"].(map[string]any)["tool_call_id"] = id
	}
	args, src, ok := m.find(i, attrToolArgs)
	if !ok {
		args, src = first(sp, oiInput, convOI, "ai.toolCall.args", convVercel, "ai.toolCall.input", convVercel, tlInput, convOLL)
	}
	if args != nil {
		s["args"] = m.q.object(args, "arguments")
		m.source("tool_calls", src)
	}
	res, src, ok := m.find(i, attrToolResult)
	if !ok {
		res, src = first(sp, oiOutput, convOI, "ai.toolCall.result", convVercel, "ai.toolCall.output", convVercel, tlOutput, convOLL)
	}
	if res != nil {
		s["result"] = m.q.object(unwrapOutput(res), "result")
		m.source("tool_calls", src)
	}
	return s
}

// retrievalStep reads an OpenInference RETRIEVER span: the query
// (input.value) and retrieval.documents.N.document.{id, content, score}.
func (m *mapper) retrievalStep(i int) map[string]any {
	sp := &m.spans[i]
	s := m.step(i, "retrieval", nonEmpty(sp.Name, opRetrieval))
	if q, ok := sp.Attrs[oiInput].(string); ok {
		s["args"] = map[string]any{"query": q}
		m.captured = true
		m.source("content", convOI+"/"+delivAttrs)
	}
	var docs []any
	for _, d := range indexed(sp.Attrs, "retrieval.documents.") {
		doc := map[string]any{}
		for from, to := range map[string]string{"document.id": "id", "document.content": "text", "document.score": "score"} {
			if v, ok := d[from]; ok {
				doc[to] = v
			}
		}
		docs = append(docs, doc)
	}
	if docs != nil {
		s["result"] = map[string]any{"documents": docs}
	}
	return s
}

func (m *mapper) llmStep(i int, op string) map[string]any {
	sp := &m.spans[i]
	s := m.step(i, "llm_call", nonEmpty(sp.Name, op))
	args, result := map[string]any{"operation": op}, map[string]any{}
	model, src := m.str(i, attrResponseModel), ""
	if model == "" {
		model = m.str(i, attrRequestModel)
	}
	if model != "" {
		_, src, _ = m.find(i, attrResponseModel)
		if src == "" {
			_, src, _ = m.find(i, attrRequestModel)
		}
	} else {
		model, src = firstStr(sp, "llm.response.model_name", convOI, oiModel, convOI, "llm.request.model_name", convOI,
			"ai.response.model", convVercel, "ai.model.id", convVercel)
	}
	if model != "" {
		args["model"] = model
		m.source("model", src)
	}
	p := m.str(i, attrProvider)
	if p == "" {
		p, _ = firstStr(sp, "llm.provider", convOI, "llm.system", convOI, "ai.model.provider", convVercel)
	}
	if p != "" {
		args["provider"] = p
	}
	if in, src, ok := m.inputMessages(i); ok {
		args["messages"] = in
		args["prompt"] = text(in, "")
		m.source("content", src)
	}
	if v, ok := m.attr(i, attrSystemInstr); ok {
		args["system_instructions"] = v
	}
	if out, src, ok := m.outputMessages(i); ok {
		result["messages"] = out
		result["completion"] = text(out, "")
		m.source("content", src)
		if fr := lastFinish(out); fr != "" {
			result["finish_reason"] = fr
		}
	}
	m.usage(i, result)
	if fr, ok := sp.Attrs[attrFinishReasons].([]any); ok && len(fr) > 0 {
		if f, ok := fr[0].(string); ok {
			result["finish_reason"] = f
		}
	} else if f, _ := firstStr(sp, "llm.finish_reason", convOI, "ai.response.finishReason", convVercel); f != "" {
		result["finish_reason"] = f
	}
	if c, src := first(sp, "llm.cost.total", convOI, "gen_ai.usage.cost", convOLL); c != nil {
		if n, ok := asNumber(c); ok {
			s["metadata"].(map[string]any)["cost_usd"] = n
			m.cost = true
			m.source("cost", src)
		}
	}
	s["args"] = args
	if len(result) > 0 {
		s["result"] = result
	}
	return s
}

func lastFinish(msgs []any) string {
	for k := len(msgs) - 1; k >= 0; k-- {
		if mm, ok := msgs[k].(map[string]any); ok {
			if f, ok := mm["finish_reason"].(string); ok {
				return f
			}
		}
	}
	return ""
}

// inputMessages reads a model call's input by the first convention that
// carries it: gen_ai.input.messages (on the span, else its
// operation-details event, else the deprecated gen_ai.prompt), the
// event-per-message events, OpenInference's llm.input_messages,
// OpenLLMetry's gen_ai.prompt.N, the Vercel AI SDK's ai.prompt.messages.
// Content counts as captured when the messages carry some text,
// arguments or response, whatever form they came in.
func (m *mapper) inputMessages(i int) ([]any, string, bool) {
	if v, src, ok := m.find(i, attrInputMessages); ok {
		msgs := m.q.messages(v, "user")
		m.captured = m.captured || carriesContent(msgs)
		return msgs, src, true
	}
	return m.otherMessages(i, true)
}

func (m *mapper) outputMessages(i int) ([]any, string, bool) {
	if v, src, ok := m.find(i, attrOutputMessages); ok {
		msgs := m.q.messages(v, "assistant")
		m.captured = m.captured || carriesContent(msgs)
		return msgs, src, true
	}
	return m.otherMessages(i, false)
}

func (m *mapper) otherMessages(i int, input bool) ([]any, string, bool) {
	sp := &m.spans[i]
	em := m.eventMsgs(i)
	msgs, src := em.out, convEvents+"/"+em.deliv
	in := em.in
	if input {
		msgs = in
	}
	if len(msgs) == 0 {
		switch {
		case input:
			msgs, src = m.q.oiMessages(sp.Attrs, oiInMsgs, "user"), convOI+"/"+delivAttrs
		default:
			msgs, src = m.q.oiMessages(sp.Attrs, oiOutMsgs, "assistant"), convOI+"/"+delivAttrs
		}
	}
	if len(msgs) == 0 {
		switch {
		case input:
			msgs, src = m.q.tlMessages(sp.Attrs, tlPrompt, "user"), convOLL+"/"+delivAttrs
		default:
			msgs, src = m.q.tlMessages(sp.Attrs, tlCompletion, "assistant"), convOLL+"/"+delivAttrs
		}
	}
	if len(msgs) == 0 {
		var ok bool
		if input {
			msgs, ok = m.q.vercelInput(sp.Attrs)
		} else {
			msgs, ok = m.q.vercelOutput(sp.Attrs)
		}
		if !ok {
			return nil, "", false
		}
		src = convVercel + "/" + delivAttrs
	}
	if carriesContent(msgs) {
		m.captured = true
	}
	return msgs, src, true
}

// Token usage, normalised: input_tokens (which, as the current
// conventions define it, includes cached tokens), output_tokens, tokens
// (their sum; cached and reasoning tokens are parts of them, never added),
// cache_read_input_tokens, cache_creation_input_tokens, reasoning_tokens.
// Each is read from the first name set, in this order: the current
// registry (on the span or its operation-details event), its deprecated
// names, OpenInference, OpenLLMetry, the Vercel AI SDK (v5 names, then v4).
var usageNames = []struct {
	field string
	cur   string   // a current registry name, read with find ("" for none)
	other []string // name, convention pairs
}{
	{"input_tokens", attrInputTokens, []string{"llm.token_count.prompt", convOI, "ai.usage.inputTokens", convVercel, "ai.usage.promptTokens", convVercel}},
	{"output_tokens", attrOutputTokens, []string{"llm.token_count.completion", convOI, "ai.usage.outputTokens", convVercel, "ai.usage.completionTokens", convVercel}},
	{"cache_read_input_tokens", attrCacheRead, []string{"gen_ai.usage.cache_read_input_tokens", convOLL, "llm.token_count.prompt_details.cache_read", convOI, "ai.usage.cachedInputTokens", convVercel}},
	{"cache_creation_input_tokens", attrCacheCreation, []string{"gen_ai.usage.cache_creation_input_tokens", convOLL, "llm.token_count.prompt_details.cache_write", convOI}},
	{"reasoning_tokens", attrReasoning, []string{"gen_ai.usage.reasoning_tokens", convOLL, "llm.token_count.completion_details.reasoning", convOI, "ai.usage.reasoningTokens", convVercel}},
}

func (m *mapper) usage(i int, result map[string]any) {
	sp := &m.spans[i]
	var in, out json.Number
	okIn, okOut := false, false
	for _, u := range usageNames {
		n, src, ok := m.number(i, u.cur)
		if !ok {
			var v any
			v, src = first(sp, u.other...)
			n, ok = asNumber(v)
		}
		if !ok {
			continue
		}
		result[u.field] = n
		m.source("tokens", src)
		switch u.field {
		case "input_tokens":
			in, okIn = n, true
		case "output_tokens":
			out, okOut = n, true
		}
	}
	switch {
	case okIn || okOut:
		a, _ := in.Int64()
		b, _ := out.Int64()
		result["tokens"] = json.Number(strconv.FormatInt(a+b, 10))
	default: // only a total: OpenInference's llm.token_count.total, OpenLLMetry's llm.usage.total_tokens
		v, src := first(sp, "llm.token_count.total", convOI, "llm.usage.total_tokens", convOLL, "ai.usage.totalTokens", convVercel)
		n, ok := asNumber(v)
		if !ok {
			return
		}
		result["tokens"] = n
		m.source("tokens", src)
	}
	m.tokens = true
}

// addDecimal adds two decimal numbers exactly (costs in USD); a text that
// is not one leaves the sum as it was.
func addDecimal(sum, x string) string {
	a, ok := new(big.Rat).SetString(nonEmpty(sum, "0"))
	b, ok2 := new(big.Rat).SetString(x)
	if !ok || !ok2 {
		return sum
	}
	a.Add(a, b)
	s := a.FloatString(12)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
