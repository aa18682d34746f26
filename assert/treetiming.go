// treetiming.go: when the agents of a trace tree worked, and the trace_tree checks that compare it.

package assert

import (
	"fmt"
	"strconv"

	"attest-engine/jsonschema"
	"attest-engine/trace"
)

// timing is when an agent worked: from the earliest start to the latest end
// of its timing records.
type timing struct {
	start, end float64
	found      bool
	incomplete string // the first record with only one of its two fields
}

func (t *timing) add(start, end float64) {
	if !t.found || start < t.start {
		t.start = start
	}
	if !t.found || end > t.end {
		t.end = end
	}
	t.found = true
}

// agentTimings collects the work intervals of every agent of the tree in one
// walk (../shared/sdk-compat.md: "Timing checks read step-level agent_id
// with started_at_ms / ended_at_ms (or the trace's own timing metadata)"),
// keyed by agent id: an agent is known when a trace or a step names it.
// Step records come first: a step whose agent_id (on the step or in its
// metadata) is the agent's, or an agent_call step whose sub_trace has that
// agent_id. Only an agent without any complete step record takes the
// traces' own timing: started_at_ms/ended_at_ms on the trace or in its
// metadata, else metadata.timestamp plus metadata.latency_ms.
//
// One walk serves every agent a check names, so a check naming many agents
// (ordered_agents) costs the size of the tree once, not once per agent.
func agentTimings(nodes []*treeNode) map[string]*timing {
	idx := map[string]*timing{}
	get := func(id string) *timing {
		t := idx[id]
		if t == nil {
			t = &timing{}
			idx[id] = t
		}
		return t
	}
	for _, n := range nodes {
		steps, _ := n.trace["steps"].([]any)
		for i, s := range steps {
			st, ok := s.(map[string]any)
			if !ok {
				continue
			}
			t := get(stepAgent(st))
			start, end, missing := interval(st)
			switch {
			case missing == "":
				t.add(start, end)
			case missing != "both" && t.incomplete == "":
				name, _ := st["name"].(string)
				t.incomplete = fmt.Sprintf("step '%s' (steps[%d] of trace '%s') has no %s", name, i, n.traceID, missing)
			}
		}
	}
	stepTimed := map[string]bool{}
	for id, t := range idx {
		stepTimed[id] = t.found
	}
	for _, n := range nodes {
		t := get(n.agentID)
		if stepTimed[n.agentID] {
			continue
		}
		start, end, missing := interval(n.trace)
		if missing == "both" {
			start, end, missing = stampedInterval(n.trace)
		}
		switch {
		case missing == "":
			t.add(start, end)
		case missing != "both" && t.incomplete == "":
			t.incomplete = fmt.Sprintf("trace '%s' has no %s", n.traceID, missing)
		}
	}
	return idx
}

// stepAgent is the agent a step's timing belongs to, "" when none.
func stepAgent(st map[string]any) string {
	if id, ok := st["agent_id"].(string); ok {
		return id
	}
	if md, ok := st["metadata"].(map[string]any); ok {
		if id, ok := md["agent_id"].(string); ok {
			return id
		}
	}
	if sub, ok := st["sub_trace"].(map[string]any); ok {
		id, _ := sub["agent_id"].(string)
		return id
	}
	return ""
}

// interval reads started_at_ms/ended_at_ms of a step or a trace, on the
// object itself or in its metadata. missing names what is absent: "" when
// both are there, "both" when neither is.
func interval(obj map[string]any) (start, end float64, missing string) {
	md, _ := obj["metadata"].(map[string]any)
	read := func(name string) (float64, bool) {
		if f, ok := jsonschema.Float(obj[name]); ok {
			return f, true
		}
		return jsonschema.Float(md[name])
	}
	start, hasStart := read("started_at_ms")
	end, hasEnd := read("ended_at_ms")
	switch {
	case hasStart && hasEnd:
		return start, end, ""
	case hasStart:
		return 0, 0, "ended_at_ms"
	case hasEnd:
		return 0, 0, "started_at_ms"
	}
	return 0, 0, "both"
}

