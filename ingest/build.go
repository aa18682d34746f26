// build.go: the spans of one trace turned into an Attest trace (spec §3): agents, tools, model calls.

package ingest

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"attest-engine/tape"
	"attest-engine/trace"
)

// Trace is one trace ready for evaluation, from either input format.
type Trace struct {
	ID      string // the trace id ("" when the input had none)
	AgentID string // the trace's agent_id when it is a string, else ""
	// Value is the Attest trace (spec §3.1) assembled from spans (OTLP
	// input); nil for Attest input, which Doc holds, and when Err is set.
	Value map[string]any
	// Doc is the Attest trace's line, parsed (Attest input), for evaluation
	// to read in place; nil for a trace assembled from spans. Whoever is
	// done with the trace may Release it.
	Doc *tape.Doc
	Err error // the input could not be read as a trace
	// Incomplete marks a trace that was evaluated without all its spans:
	// evicted by a bound, spans dropped, or closed before its root ended.
	Incomplete bool
	// ContentCaptured is false for an OTLP trace whose spans carry no
	// messages: content, embedding and judge assertions cannot be judged.
	ContentCaptured bool
	Format          string // "attest" or "otlp"
	Size            int    // bytes of input text it was made from
	// Digest identifies an unreadable line (Err set) by its text: the
	// first 16 bytes of its SHA-256, hex.
	Digest string
	// Seq is the position in the input of the item that began the trace
	// (Item.Seq): every process reading the same input agrees on it,
	// whatever its shard or sample.
	Seq uint64
	// Through and Spans: for a trace assembled from spans, the greatest Seq
	// of its spans and how many spans its verdict judges (Prior.Spans plus
	// Late for one TooLate).
	Through uint64
	Spans   int
	// Prior is the verdict this trace's supersedes (settle.go); nil for a
	// first verdict.
	Prior *Prior
	// TooLate: Late spans came after the verdict Prior, when the trace's
	// earlier spans were no longer held: nothing is evaluated (Value is
	// nil), the verdict stands, and its lines say so.
	TooLate bool
	Late    int
	// Hold is released (Done) once the trace's verdict is recorded.
	Hold *Hold
}

// Mapper turns assembled span groups into Attest traces. It is safe for
// concurrent use.
type Mapper struct {
	Warn *Warnings
}

type mapper struct {
	warn     *Warnings
	spans    []Span
	children map[string][]int // parent span id → span indexes, by start time
	used     []bool
	captured bool
	steps    int
}

// Trace maps a group by the GenAI semantic conventions:
//
//   - invoke_agent spans are the trace and its sub_traces, agent_id from
//     gen_ai.agent.name, else gen_ai.agent.id;
//   - execute_tool spans are tool_call steps (gen_ai.tool.name,
//     gen_ai.tool.call.arguments, gen_ai.tool.call.result);
//   - chat, generate_content and text_completion spans are llm_call steps
//     (gen_ai.response.model, else gen_ai.request.model; token usage);
//   - other spans are transparent: their children are read in their place.
//
// Steps are in start-time order, depth first. Latencies come from span
// times.
func (mp *Mapper) Trace(g Group) Trace {
	m := &mapper{warn: mp.Warn, spans: g.Spans, children: map[string][]int{}, used: make([]bool, len(g.Spans))}
	ids := make(map[string]bool, len(g.Spans))
	size := 0
	for _, sp := range g.Spans {
		ids[sp.SpanID] = true
		size += sp.Size
	}
	var tops []int
	for i, sp := range g.Spans {
		if sp.ParentID == "" || !ids[sp.ParentID] || sp.ParentID == sp.SpanID {
			tops = append(tops, i)
		} else {
			m.children[sp.ParentID] = append(m.children[sp.ParentID], i)
		}
	}
	m.sortByStart(tops)
	for k := range m.children {
		m.sortByStart(m.children[k])
	}
	// The trace's own agent: the one outermost invoke_agent span, if there
	// is exactly one; with none or several, each is an agent_call step.
	self := -1
	if outer := m.outermostAgents(tops); len(outer) == 1 {
		self = outer[0]
	}
	root := m.traceObject(g.TraceID, "", self, tops, 0)
	unreached := 0
	for _, u := range m.used {
		if !u {
			unreached++ // parent links that form a cycle: no top reaches them
		}
	}
	meta := root["metadata"].(map[string]any)
	otel := map[string]any{"trace_id": g.TraceID, "spans": num(len(g.Spans)), "closed": g.Reason,
		"content_captured": m.captured}
	incomplete := g.Incomplete || unreached > 0
	if incomplete {
		otel["incomplete"] = true
	}
	if g.Dropped > 0 {
		otel["dropped_spans"] = num(g.Dropped)
	}
	if unreached > 0 {
		otel["unreachable_spans"] = num(unreached)
	}
	if len(tops) > 0 && g.Spans[tops[0]].Service != "" {
		otel["service_name"] = g.Spans[tops[0]].Service
	}
	meta["otel"] = otel
	agent, _ := root["agent_id"].(string)
	return Trace{ID: g.TraceID, AgentID: agent, Value: root, Incomplete: incomplete, ContentCaptured: m.captured, Format: "otlp", Size: size, Seq: g.Seq}
}

