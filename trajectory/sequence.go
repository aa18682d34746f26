// sequence.go: the steps a check reads: the trace's steps or its whole tree, flattened in execution order.

package trajectory

import (
	"strconv"

	"attest-engine/clip"
	"attest-engine/tape"
)

// step is one step of the trace, read in place.
type step struct {
	v            tape.Value
	args, result tape.Value // found once: every pattern tested reads them
	name         string
	typ          string
	trace        int // its trace in run.traces
	index        int // its index in that trace's steps
}

// isTool is the engine's rule for a tool call by type (assert's layer 3):
// tool_call, and retrieval ("semantically similar to tool_call", spec §3.3).
func (s *step) isTool() bool { return s.typ == "tool_call" || s.typ == "retrieval" }

// traceInfo is one trace of the tree: where its steps are and whose it is.
type traceInfo struct {
	prefix string // location of the trace: "" for the root, "steps[2].sub_trace." below
	agent  string
	steps  int // how many steps it has
}

// run is one evaluation's view of the trace.
type run struct {
	root   tape.Value
	traces []traceInfo
	top    []step // the root trace's steps
	tree   []step // the whole tree, made on first use
	env    env
}

func newRun(root tape.Value, c *compiler) *run {
	r := &run{root: root}
	// One allocation for the steps, whatever their number: an appended
	// list would allocate about twice its final size on the way.
	r.top = r.collect(root, "", false, make([]step, 0, root.Get("steps").Len()))
	r.env.refs = make([][]any, len(c.refs))
	for i, p := range c.refs {
		// Each ref path is read once per evaluation, whatever the number of
		// steps and patterns: its values do not depend on the step matched.
		for _, m := range p.SelectValue(root) {
			r.env.refs[i] = append(r.env.refs[i], m.Any())
		}
	}
	return r
}

// steps returns the steps of a scope: "trace" (the trace's own steps, as
// the spec's checks read them) or "tree" (each agent_call step followed by
// the steps of its sub_trace, recursively: spec §3.3's nesting is the order
// in which they ran).
func (r *run) steps(tree bool) []step {
	if !tree {
		return r.top
	}
	if r.tree == nil {
		r.traces = r.traces[:0]
		r.tree = r.collect(r.root, "", true, make([]step, 0, r.treeSize(r.root)))
	}
	return r.tree
}

// treeSize counts the steps of a trace and its sub-traces.
func (r *run) treeSize(tr tape.Value) int {
	n := 0
	for st := range tr.Get("steps").Elems() {
		n++
		if sub := st.Get("sub_trace"); sub.Kind() == tape.Object {
			n += r.treeSize(sub)
		}
	}
	return n
}

// collect appends the steps of the trace tr (and, with tree, of its
// sub-traces) to out. Nesting is bounded by the tape's depth bound (and by
// spec §7's five levels on a validated trace).
func (r *run) collect(tr tape.Value, prefix string, tree bool, out []step) []step {
	t := len(r.traces)
	agent := ""
	if a := tr.Get("agent_id"); a.Kind() == tape.String {
		agent = a.Str()
	}
	r.traces = append(r.traces, traceInfo{prefix: prefix, agent: agent})
	i := 0
	for st := range tr.Get("steps").Elems() {
		s := step{v: st, args: st.Get("args"), result: st.Get("result"), trace: t, index: i}
		if n := st.Get("name"); n.Kind() == tape.String {
			s.name = n.Str()
		}
		if ty := st.Get("type"); ty.Kind() == tape.String {
			s.typ = ty.Str()
		}
		out = append(out, s)
		if tree {
			if sub := st.Get("sub_trace"); sub.Kind() == tape.Object {
				out = r.collect(sub, prefix+"steps["+strconv.Itoa(i)+"].sub_trace.", true, out)
			}
		}
		i++
	}
	r.traces[t].steps = i
	return out
}

// sequence is the steps a set of patterns reads, by their index in all:
// the tool calls by type, and whatever its type a step bearing a name (or a
// type) that one of the patterns names, the rule of the spec's own trace
// checks (an llm_call named in a pattern counts; an unnamed one does not).
func sequence(all []step, names, types map[string]bool) []int {
	seq := make([]int, 0, len(all))
	for i := range all {
		s := &all[i]
		if s.isTool() || names[s.name] || types[s.typ] {
			seq = append(seq, i)
		}
	}
	return seq
}

// Failure is where a trajectory departs from what the check asks: the step
// and why. It is sent as the additive result field "failed_step".
type Failure struct {
	// Step is the step's index in its trace's steps array; when the trace
	// ended before what was asked happened, it is the number of steps of
	// the trace read (one past the last) and AtEnd is set.
	Step     int    `json:"step"`
	Location string `json:"location"`           // the step as a path from the trace evaluated: steps[4], steps[2].sub_trace.steps[1]
	AgentID  string `json:"agent_id,omitempty"` // agent_id of the trace holding the step, if it has one
	Tool     string `json:"tool,omitempty"`     // the step's name ("" at the end)
	AtEnd    bool   `json:"at_end,omitempty"`
	Reason   string `json:"reason"`
}

// maxReason bounds a Failure's reason (the parts it quotes are cut
// shorter; this holds whatever they are).
const maxReason = 2048

// failAt is a Failure at a step.
func (r *run) failAt(s *step, reason string) *Failure {
	t := r.traces[s.trace]
	return &Failure{Step: s.index, Location: t.prefix + "steps[" + strconv.Itoa(s.index) + "]", AgentID: t.agent, Tool: s.name, Reason: clip.String(reason, maxReason)}
}

// failEnd is a Failure after the last step of the trace read.
func (r *run) failEnd(reason string) *Failure {
	n := r.traces[0].steps
	return &Failure{Step: n, Location: "steps[" + strconv.Itoa(n) + "]", AgentID: r.traces[0].agent, AtEnd: true, Reason: clip.String(reason, maxReason)}
}

// describe names a step in explanations: "step 4 'process_refund'", with
// its agent and location when it is in a sub-trace.
func (r *run) describe(s *step) string {
	d := "step " + strconv.Itoa(s.index) + " '" + clip.String(s.name, 80) + "'"
	if s.trace == 0 {
		return d
	}
	t := r.traces[s.trace]
	if t.agent != "" {
		d += " of agent '" + clip.String(t.agent, 80) + "'"
	}
	return d + " (" + t.prefix + "steps[" + strconv.Itoa(s.index) + "])"
}

// String renders f as the sentence explanations end with.
func (f *Failure) String() string {
	if f.AtEnd {
		return "the end of the trace (after " + strconv.Itoa(f.Step) + " steps): " + f.Reason
	}
	return f.Location + " '" + clip.String(f.Tool, 80) + "': " + f.Reason
}
