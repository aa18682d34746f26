// tracecheck.go: layer 3, structural checks on the sequence of tool calls (spec §4).

package assert

import (
	"context"
	"fmt"
	"strings"

	"attest-engine/jsonschema"
	"attest-engine/tape"
	"attest-engine/trajectory"
)

// toolCall is a top-level step a trace check reads: its name, its index,
// and whether it is a tool call by type.
type toolCall struct {
	name string
	step int
	tool bool
}

// isToolStep decides which steps are tool calls by type. tool_call is;
// retrieval is "semantically similar to tool_call" (spec §3.3), so it
// counts too. llm_call never does, nor agent_call (a delegation), nor an
// unknown step type (spec §6: opaque). A step of any type still counts
// where a check lists its name (relevant).
func isToolStep(typ string) bool { return typ == "tool_call" || typ == "retrieval" }

// namedSteps returns every top-level step with a name, in order, and the
// tool calls among them, built once per batch and shared by its trace checks.
func (in *input) namedSteps() (all, tools []toolCall) {
	in.callsOnce.Do(func() {
		// One array holds both lists: the named steps, then room for the
		// tool calls among them.
		n := in.steps.Len()
		buf := in.callRoom[:0]
		if 2*n > len(in.callRoom) {
			buf = make([]toolCall, 0, 2*n)
		}
		in.calls = buf[:0:n]
		i := 0
		for st := range in.steps.Elems() {
			typ := st.Get("type")
			if name := st.Get("name"); name.Kind() == tape.String {
				// isToolStep, read in place.
				in.calls = append(in.calls, toolCall{name.Str(), i, typ.Is("tool_call") || typ.Is("retrieval")})
			}
			i++
		}
		in.toolCalls = in.calls
		for _, c := range in.calls {
			if !c.tool { // some step is not a tool call: keep a list without them
				in.toolCalls = buf[n : n : 2*n]
				for _, c := range in.calls {
					if c.tool {
						in.toolCalls = append(in.toolCalls, c)
					}
				}
				break
			}
		}
	})
	return in.calls, in.toolCalls
}

// relevant returns the steps a check reads: the tool calls and, whatever
// their type, the steps bearing a name the check lists (as SDK users write
// them: sdk-compat "Tool names as SDK users write them"). When no other
// step bears a listed name, that is the batch's shared list of tool calls.
func (c *traceCheck) relevant(in *input) []toolCall {
	all, tools := in.namedSteps()
	if c.listed == nil {
		return tools
	}
	i := 0
	for i < len(all) && (all[i].tool || !c.lists(all[i].name)) {
		i++
	}
	if i == len(all) {
		return tools
	}
	out := make([]toolCall, 0, len(all))
	for _, s := range all {
		if s.tool || c.lists(s.name) {
			out = append(out, s)
		}
	}
	return out
}

// traceCheck is one compiled spec §4 Layer 3 check.
type traceCheck struct {
	check  string
	tools  []string
	tool   string
	max    int64
	listed map[string]bool // tools and tool: the names this check lists

	recovery *recoveryCheck // error_recovery
}

// lists reports whether the check names this step name.
func (c *traceCheck) lists(name string) bool { return c.listed[name] }

// compileTrace reads spec §4 Layer 3: check and the fields its row of the
// "Check types" table requires. transitions is accepted and ignored: no
// check of the table uses it (trace_tree's follows_transitions does).
func compileTrace(e *Engine, s spec) (check, error) {
	name, err := s.str("check", true)
	if err != nil {
		return nil, err
	}
	if trajectory.IsKind(name) { // capability "trajectory" (trajectory.go)
		return compileTrajectory(e, s)
	}
	c := &traceCheck{check: name}
	switch name {
	case "contains_in_order", "exact_order", "required_tools", "forbidden_tools":
		c.tools, err = s.strs("tools", true)
	case "no_duplicates":
		c.tools, err = s.strs("tools", false) // sdk-compat: tools? restricts it
	case "error_recovery": // simulation capability (recovery.go)
		c.recovery, err = compileRecovery(s)
	case "loop_detection":
		if c.tool, err = s.str("tool", true); err != nil {
			return nil, err
		}
		c.max, err = nonNegativeInt(s, "max_repetitions")
	default:
		return nil, specErrorf("Use one of contains_in_order, exact_order, loop_detection, no_duplicates, required_tools, forbidden_tools (spec §4 Layer 3), or error_recovery.", "unknown trace check '%s'", name)
	}
	if err != nil {
		return nil, err
	}
	if c.check != "no_duplicates" && c.check != "error_recovery" { // these read tool calls only
		c.listed = make(map[string]bool, len(c.tools)+1)
		for _, t := range c.tools {
			c.listed[t] = true
		}
		if c.check == "loop_detection" {
			c.listed[c.tool] = true
		}
	}
	return c, nil
}