func (m *mapper) sortByStart(idx []int) {
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(m.spans[a].Start, m.spans[b].Start) })
}

// outermostAgents are the invoke_agent spans with no invoke_agent above.
func (m *mapper) outermostAgents(tops []int) []int {
	var out []int
	seen := make([]bool, len(m.spans))
	stack := slices.Clone(tops)
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[i] {
			continue
		}
		seen[i] = true
		if operation(&m.spans[i]) == opInvokeAgent {
			out = append(out, i)
			continue
		}
		stack = append(stack, m.children[m.spans[i].SpanID]...)
	}
	slices.Sort(out)
	m.sortByStart(out)
	return out
}

// traceObject builds a trace (root or sub_trace) for agent span self (-1:
// none) whose steps come from the spans in under, at nesting depth.
func (m *mapper) traceObject(id, parent string, self int, under []int, depth int) map[string]any {
	t := map[string]any{"schema_version": num(trace.CurrentSchemaVersion), "trace_id": id}
	if parent != "" {
		t["parent_trace_id"] = parent
	}
	steps := []any{}
	var llm []map[string]any // the llm_call steps, for input and output fallbacks
	m.walk(under, self, id, depth, &steps, &llm)
	t["steps"] = steps

	input, output := map[string]any{}, map[string]any{}
	meta := map[string]any{}
	var first, last int64
	failed := false
	if self >= 0 {
		sp := &m.spans[self]
		if a := m.str(sp, attrAgentName); a != "" {
			t["agent_id"] = a
		} else if a := m.str(sp, attrAgentID); a != "" {
			t["agent_id"] = a
		}
		if v, ok := m.attr(sp, attrInputMessages); ok {
			m.captured = true
			if u := lastText(messages(v, "user"), "user"); u != "" {
				input["user_message"] = u
			}
		}
		if v, ok := m.attr(sp, attrOutputMessages); ok {
			m.captured = true
			if o := lastText(messages(v, "assistant"), ""); o != "" {
				output["message"] = o
			}
		}
		first, last, failed = sp.Start, sp.End, sp.Error
	} else {
		for i, k := range under {
			sp := &m.spans[k]
			if i == 0 || sp.Start < first {
				first = sp.Start
			}
			last = max(last, sp.End)
			failed = failed || sp.Error
		}
	}
	if _, ok := input["user_message"]; !ok && len(llm) > 0 {
		if args, _ := llm[0]["args"].(map[string]any); args != nil {
			if msgs, _ := args["messages"].([]any); msgs != nil {
				if u := lastText(msgs, "user"); u != "" {
					input["user_message"] = u
				}
			}
		}
	}
	if _, ok := output["message"]; !ok && len(llm) > 0 {
		if res, _ := llm[len(llm)-1]["result"].(map[string]any); res != nil {
			if c, ok := res["completion"].(string); ok {
				output["message"] = c
			}
		}
	}
	if len(input) > 0 {
		t["input"] = input
	}
	output["status"] = "ok"
	if failed {
		output["status"] = "error"
	}
	t["output"] = output

	tokens := int64(0)
	haveTokens := false
	for _, s := range llm {
		if res, _ := s["result"].(map[string]any); res != nil {
			if n, ok := res["tokens"].(json.Number); ok {
				if v, err := n.Int64(); err == nil {
					tokens += v
					haveTokens = true
				}
			}
		}
		if _, ok := meta["model"]; !ok {
			if args, _ := s["args"].(map[string]any); args != nil {
				if model, ok := args["model"].(string); ok {
					meta["model"] = model
				}
			}
		}
	}
	if haveTokens {
		meta["total_tokens"] = json.Number(strconv.FormatInt(tokens, 10))
	}
	if last >= first && last > 0 {
		meta["latency_ms"] = millis(last - first)
	}
	if first > 0 {
		meta["timestamp"] = time.Unix(0, first).UTC().Format(time.RFC3339Nano)
	}
	t["metadata"] = meta
	return t
}

// walk appends the steps for spans idx (in order) to steps.
func (m *mapper) walk(idx []int, self int, traceID string, depth int, steps *[]any, llm *[]map[string]any) {
	for _, i := range idx {
		if m.used[i] {
			continue
		}
		m.used[i] = true
		sp := &m.spans[i]
		kids := m.children[sp.SpanID]
		switch op := operation(sp); {
		case i == self:
			m.walk(kids, self, traceID, depth, steps, llm)
		case op == opInvokeAgent && depth < trace.MaxSubTraceDepth:
			// Sub-trace ids join the trace id and the agent span's id, so
			// that they are unique within the tree and stable.
			sub := m.traceObject(traceID+"-"+sp.SpanID, traceID, i, kids, depth+1)
			step := m.step(sp, "agent_call", m.agentName(sp))
			step["sub_trace"] = sub
			if out, _ := sub["output"].(map[string]any); out != nil {
				if msg, ok := out["message"]; ok {
					step["result"] = map[string]any{"message": msg}
				}
			}
			*steps = append(*steps, step)
		case op == opInvokeAgent:
			// Deeper than spec §7 allows: the agent is a step without a
			// sub_trace, and its spans are read in its place.
			*steps = append(*steps, m.step(sp, "agent_call", m.agentName(sp)))
			m.walk(kids, self, traceID, depth, steps, llm)
		case op == opExecuteTool:
			*steps = append(*steps, m.toolStep(sp))
			m.walk(kids, self, traceID, depth, steps, llm)
		case op == opChat || op == opGenerate || op == opCompletion:
			s := m.llmStep(sp, op)
			*steps = append(*steps, s)
			*llm = append(*llm, s)
			m.walk(kids, self, traceID, depth, steps, llm)
		default:
			m.walk(kids, self, traceID, depth, steps, llm)
		}
	}
}