// stampedInterval derives an interval from metadata.timestamp (RFC 3339) and
// metadata.latency_ms, in milliseconds since the Unix epoch.
func stampedInterval(tr map[string]any) (start, end float64, missing string) {
	md, _ := tr["metadata"].(map[string]any)
	ts, hasTS := md["timestamp"].(string)
	lat, hasLat := jsonschema.Float(md["latency_ms"])
	switch {
	case hasTS && hasLat:
		// Lower-case "t" and "z" and leap seconds included (RFC 3339 §5.6).
		at, ok := trace.ParseTimestamp(ts)
		if !ok {
			return 0, 0, "valid metadata.timestamp"
		}
		start = float64(at.UnixMilli())
		return start, start + lat, ""
	case hasTS:
		return 0, 0, "metadata.latency_ms"
	}
	return 0, 0, "both"
}

// timingOf returns id's timing, or the failing outcome that says why there
// is none: an unknown agent, or which timing field is missing.
func timingOf(nodes []*treeNode, idx map[string]*timing, id string) (timing, *outcome) {
	t, known := idx[id]
	if !known {
		o := unknownAgent(nodes, id)
		return timing{}, &o
	}
	if t.found {
		return *t, nil
	}
	var o outcome
	if t.incomplete != "" {
		o = failf("Agent '%s' has no complete timing: %s.", id, t.incomplete)
	} else {
		o = failf("Agent '%s' has no timing: missing started_at_ms and ended_at_ms (no step with agent_id '%s' carries them, and its trace has neither them nor metadata.timestamp with metadata.latency_ms).", id, id)
	}
	return timing{}, &o
}

// timingCheck evaluates the checks that compare when agents worked.
func (c *treeCheck) timingCheck(nodes []*treeNode) outcome {
	idx := agentTimings(nodes)
	switch c.check {
	case "agent_wall_time_under":
		t, fail := timingOf(nodes, idx, c.agent)
		if fail != nil {
			return *fail
		}
		if d := t.end - t.start; d >= c.maxMS {
			return failf("Agent '%s' worked %sms, not under max_ms %s.", c.agent, num(d), num(c.maxMS))
		}
		return passf("Agent '%s' worked %sms, under max_ms %s.", c.agent, num(t.end-t.start), num(c.maxMS))
	case "agent_ordered_before", "agents_overlap":
		a, fail := timingOf(nodes, idx, c.agentA)
		if fail != nil {
			return *fail
		}
		b, fail := timingOf(nodes, idx, c.agentB)
		if fail != nil {
			return *fail
		}
		spans := fmt.Sprintf("'%s' %s-%sms, '%s' %s-%sms", c.agentA, num(a.start), num(a.end), c.agentB, num(b.start), num(b.end))
		if c.check == "agents_overlap" {
			if a.start < b.end && b.start < a.end {
				return passf("Agents '%s' and '%s' overlapped in time (%s).", c.agentA, c.agentB, spans)
			}
			return failf("Agents '%s' and '%s' did not overlap in time (%s).", c.agentA, c.agentB, spans)
		}
		if a.end <= b.start {
			return passf("Agent '%s' ended before agent '%s' started (%s).", c.agentA, c.agentB, spans)
		}
		return failf("Agent '%s' did not end before agent '%s' started (%s).", c.agentA, c.agentB, spans)
	}
	// ordered_agents: each group ends before any agent of the next starts.
	times := make([][]timing, len(c.groups))
	for i, g := range c.groups {
		times[i] = make([]timing, len(g))
		for j, id := range g {
			t, fail := timingOf(nodes, idx, id)
			if fail != nil {
				return *fail
			}
			times[i][j] = t
		}
	}
	// Linear in the groups' sizes, not their product: each agent of a group
	// is compared with the next group's earliest start, and only a failing
	// one looks for the first agent it overlaps.
	for i := 1; i < len(c.groups); i++ {
		earliest := times[i][0].start
		for _, next := range times[i][1:] {
			earliest = min(earliest, next.start)
		}
		for j, prev := range times[i-1] {
			if prev.end <= earliest {
				continue
			}
			for k, next := range times[i] {
				if prev.end > next.start {
					return failf("Agent '%s' (group %d) ended at %sms, after agent '%s' (group %d) started at %sms.",
						c.groups[i-1][j], i, num(prev.end), c.groups[i][k], i+1, num(next.start))
				}
			}
		}
	}
	return passf("All %d groups of agents ran in order.", len(c.groups))
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
