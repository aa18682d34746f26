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
	// TokensCaptured and CostCaptured: for an OTLP trace, whether any
	// span carried token usage, or a cost, in a convention read.
	TokensCaptured bool
	CostCaptured   bool
	// ToolsCaptured: some tool call is known (a tool span, or one named in
	// the messages), or content was captured (then none is none).
	ToolsCaptured bool
	Format        string // "attest" or "otlp"
	// SpanID is the span the trace's verdicts are about (for results sent
	// back as OpenTelemetry events): its agent span, else its first top
	// span; "" for an Attest trace.
	SpanID string
	Size   int // bytes of input text it was made from
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
	ops      []string           // classify's operation of each span
	convs    []string           // and the convention that named it
	logs     map[string][]Event // log records joined to spans, by span id
	events   [][]Event          // each span's events and log records (joinLogs); nil without records
	evCache  map[int]evMsgs     // each span's event-per-message messages, read once
	children map[string][]int   // parent span id → span indexes, in step order
	used     []bool
	captured bool
	tokens   bool // some llm_call carried token usage
	cost     bool // some step carried a cost
	tools    bool // some tool_call step was made (span or derived)
	sources  map[string]map[string]bool
	toolIDs  map[string]bool // tool_call_id of the tool spans (derive.go)
	toolSeen map[string]int  // tool spans without an id, by name
	derived  map[string]bool // call ids made tool_call steps
	steps    int
}

// source notes that field came from src (convention "/" delivery), for
// metadata.otel.sources.
func (m *mapper) source(field, src string) {
	if src == "" {
		return
	}
	if m.sources == nil {
		m.sources = map[string]map[string]bool{}
	}
	if m.sources[field] == nil {
		m.sources[field] = map[string]bool{}
	}
	m.sources[field][src] = true
}

// maxTraceEvents bounds the span events and log records one trace maps:
// each becomes a message or a field of the Attest trace, several times the
// memory it was held in, and a trace's spans may hold the assembler's whole
// budget of them. Past it the rest are dropped, counted
// (metadata.otel.dropped_events), and the trace is incomplete. An agent
// whose every model call sends its whole history as events reaches it at
// about 128 calls of 128 messages.
const maxTraceEvents = 1 << 14

// Trace maps a group by the GenAI semantic conventions and the others
// read (doc.go, conventions.go):
//
//   - invoke_agent spans are the trace and its sub_traces;
//   - execute_tool spans are tool_call steps;
//   - chat, generate_content and text_completion spans are llm_call steps,
//     and the tool calls in their messages that no tool span made are
//     tool_call steps of their own (derive.go);
//   - other spans are transparent: their children are read in their place.
//
// Log records in the group are joined to their spans by span id. Steps are
// in order of start time, then end time, then arrival, depth first.
// Latencies come from span times.
func (mp *Mapper) Trace(g Group) Trace {
	m := &mapper{warn: mp.Warn, children: map[string][]int{}}
	size, records, unjoined := 0, 0, 0
	ids := make(map[string]bool, len(g.Spans))
	for _, sp := range g.Spans {
		size += sp.Size
		if sp.LogKey == "" {
			ids[sp.SpanID] = true
			m.spans = append(m.spans, sp)
		}
	}
	// The events a trace maps are bounded (maxTraceEvents): the spans'
	// events first, in span order, then the log records as they came.
	left, droppedEvents := maxTraceEvents, 0
	for i := range m.spans {
		if n := len(m.spans[i].Events); n > left {
			droppedEvents += n - left
			m.spans[i].Events = m.spans[i].Events[:left:left]
		}
		left -= len(m.spans[i].Events)
	}
	for _, sp := range g.Spans {
		if sp.LogKey == "" {
			continue
		}
		records += len(sp.Events)
		if !ids[sp.SpanID] {
			unjoined += len(sp.Events) // no span id, or its span is not in the trace
			continue
		}
		if m.logs == nil {
			m.logs = map[string][]Event{}
		}
		for _, e := range sp.Events {
			if left == 0 {
				droppedEvents++
				continue
			}
			left--
			m.logs[sp.SpanID] = append(m.logs[sp.SpanID], e.unpacked())
		}
	}
	m.joinLogs()
	m.used = make([]bool, len(m.spans))
	m.ops, m.convs = make([]string, len(m.spans)), make([]string, len(m.spans))
	var tops []int
	for i := range m.spans {
		sp := &m.spans[i]
		m.ops[i], m.convs[i] = classify(sp)
		if sp.ParentID == "" || !ids[sp.ParentID] || sp.ParentID == sp.SpanID {
			tops = append(tops, i)
		} else {
			m.children[sp.ParentID] = append(m.children[sp.ParentID], i)
		}
	}
	m.sortSteps(tops)
	for k := range m.children {
		m.sortSteps(m.children[k])
	}
	m.indexTools()
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
	otel := map[string]any{"trace_id": g.TraceID, "spans": num(len(m.spans)), "closed": g.Reason,
		"content_captured": m.captured}
	if records > 0 {
		otel["log_records"] = num(records)
	}
	if unjoined > 0 {
		otel["unjoined_log_records"] = num(unjoined)
	}
	if droppedEvents > 0 {
		otel["dropped_events"] = num(droppedEvents)
	}
	incomplete := g.Incomplete || unreached > 0 || droppedEvents > 0
	if incomplete {
		otel["incomplete"] = true
	}
	if g.Dropped > 0 {
		otel["dropped_spans"] = num(g.Dropped)
	}
	if unreached > 0 {
		otel["unreachable_spans"] = num(unreached)
	}
	if len(tops) > 0 && m.spans[tops[0]].Service != "" {
		otel["service_name"] = m.spans[tops[0]].Service
	}
	if len(m.sources) > 0 {
		src := map[string]any{}
		for field, set := range m.sources {
			list := make([]string, 0, len(set))
			for s := range set {
				list = append(list, s)
			}
			slices.Sort(list)
			src[field] = toAny(list)
		}
		otel["sources"] = src
	}
	meta["otel"] = otel
	agent, _ := root["agent_id"].(string)
	spanID := ""
	switch {
	case self >= 0:
		spanID = m.spans[self].SpanID
	case len(tops) > 0:
		spanID = m.spans[tops[0]].SpanID
	}
	return Trace{ID: g.TraceID, AgentID: agent, Value: root, Incomplete: incomplete, ContentCaptured: m.captured,
		TokensCaptured: m.tokens, CostCaptured: m.cost, ToolsCaptured: m.captured || m.tools, Format: "otlp", Size: size, Seq: g.Seq, SpanID: spanID}
}