// nonNegativeInt reads a required integer ≥ 0; 2.0 and 2e0 are 2.
func nonNegativeInt(s spec, name string) (int64, error) {
	v, ok := s[name]
	if !ok || v == nil {
		return 0, s.missing(name)
	}
	// An integer however it is written (2, 2.0, 2e0), read exactly.
	n, ok := jsonschema.Integer(v)
	if !ok || n < 0 {
		return 0, specErrorf(fmt.Sprintf("Set '%s' to a non-negative integer.", name), "spec field '%s' must be a non-negative integer, got %s", name, jsonText(v))
	}
	return n, nil
}

func (c *traceCheck) eval(_ context.Context, in *input) (outcome, error) {
	calls := c.relevant(in) // no_duplicates lists no name: the tool calls
	var pass bool
	var exp string
	switch c.check {
	case "contains_in_order":
		pass, exp = c.inOrder(calls)
	case "exact_order":
		pass, exp = c.exactOrder(calls)
	case "loop_detection":
		steps := stepsOf(calls, c.tool)
		pass = int64(len(steps)) <= c.max
		verdict := "within"
		if !pass {
			verdict = "exceeds"
		}
		exp = fmt.Sprintf("Tool '%s' called %s, %s max_repetitions %d.", c.tool, times(steps), verdict, c.max)
	case "no_duplicates":
		pass, exp = c.noDuplicates(calls)
	case "required_tools":
		pass, exp = c.required(calls)
	case "forbidden_tools":
		pass, exp = c.forbidden(calls)
	case "error_recovery":
		pass, exp = c.recovery.eval(in, calls)
	}
	o := outcome{pass: pass, explanation: exp}
	if pass {
		o.score = 1
	}
	return o, nil
}

// inOrder: the tools appear in this order, others may come between. The
// earliest match is found greedily, which finds one whenever one exists.
func (c *traceCheck) inOrder(calls []toolCall) (bool, string) {
	var small [8]int // a sequence of up to 8 tools keeps its steps on the stack
	at := small[:0]
	j := 0
	for _, tc := range calls {
		if j < len(c.tools) && tc.name == c.tools[j] {
			at = append(at, tc.step)
			j++
		}
	}
	if j == len(c.tools) {
		// Appended into one buffer: one allocation besides the string, on every batch.
		var buf [256]byte
		b := append(buf[:0], "Tool sequence "...)
		b = appendNames(b, c.tools)
		b = append(b, " found in order at steps "...)
		b = append(appendInts(b, at), '.')
		return true, string(b)
	}
	why := fmt.Sprintf("'%s' was never called", c.tools[0])
	if j > 0 {
		why = fmt.Sprintf("%s found at steps %s, but no '%s' after step %d", bracketNames(c.tools[:j]), intList(at), c.tools[j], at[j-1])
	}
	return false, fmt.Sprintf("Tool sequence %s not found in order: %s. %s", bracketNames(c.tools), why, called(calls))
}

// exactOrder: the tools appear as consecutive steps of calls, in this
// order (spec: "no other tool calls in between"); calls before and after
// the run are allowed. calls holds the steps that count as tool calls here:
// tool_call and retrieval steps and the steps bearing a listed name, so an
// unlisted llm_call between them does not break the order.
func (c *traceCheck) exactOrder(calls []toolCall) (bool, string) {
	for i := 0; i+len(c.tools) <= len(calls); i++ {
		ok := true
		for j, t := range c.tools {
			if calls[i+j].name != t {
				ok = false
				break
			}
		}
		if ok {
			at := make([]int, len(c.tools))
			for j := range c.tools {
				at[j] = calls[i+j].step
			}
			return true, fmt.Sprintf("Tool sequence %s found in exact order at steps %s.", bracketNames(c.tools), intList(at))
		}
	}
	return false, fmt.Sprintf("Tool sequence %s not found in exact order with no other tool calls in between. %s", bracketNames(c.tools), called(calls))
}