func (m *mapper) agentName(sp *Span) string {
	if a := m.str(sp, attrAgentName); a != "" {
		return a
	}
	if a := m.str(sp, attrAgentID); a != "" {
		return a
	}
	return nonEmpty(sp.Name, opInvokeAgent)
}

// step is the common part: type, name, metadata from the span.
func (m *mapper) step(sp *Span, typ, name string) map[string]any {
	meta := map[string]any{"span_id": sp.SpanID}
	if sp.End >= sp.Start && sp.Start > 0 {
		meta["duration_ms"] = millis(sp.End - sp.Start)
	}
	if sp.Error {
		meta["error"] = nonEmpty(sp.Status, "error")
	}
	return map[string]any{"type": typ, "name": name, "metadata": meta}
}

func (m *mapper) toolStep(sp *Span) map[string]any {
	name := m.str(sp, attrToolName)
	if name == "" {
		name = nonEmpty(trimOp(sp.Name, opExecuteTool), opExecuteTool)
	}
	s := m.step(sp, "tool_call", name)
	if id := m.str(sp, attrToolCallID); id != "" {
		s["metadata"].(map[string]any)["tool_call_id"] = id
	}
	if v, ok := m.attr(sp, attrToolArgs); ok {
		s["args"] = object(v, "arguments")
	}
	if v, ok := m.attr(sp, attrToolResult); ok {
		s["result"] = object(v, "result")
	}
	return s
}

func (m *mapper) llmStep(sp *Span, op string) map[string]any {
	model := m.str(sp, attrResponseModel)
	if model == "" {
		model = m.str(sp, attrRequestModel)
	}
	s := m.step(sp, "llm_call", nonEmpty(sp.Name, op))
	args, result := map[string]any{"operation": op}, map[string]any{}
	if model != "" {
		args["model"] = model
	}
	if p := m.str(sp, attrProvider); p != "" {
		args["provider"] = p
	}
	if v, ok := m.attr(sp, attrInputMessages); ok {
		m.captured = true
		msgs := messages(v, "user")
		args["messages"] = msgs
		args["prompt"] = text(msgs, "")
	}
	if v, ok := sp.Attrs[attrSystemInstr]; ok && v != nil {
		args["system_instructions"] = v
	}
	if v, ok := m.attr(sp, attrOutputMessages); ok {
		m.captured = true
		msgs := messages(v, "assistant")
		result["messages"] = msgs
		result["completion"] = text(msgs, "")
	}
	in, okIn := m.number(sp, attrInputTokens)
	out, okOut := m.number(sp, attrOutputTokens)
	if okIn {
		result["input_tokens"] = in
	}
	if okOut {
		result["output_tokens"] = out
	}
	if okIn || okOut {
		a, _ := in.Int64()
		b, _ := out.Int64()
		result["tokens"] = json.Number(strconv.FormatInt(a+b, 10))
	}
	if fr, ok := sp.Attrs[attrFinishReasons].([]any); ok && len(fr) > 0 {
		if f, ok := fr[0].(string); ok {
			result["finish_reason"] = f
		}
	}
	s["args"] = args
	if len(result) > 0 {
		s["result"] = result
	}
	return s
}

// object makes a step's args or result: a JSON object text becomes that
// object; anything else is kept under key.
func object(v any, key string) map[string]any {
	if s, ok := v.(string); ok && len(s) <= maxMessageJSON {
		if d, err := trace.Decode([]byte(s)); err == nil {
			if o, ok := d.(map[string]any); ok {
				return o
			}
			return map[string]any{key: d}
		}
	}
	if o, ok := v.(map[string]any); ok {
		return o
	}
	return map[string]any{key: v}
}

func trimOp(name, op string) string {
	if len(name) > len(op)+1 && name[:len(op)+1] == op+" " {
		return name[len(op)+1:]
	}
	return ""
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func num(n int) json.Number { return json.Number(strconv.Itoa(n)) }

// millis is a nanosecond duration in milliseconds, exact to the nanosecond.
func millis(ns int64) json.Number {
	ms := strconv.FormatInt(ns/1e6, 10)
	if frac := ns % 1e6; frac != 0 {
		f := strconv.FormatInt(1e6+frac, 10)[1:]
		for f[len(f)-1] == '0' {
			f = f[:len(f)-1]
		}
		ms += "." + f
	}
	return json.Number(ms)
}