func toAny(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

// sortSteps orders sibling spans by start time, then end time (SDKs that
// record milliseconds start a tool span and the next model call in the
// same millisecond; the one that ended first came first), then arrival.
func (m *mapper) sortSteps(idx []int) {
	slices.SortStableFunc(idx, func(a, b int) int {
		if c := cmp.Compare(m.spans[a].Start, m.spans[b].Start); c != 0 {
			return c
		}
		if c := cmp.Compare(m.spans[a].End, m.spans[b].End); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
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
		if m.ops[i] == opInvokeAgent {
			out = append(out, i)
			continue
		}
		stack = append(stack, m.children[m.spans[i].SpanID]...)
	}
	slices.Sort(out)
	m.sortSteps(out)
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
	steps = m.derive(steps)
	t["steps"] = steps

	input, output := map[string]any{}, map[string]any{}
	meta := map[string]any{}
	var first, last int64
	failed := false
	if self >= 0 {
		sp := &m.spans[self]
		if a := m.agentID(self); a != "" {
			t["agent_id"] = a
		}
		if u := m.agentInput(self); u != "" {
			input["user_message"] = u
		}
		if o := m.agentOutput(self); o != "" {
			output["message"] = o
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
			if c, ok := res["completion"].(string); ok && c != "" {
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

	tokens, cost := int64(0), ""
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
		if sm, _ := s["metadata"].(map[string]any); sm != nil {
			if c, ok := sm["cost_usd"].(json.Number); ok {
				cost = addDecimal(cost, string(c))
			}
		}
	}
	if haveTokens {
		meta["total_tokens"] = json.Number(strconv.FormatInt(tokens, 10))
	}
	if cost != "" {
		meta["cost_usd"] = json.Number(cost)
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
		switch op := m.ops[i]; {
		case i == self:
			m.walk(kids, self, traceID, depth, steps, llm)
		case op == opInvokeAgent && depth < trace.MaxSubTraceDepth:
			// Sub-trace ids join the trace id and the agent span's id, so
			// that they are unique within the tree and stable.
			sub := m.traceObject(traceID+"-"+sp.SpanID, traceID, i, kids, depth+1)
			step := m.step(i, "agent_call", m.agentName(i))
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
			*steps = append(*steps, m.step(i, "agent_call", m.agentName(i)))
			m.walk(kids, self, traceID, depth, steps, llm)
		case op == opExecuteTool:
			*steps = append(*steps, m.toolStep(i))
			m.walk(kids, self, traceID, depth, steps, llm)
		case op == opRetrieval:
			*steps = append(*steps, m.retrievalStep(i))
			m.walk(kids, self, traceID, depth, steps, llm)
		case op == opChat || op == opGenerate || op == opCompletion:
			s := m.llmStep(i, op)
			*steps = append(*steps, s)
			*llm = append(*llm, s)
			m.walk(kids, self, traceID, depth, steps, llm)
		default:
			m.walk(kids, self, traceID, depth, steps, llm)
		}
	}
}

// step is the common part: type, name, metadata from the span.
func (m *mapper) step(i int, typ, name string) map[string]any {
	sp := &m.spans[i]
	meta := map[string]any{"span_id": sp.SpanID}
	if sp.End >= sp.Start && sp.Start > 0 {
		meta["duration_ms"] = millis(sp.End - sp.Start)
	}
	if sp.Error {
		meta["error"] = nonEmpty(sp.Status, "error")
	}
	return map[string]any{"type": typ, "name": name, "metadata": meta}
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