func (c *traceCheck) noDuplicates(calls []toolCall) (bool, string) {
	var only map[string]bool
	if len(c.tools) > 0 {
		only = make(map[string]bool, len(c.tools))
		for _, t := range c.tools {
			only[t] = true
		}
	}
	steps := make(map[string][]int)
	var order []string // names in order of first call
	for _, tc := range calls {
		if only != nil && !only[tc.name] {
			continue
		}
		if _, seen := steps[tc.name]; !seen {
			order = append(order, tc.name)
		}
		steps[tc.name] = append(steps[tc.name], tc.step)
	}
	var dups []string
	for _, n := range order {
		if len(steps[n]) > 1 {
			dups = append(dups, fmt.Sprintf("'%s' called %s", n, times(steps[n])))
		}
	}
	scope := "No tool"
	if only != nil {
		scope = "None of " + bracketNames(c.tools)
	}
	if len(dups) == 0 {
		n := countCalls(steps)
		return true, fmt.Sprintf("%s called more than once (%d %s checked).", scope, n, toolCallsWord(n))
	}
	if len(dups) > maxListed {
		dups = append(dups[:maxListed], fmt.Sprintf("… %d more", len(dups)-maxListed))
	}
	return false, fmt.Sprintf("Duplicate tool calls: %s.", strings.Join(dups, "; "))
}

func (c *traceCheck) required(calls []toolCall) (bool, string) {
	var missing, found []string
	for _, t := range c.tools {
		if steps := stepsOf(calls, t); len(steps) == 0 {
			missing = append(missing, t)
		} else {
			found = append(found, fmt.Sprintf("'%s' at step %d", t, steps[0]))
		}
	}
	if len(missing) == 0 {
		return true, fmt.Sprintf("All required tools called: %s.", strings.Join(found, ", "))
	}
	return false, fmt.Sprintf("Required tools not called: %s. %s", bracketNames(missing), called(calls))
}

func (c *traceCheck) forbidden(calls []toolCall) (bool, string) {
	var hits []string
	for _, t := range c.tools {
		if steps := stepsOf(calls, t); len(steps) > 0 {
			hits = append(hits, fmt.Sprintf("'%s' called %s", t, times(steps)))
		}
	}
	if len(hits) == 0 {
		return true, fmt.Sprintf("None of the forbidden tools %s were called.", bracketNames(c.tools))
	}
	return false, fmt.Sprintf("Forbidden tools called: %s.", strings.Join(hits, "; "))
}

// stepsOf lists the steps at which tool was called.
func stepsOf(calls []toolCall, tool string) []int {
	var at []int
	for _, tc := range calls {
		if tc.name == tool {
			at = append(at, tc.step)
		}
	}
	return at
}

func countCalls(steps map[string][]int) int {
	n := 0
	for _, s := range steps {
		n += len(s)
	}
	return n
}

// times reads "0 times", "1 time (step 2)", "3 times (steps [1, 3, 5])".
func times(steps []int) string {
	switch len(steps) {
	case 0:
		return "0 times"
	case 1:
		return fmt.Sprintf("1 time (step %d)", steps[0])
	}
	return fmt.Sprintf("%d times (steps %s)", len(steps), intList(steps))
}

// called lists the steps a check read, for failure explanations: "Tool
// calls" when all are tool calls by type, "Tool calls and listed steps"
// when a listed name is borne by a step of another type.
func called(calls []toolCall) string {
	if len(calls) == 0 {
		return "The trace has no tool calls."
	}
	what := "Tool calls"
	for _, tc := range calls {
		if !tc.tool {
			what = "Tool calls and listed steps"
			break
		}
	}
	names := make([]string, len(calls))
	at := make([]int, len(calls))
	for i, tc := range calls {
		names[i], at[i] = tc.name, tc.step
	}
	return fmt.Sprintf("%s: %s at steps %s.", what, bracketNames(names), intList(at))
}

func toolCallsWord(n int) string {
	if n == 1 {
		return "tool call"
	}
	return "tool calls"
}
