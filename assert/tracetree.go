// tracetree.go: the trace_tree assertion type: cross-agent checks over a trace and its sub-traces.

package assert

import (
	"context"
	"fmt"
	"math/big"
	"strings"
)

// treeCheck is a compiled trace_tree assertion. The checks and their fields
// are those of ../shared/sdk-compat.md, "Multi-agent assertions: type
// trace_tree"; every check takes soft (read by the batch).
type treeCheck struct {
	check       string
	agent       string // agent_called, agent_output_contains, agent_wall_time_under
	agentA      string // agent_ordered_before, agents_overlap
	agentB      string
	from, to    string // cross_agent_data_flow
	field       target
	value       string // agent_output_contains
	needle      needle // value, matched as content's contains matches it
	maxDepth    int
	op          string // aggregate_*
	limit       *big.Rat
	metaField   string // aggregate_*: the metadata member summed
	maxMS       float64
	transitions [][2]string
	groups      [][]string
	tools       []string
}

var treeChecks = "agent_called, delegation_depth, agent_output_contains, cross_agent_data_flow, aggregate_cost, aggregate_tokens, aggregate_latency, follows_transitions, agent_ordered_before, agents_overlap, agent_wall_time_under, ordered_agents, all_tools_called"

func compileTraceTree(_ *Engine, s spec) (check, error) {
	name, err := s.str("check", true)
	if err != nil {
		return nil, err
	}
	c := &treeCheck{check: name}
	str := func(dst *string, field string) {
		if err == nil {
			*dst, err = s.str(field, true)
		}
	}
	switch name {
	case "agent_called":
		str(&c.agent, "agent_id")
	case "delegation_depth":
		var f float64
		var ok bool
		f, ok, err = s.num("max_depth")
		if err == nil && !ok {
			err = s.missing("max_depth")
		}
		if err == nil && (f < 1 || f != float64(int(f))) {
			err = specErrorf("Set max_depth to a whole number of delegation levels, 1 or more.", "spec field 'max_depth' must be an integer >= 1, got %v", s["max_depth"])
		}
		c.maxDepth = int(f)
	case "agent_output_contains":
		str(&c.agent, "agent_id")
		str(&c.value, "value")
		if err == nil {
			var cs bool
			if cs, err = s.boolean("case_sensitive", false); err == nil {
				c.needle, err = newNeedle(c.value, cs)
			}
		}
	case "cross_agent_data_flow":
		str(&c.from, "from_agent")
		str(&c.to, "to_agent")
		if err == nil {
			c.field, err = parseTarget(s, "field")
		}
	case "aggregate_cost", "aggregate_tokens", "aggregate_latency":
		c.metaField = map[string]string{"aggregate_cost": "cost_usd", "aggregate_tokens": "total_tokens", "aggregate_latency": "latency_ms"}[name]
		c.op, c.limit, err = comparison(s)
	case "follows_transitions":
		c.transitions, err = transitions(s)
	case "agent_ordered_before", "agents_overlap":
		str(&c.agentA, "agent_a")
		str(&c.agentB, "agent_b")
	case "agent_wall_time_under":
		str(&c.agent, "agent_id")
		if err == nil {
			var ok bool
			c.maxMS, ok, err = s.num("max_ms")
			if err == nil && !ok {
				err = s.missing("max_ms")
			}
		}
	case "ordered_agents":
		c.groups, err = groups(s)
	case "all_tools_called":
		c.tools, err = s.strs("tools", true)
	default:
		return nil, specErrorf("Supported trace_tree checks: "+treeChecks+".", "unknown trace_tree check '%s'", name)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// comparison reads operator and value of an aggregate check.
func comparison(s spec) (string, *big.Rat, error) {
	op, err := s.str("operator", true)
	if err != nil {
		return "", nil, err
	}
	if !constraintOps[op] || op == "between" {
		return "", nil, specErrorf("Aggregate checks take the operators lt, lte, gt, gte and eq.", "unsupported operator '%s'", op)
	}
	if _, _, err := s.num("value"); err != nil {
		return "", nil, err
	}
	r, ok := ratOf(s["value"])
	if !ok {
		return "", nil, s.missing("value")
	}
	return op, r, nil
}

// transitions reads [[parent, child], …]; an empty list allows no delegation.
func transitions(s spec) ([][2]string, error) {
	v, ok := s["transitions"].([]any)
	if !ok {
		if !s.has("transitions") {
			return nil, s.missing("transitions")
		}
		return nil, s.wrongType("transitions", "a list of [parent, child] pairs")
	}
	out := make([][2]string, len(v))
	for i, e := range v {
		pair, _ := e.([]any)
		a, aok := elem(pair, 0)
		b, bok := elem(pair, 1)
		if len(pair) != 2 || !aok || !bok {
			return nil, specErrorf("Write each transition as a pair of agent ids: [\"orchestrator\", \"researcher\"].", "spec field 'transitions' entry %d must be a [parent, child] pair of strings", i)
		}
		out[i] = [2]string{a, b}
	}
	return out, nil
}

// groups reads [[agent, …], …]: at least one group, none empty.
func groups(s spec) ([][]string, error) {
	v, ok := s["groups"].([]any)
	if !ok || len(v) == 0 {
		if !s.has("groups") {
			return nil, s.missing("groups")
		}
		return nil, s.wrongType("groups", "a non-empty list of lists of agent ids")
	}
	out := make([][]string, len(v))
	for i, e := range v {
		g, _ := e.([]any)
		if len(g) == 0 {
			return nil, specErrorf("Each group is a non-empty list of agent ids.", "spec field 'groups' entry %d must be a non-empty list of strings", i)
		}
		for j := range g {
			id, ok := elem(g, j)
			if !ok {
				return nil, specErrorf("Each group is a non-empty list of agent ids.", "spec field 'groups' entry %d must be a non-empty list of strings", i)
			}
			out[i] = append(out[i], id)
		}
	}
	return out, nil
}

func elem(list []any, i int) (string, bool) {
	if i >= len(list) {
		return "", false
	}
	s, ok := list[i].(string)
	return s, ok
}

func (c *treeCheck) eval(ctx context.Context, in *input) (outcome, error) {
	nodes := in.tree()
	switch c.check {
	case "agent_called":
		if found := byAgent(nodes, c.agent); len(found) > 0 {
			return passf("Agent '%s' was called (trace '%s', depth %d).", c.agent, found[0].traceID, found[0].depth), nil
		}
		return failf("Agent '%s' was not called; agents in the tree: %s.", c.agent, quoteList(agentIDs(nodes))), nil
	case "delegation_depth":
		d := treeDepth(nodes)
		if d > c.maxDepth {
			return failf("Delegation depth %d exceeds max_depth %d (%s).", d, c.maxDepth, deepestChain(nodes)), nil
		}
		return passf("Delegation depth %d is within max_depth %d.", d, c.maxDepth), nil
	case "agent_output_contains":
		return c.outputContains(nodes), nil
	case "cross_agent_data_flow":
		return c.dataFlow(ctx, nodes)
	case "aggregate_cost", "aggregate_tokens", "aggregate_latency":
		return c.aggregate(nodes), nil
	case "follows_transitions":
		return c.followsTransitions(nodes), nil
	case "all_tools_called":
		return allToolsCalled(nodes, c.tools), nil
	}
	return c.timingCheck(nodes), nil
}

func passf(format string, args ...any) outcome {
	return outcome{pass: true, score: 1, explanation: fmt.Sprintf(format, args...)}
}

func failf(format string, args ...any) outcome {
	return outcome{explanation: fmt.Sprintf(format, args...)}
}

func unknownAgent(nodes []*treeNode, id string) outcome {
	return failf("Agent '%s' not found in the trace tree; agents in the tree: %s.", id, quoteList(agentIDs(nodes)))
}

// deepestChain names the agents from the root to the deepest trace.
func deepestChain(nodes []*treeNode) string {
	deepest := nodes[0]
	for _, n := range nodes {
		if n.depth > deepest.depth {
			deepest = n
		}
	}
	var chain []string
	for n := deepest; n != nil; n = n.parent {
		chain = append([]string{n.label()}, chain...)
	}
	return strings.Join(chain, " -> ")
}

// outputContains: some string anywhere in the output of one of the agent's
// traces contains value.
func (c *treeCheck) outputContains(nodes []*treeNode) outcome {
	found := byAgent(nodes, c.agent)
	if len(found) == 0 {
		return unknownAgent(nodes, c.agent)
	}
	for _, n := range found {
		if containsText(n.trace["output"], c.needle) {
			return passf("Output of agent '%s' (trace '%s') contains '%s'.", c.agent, n.traceID, c.value)
		}
	}
	return failf("Output of agent '%s' does not contain '%s'.", c.agent, c.value)
}

func (c *treeCheck) aggregate(nodes []*treeNode) outcome {
	sum, carriers := aggregate(nodes, c.metaField)
	name := "metadata." + c.metaField
	if carriers == 0 {
		return failf("No trace in the tree has %s; cannot check the aggregate %s %s.", name, c.op, ratText(c.limit))
	}
	ok := holds(c.op, sum.Cmp(c.limit))
	verdict := "satisfied"
	if !ok {
		verdict = "violated"
	}
	o := failf("Aggregate %s over %d of %d traces = %s, constraint %s %s %s.", name, carriers, len(nodes), ratText(sum), c.op, ratText(c.limit), verdict)
	o.pass = ok
	if ok {
		o.score = 1
	}
	return o
}

func (c *treeCheck) followsTransitions(nodes []*treeNode) outcome {
	allowed := map[[2]string]bool{}
	for _, t := range c.transitions {
		allowed[t] = true
	}
	for _, n := range nodes[1:] {
		if n.parent.agentID == "" || n.agentID == "" || !allowed[[2]string{n.parent.agentID, n.agentID}] {
			return failf("Delegation %s -> %s at %s is not one of the allowed transitions.", n.parent.label(), n.label(), strings.TrimSuffix(n.where, ": "))
		}
	}
	return passf("All %d delegations in the tree follow the allowed transitions.", len(nodes)-1)
}

// allToolsCalled: every listed tool is the name of a tool_call step of some
// trace of the tree.
func allToolsCalled(nodes []*treeNode, tools []string) outcome {
	called := map[string]bool{}
	for _, n := range nodes {
		steps, _ := n.trace["steps"].([]any)
		for _, s := range steps {
			if st, ok := s.(map[string]any); ok && st["type"] == "tool_call" {
				if name, ok := st["name"].(string); ok {
					called[name] = true
				}
			}
		}
	}
	var missing []string
	for _, t := range tools {
		if !called[t] {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		return failf("Tools never called anywhere in the tree: %s.", quoteList(missing))
	}
	return passf("All tools %s were called in the tree.", quoteList(tools))
}

// dataFlow: the value of field in from_agent's output (a path relative to
// the output, e.g. refund_id or structured.refund_id) reaches to_agent's
// input: equal to a value inside it or, for a string, contained in one of
// its strings. to_agent's input is its trace's input together with the args
// of the agent_call step that delegated to it.
//
// The search costs the number of values times the size of the inputs: a
// path with a wildcard over a large output, against a large input, can take
// minutes, so the search stops when ctx ends (the batch's time limit).
func (c *treeCheck) dataFlow(ctx context.Context, nodes []*treeNode) (outcome, error) {
	from, to := byAgent(nodes, c.from), byAgent(nodes, c.to)
	if len(from) == 0 {
		return unknownAgent(nodes, c.from), nil
	}
	if len(to) == 0 {
		return unknownAgent(nodes, c.to), nil
	}
	var values []any
	for _, n := range from {
		for _, m := range c.field.path.Select(n.trace["output"]) {
			values = append(values, m.Value)
		}
	}
	if len(values) == 0 {
		return failf("Field '%s' not found in the output of agent '%s'.", c.field.expr, c.from), nil
	}
	for _, v := range values {
		if err := ctx.Err(); err != nil {
			return outcome{}, err
		}
		for _, n := range to {
			var args any
			if n.step != nil {
				args = n.step["args"]
			}
			if reaches(v, n.trace["input"]) || reaches(v, args) {
				return passf("Value %s of '%s' in the output of agent '%s' reaches the input of agent '%s' (trace '%s').", short(v), c.field.expr, c.from, c.to, n.traceID), nil
			}
		}
	}
	return failf("Value %s of '%s' in the output of agent '%s' does not reach the input of agent '%s'.", short(values[0]), c.field.expr, c.from, c.to), nil
}
